/* SPDX-License-Identifier: MIT */
/*
 * Our own mountinfo parser, not libmount (bench/mountinfo-parse.sh,
 * bench/README.md "Parsing mountinfo"). One lookup by major:minor, read + find +
 * rsize, callgrind instructions, ours against libmount 2.38.1:
 *   this machine's 21 lines               14 K    203 K
 *   5000 FUSE mounts (706 KiB)            2.7 M   56.5 M
 *   9 MiB hostile (escapes, long fields)  5.6 M   247 M
 * and linking libmount costs every agent exec, disk events included, 0.78 M
 * instructions and 0.8 MiB of the dynamic loader (libmount, libblkid,
 * libselinux, libpcre2-8): 1.7 times the agent's whole event (0.47 M).
 * Escapes, lines and options of any length, malformed lines skipped: this
 * parser does it, and test-mountinfo, tests/hostile and fuzz-mountinfo hold
 * it to that.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h"
#include "fileio.h"
#include "mountinfo.h"
#include "snapshot.h"

/* The raw next space-separated field [*ret_start, return value), or NULL at
 * the end of the line. */
static const char *next_raw(const char *p, const char *end, const char **ret_start) {
        while (p < end && *p == ' ')
                p++;
        if (p >= end)
                return NULL;
        *ret_start = p;
        while (p < end && *p != ' ')
                p++;
        return p;
}

size_t ra_mount_unescape_byte(const char *p, const char *end, char *ret_c) {
        if (*p == '\\' && end - p >= 4 && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
                *ret_c = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                return 4;
        }
        *ret_c = *p;
        return 1;
}

/* Appends the field [p, end) to out, decoding \ooo escapes, with a NUL.
 * Never longer than the raw field, so out needs the line's length plus one
 * NUL per field. Returns where the field starts in out. */
static const char *decode(const char *p, const char *end, char **out) {
        char *start = *out, *o = *out;

        while (p < end)
                p += ra_mount_unescape_byte(p, end, o++);
        *o++ = 0;
        *out = o;
        return start;
}

/* The superblock's MAJ:MIN, the third field. Returns where the field ends,
 * NULL for a malformed line. */
/* A number as the kernel writes it ("%u"): digits only, no sign, no leading
 * zero, at most max. */
static bool parse_decimal(const char *s, const char *e, unsigned long max, unsigned long *ret) {
        unsigned long v = 0;

        if (s == e || (*s == '0' && e - s > 1))
                return false;
        for (; s < e; s++) {
                if (*s < '0' || *s > '9')
                        return false;
                v = v * 10 + (unsigned long) (*s - '0');
                if (v > max)
                        return false;
        }
        *ret = v;
        return true;
}

/* The third field, the superblock as the kernel writes it, "%u:%u"; any
 * other text (a sign, a leading zero, a NUL) is a line it did not write.
 * So a field holds one device in one spelling, and a lookup by major:minor
 * may compare the text (dev_field_is()) and see what a full parse sees. */
static const char *parse_dev(const char *p, const char *end, unsigned *ret_major,
                             unsigned *ret_minor) {
        const char *f, *colon;
        unsigned long maj, min;

        /* mount id, parent id */
        if (!(p = next_raw(p, end, &f)) || !(p = next_raw(p, end, &f)))
                return NULL;
        if (!(p = next_raw(p, end, &f)) || !(colon = memchr(f, ':', (size_t) (p - f))))
                return NULL;
        if (!parse_decimal(f, colon, 0xfff, &maj) || !parse_decimal(colon + 1, p, 0xfffff, &min))
                return NULL;
        *ret_major = (unsigned) maj;
        *ret_minor = (unsigned) min;
        return p;
}

static bool parse_line(const char *p, const char *end, char *scratch, struct ra_mount *m) {
        const char *f, *e;

        if (!(p = parse_dev(p, end, &m->major, &m->minor)))
                return false;
        /* root, mount point, mount options */
        if (!(p = next_raw(p, end, &f)) || !(e = p = next_raw(p, end, &f)))
                return false;
        m->mount_point = decode(f, e, &scratch);
        if (!(p = next_raw(p, end, &f)))
                return false;
        /* optional fields up to "-" */
        for (;;) {
                if (!(p = next_raw(p, end, &f)))
                        return false;
                if (p - f == 1 && *f == '-')
                        break;
        }
        if (!(e = p = next_raw(p, end, &f)))
                return false;
        m->fstype = decode(f, e, &scratch);
        if (!(e = p = next_raw(p, end, &f)))
                return false;
        m->source = decode(f, e, &scratch);
        if ((e = next_raw(p, end, &f)))
                m->super_options = decode(f, e, &scratch);
        else
                m->super_options = decode(p, p, &scratch);
        m->n_mount_points = 1;
        return true;
}

/* A superblock to look for: other lines are skipped before their fields are
 * decoded, which is most of the cost of a line. */
struct dev_filter {
        unsigned major, minor;
};

/* Whether the third space-separated field of [p, eol) is dev. */
static bool dev_field_is(const char *p, const char *eol, const char *dev, size_t dev_len) {
        for (int i = 0; i < 2; i++) {
                while (p < eol && *p == ' ')
                        p++;
                if (!(p = memchr(p, ' ', (size_t) (eol - p))))
                        return false;
        }
        while (p < eol && *p == ' ')
                p++;
        return (size_t) (eol - p) > dev_len && memcmp(p, dev, dev_len) == 0 && p[dev_len] == ' ';
}

static int foreach_line(const char *text, size_t len, const struct dev_filter *want,
                        int (*cb)(const struct ra_mount *m, void *userdata), void *userdata) {
        const char *end = text + len, *eol, *next;
        char *scratch = NULL;
        size_t scratch_size = 0;
        int r = 0;

        /* The kernel writes the superblock as "%u:%u": a line whose third
         * field is not that text is skipped before anything is decoded or
         * converted (most of a lookup among hundreds of FUSE mounts). */
        char dev[24];
        size_t dev_len = 0;
        if (want)
                dev_len = (size_t) snprintf(dev, sizeof(dev), "%u:%u", want->major, want->minor);

        for (const char *p = text; p < end; p = next) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                eol = nl ? nl : end;
                next = nl ? nl + 1 : end;
                struct ra_mount m = {};
                unsigned major, minor;
                /* Four decoded fields fit in the line and their NULs. */
                size_t need = (size_t) (eol - p) + 4;

                if (want && (!dev_field_is(p, eol, dev, dev_len) || !parse_dev(p, eol, &major, &minor) ||
                             major != want->major ||
                             minor != want->minor))
                        continue;

                if (need > scratch_size) {
                        char *s = realloc(scratch, need);
                        if (!s) {
                                r = -ENOMEM;
                                break;
                        }
                        scratch = s;
                        scratch_size = need;
                }
                if (parse_line(p, eol, scratch, &m)) {
                        r = cb(&m, userdata);
                        if (r != 0)
                                break;
                }
        }
        free(scratch);
        return r;
}

int ra_mountinfo_foreach(const char *text, size_t len,
                         int (*cb)(const struct ra_mount *m, void *userdata), void *userdata) {
        return foreach_line(text, len, NULL, cb, userdata);
}

void ra_mount_done(struct ra_mount *m) {
        free(m->owned);
        *m = (struct ra_mount){};
}

/* A copy of m that owns its strings. */
static int mount_copy(const struct ra_mount *m, struct ra_mount *ret) {
        const char *fields[] = { m->mount_point, m->fstype, m->source, m->super_options };
        size_t len = 0;

        for (size_t i = 0; i < 4; i++)
                len += strlen(fields[i]) + 1;
        char *buf = malloc(len), *o = buf;
        if (!buf)
                return -ENOMEM;
        const char *copies[4];
        for (size_t i = 0; i < 4; i++) {
                size_t l = strlen(fields[i]) + 1;
                copies[i] = memcpy(o, fields[i], l);
                o += l;
        }
        *ret = (struct ra_mount){
                .major = m->major,
                .minor = m->minor,
                .mount_point = copies[0],
                .fstype = copies[1],
                .source = copies[2],
                .super_options = copies[3],
                .n_mount_points = m->n_mount_points,
                .owned = buf,
        };
        return 0;
}

struct find_ctx {
        unsigned major, minor;
        struct ra_mount *ret;
        bool found;
};

static int find_cb(const struct ra_mount *m, void *userdata) {
        struct find_ctx *ctx = userdata;

        if (m->major != ctx->major || m->minor != ctx->minor)
                return 0;
        if (!ctx->found) {
                int r = mount_copy(m, ctx->ret);
                if (r < 0)
                        return r;
                ctx->found = true;
        } else
                ctx->ret->n_mount_points++;
        return 0;
}

int ra_mountinfo_find(const char *text, size_t len, unsigned major, unsigned minor,
                      struct ra_mount *ret) {
        struct find_ctx ctx = { .major = major, .minor = minor, .ret = ret };
        struct dev_filter want = { .major = major, .minor = minor };

        int r = foreach_line(text, len, &want, find_cb, &ctx);
        if (r < 0) {
                if (ctx.found)
                        ra_mount_done(ret);
                return r;
        }
        return ctx.found;
}

/* Finds "key=" as a whole option in a comma-separated list. */
const char *ra_mount_option_value(const char *options, const char *key, size_t *ret_len) {
        size_t kl = strlen(key);

        for (const char *p = options; p && *p;) {
                const char *comma = strchr(p, ',');
                size_t l = comma ? (size_t) (comma - p) : strlen(p);
                if (l > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
                        *ret_len = l - kl - 1;
                        return p + kl + 1;
                }
                p = comma ? comma + 1 : NULL;
        }
        return NULL;
}

uint64_t ra_mount_option_u64_checked(const char *options, const char *key, bool *ret_invalid) {
        size_t l;
        const char *v = ra_mount_option_value(options, key, &l);
        uint64_t n = 0;

        *ret_invalid = false;
        if (!v)
                return 0;
        for (size_t i = 0; i < l; i++) {
                /* up to UINT64_MAX itself: a huge value is a value, used
                 * where rsize is (rsize/1024 and 4 x that fit 64 bits) */
                if (!isdigit((unsigned char) v[i]) || n > (UINT64_MAX - (uint64_t) (v[i] - '0')) / 10) {
                        *ret_invalid = true;
                        return 0;
                }
                n = n * 10 + (uint64_t) (v[i] - '0');
        }
        *ret_invalid = l == 0;
        return n;
}

uint64_t ra_mount_option_u64(const char *options, const char *key) {
        bool invalid;
        return ra_mount_option_u64_checked(options, key, &invalid);
}

const char *ra_mount_server(const char *source, size_t *ret_len) {
        const char *start = source, *end;

        if (strncmp(source, "//", 2) == 0) { /* cifs: //server/share */
                start = source + 2;
                end = strchr(start, '/');
        } else if (source[0] == '[') { /* nfs with IPv6: [addr]:/export */
                start = source + 1;
                end = strchr(start, ']');
        } else {
                end = strchr(source, ':');
                /* sshfs user@host:path */
                const char *at = strchr(source, '@');
                if (at && end && at < end)
                        start = at + 1;
        }
        if (!end || end == start)
                return NULL;
        *ret_len = (size_t) (end - start);
        return start;
}

int ra_parse_bdi_name(const char *name, unsigned *ret_major, unsigned *ret_minor) {
        char *e;
        unsigned long maj, min;

        if (!isdigit((unsigned char) name[0]))
                return -EINVAL;
        maj = strtoul(name, &e, 10);
        if (*e != ':' || !isdigit((unsigned char) e[1]))
                return -EINVAL;
        min = strtoul(e + 1, &e, 10);
        if ((*e != 0 && strcmp(e, "-fuseblk") != 0) || maj != 0 || min > 0xfffff)
                return -EINVAL;
        *ret_major = (unsigned) maj;
        *ret_minor = (unsigned) min;
        return 0;
}

int ra_facts_from_mount(struct ra_facts *f, const char *bdi_name, const struct ra_mount *m) {
        const char *v;
        size_t l;
        bool invalid;

        f->kind = RA_KIND_MOUNT;
        snprintf(f->name, sizeof(f->name), "%s", bdi_name);
        f->major = m->major;
        f->minor = m->minor;
        f->transport = RA_TRANSPORT_NETWORK;
        f->n_mount_points = m->n_mount_points;
        if (ra_facts_set(&f->mount_point, m->mount_point) < 0 ||
            ra_facts_set(&f->fstype, m->fstype) < 0 || ra_facts_set(&f->source, m->source) < 0)
                return -ENOMEM;
        if ((v = ra_mount_server(m->source, &l)) && ra_facts_set_n(&f->server, v, l) < 0)
                return -ENOMEM;
        f->rsize_bytes = ra_mount_option_u64_checked(m->super_options, "rsize", &invalid);
        if (invalid)
                f->invalid |= 1u << RA_FACT_RSIZE;
        if (strncmp(m->fstype, "nfs", 3) == 0) {
                v = ra_mount_option_value(m->super_options, "vers", &l);
                if (!v && strcmp(m->fstype, "nfs4") == 0)
                        v = "4", l = 1;
                if (v && l > 0 && ra_facts_set_n(&f->nfs_version, v, l) < 0)
                        return -ENOMEM;
        }
        ra_facts_classify(f);
        return 0;
}

/* Reading it: while readahead-ctl holds a snapshot, its copy; else the file. */
int ra_read_mountinfo(char **ret, size_t *ret_len) {
        int r = ra_snapshot_mountinfo(ret, ret_len);
        if (r != 0)
                return r < 0 ? r : 0;
        return ra_read_mountinfo_file(ret, ret_len);
}

int ra_mountinfo_open(void) {
        /* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
        int fd = open(ra_mountinfo_path(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        /* /proc's files are regular files of size 0: the type says it, not the size. */
        if (!S_ISREG(st.st_mode)) {
                close(fd);
                return -EBADFD;
        }
        return fd;
}

int ra_read_mountinfo_file(char **ret, size_t *ret_len) {
        int fd = ra_mountinfo_open();
        if (fd < 0)
                return fd;
        int r = ra_read_whole_fd(fd, RA_MOUNTINFO_MAX_BYTES, ret, ret_len);
        close(fd);
        return r;
}

const char *ra_mountinfo_path(void) {
        const char *path = getenv("READAHEAD_MOUNTINFO");
        return path && *path ? path : "/proc/self/mountinfo";
}

const char *ra_mountinfo_strerror(int r) {
        if (r == -EFBIG)
                return "larger than the limit (256 MiB)";
        if (r == -EBADFD)
                return "not a regular file or a /proc file (a FIFO, device, socket or directory)";
        return strerror(-r);
}
