/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"
#include "mountinfo.h"

/* Copies the next space-separated field, decoding \ooo escapes. Returns the
 * position after it, or NULL at the end of the line. */
static const char *next_field(const char *p, const char *end, char *buf, size_t size) {
        size_t n = 0;

        while (p < end && *p == ' ')
                p++;
        if (p >= end)
                return NULL;
        for (; p < end && *p != ' '; p++) {
                char c = *p;
                if (c == '\\' && end - p >= 4 && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' &&
                    p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
                        c = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                }
                if (n + 1 < size)
                        buf[n++] = c;
        }
        if (size > 0)
                buf[n] = 0;
        return p;
}

static bool parse_line(const char *p, const char *end, struct ra_mount *m) {
        char field[RA_PATH_MAX], *e;

        /* mount id, parent id */
        if (!(p = next_field(p, end, field, sizeof(field))) || !(p = next_field(p, end, field, sizeof(field))))
                return false;
        if (!(p = next_field(p, end, field, sizeof(field))))
                return false;
        unsigned long maj = strtoul(field, &e, 10);
        if (e == field || *e != ':')
                return false;
        char *mi = e + 1;
        unsigned long min = strtoul(mi, &e, 10);
        if (e == mi || *e != 0 || maj > 0xfff || min > 0xfffff)
                return false;
        m->major = (unsigned) maj;
        m->minor = (unsigned) min;

        /* root, mount point, mount options */
        if (!(p = next_field(p, end, field, sizeof(field))) ||
            !(p = next_field(p, end, m->mount_point, sizeof(m->mount_point))) ||
            !(p = next_field(p, end, field, sizeof(field))))
                return false;
        /* optional fields up to "-" */
        for (;;) {
                if (!(p = next_field(p, end, field, sizeof(field))))
                        return false;
                if (strcmp(field, "-") == 0)
                        break;
        }
        if (!(p = next_field(p, end, m->fstype, sizeof(m->fstype))) ||
            !(p = next_field(p, end, m->source, sizeof(m->source))))
                return false;
        if (!next_field(p, end, m->super_options, sizeof(m->super_options)))
                m->super_options[0] = 0;
        m->n_mount_points = 1;
        return true;
}

int ra_mountinfo_foreach(const char *text, size_t len,
                         int (*cb)(const struct ra_mount *m, void *userdata), void *userdata) {
        const char *p = text, *end = text + len;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                const char *eol = nl ? nl : end;
                struct ra_mount m = {};

                if (parse_line(p, eol, &m)) {
                        int r = cb(&m, userdata);
                        if (r != 0)
                                return r;
                }
                p = eol + 1;
        }
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
                *ctx->ret = *m;
                ctx->found = true;
        } else
                ctx->ret->n_mount_points++;
        return 0;
}

int ra_mountinfo_find(const char *text, size_t len, unsigned major, unsigned minor,
                      struct ra_mount *ret) {
        struct find_ctx ctx = { .major = major, .minor = minor, .ret = ret };

        (void) ra_mountinfo_foreach(text, len, find_cb, &ctx);
        return ctx.found;
}

/* Finds "key=" as a whole option in a comma-separated list. */
static const char *option_value(const char *options, const char *key, size_t *ret_len) {
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

uint64_t ra_mount_option_u64(const char *options, const char *key) {
        size_t l;
        const char *v = option_value(options, key, &l);
        uint64_t n = 0;

        if (!v || l == 0 || l > 19)
                return 0;
        for (size_t i = 0; i < l; i++) {
                if (!isdigit((unsigned char) v[i]))
                        return 0;
                n = n * 10 + (uint64_t) (v[i] - '0');
        }
        return n;
}

void ra_mount_option_string(const char *options, const char *key, char *buf, size_t size) {
        size_t l;
        const char *v = option_value(options, key, &l);

        if (!v || l >= size)
                l = 0;
        if (size == 0)
                return;
        if (l > 0)
                memcpy(buf, v, l);
        buf[l] = 0;
}

void ra_mount_server(const char *source, char *buf, size_t size) {
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
        size_t l = end ? (size_t) (end - start) : 0;
        if (l >= size)
                l = size - 1;
        memcpy(buf, start, l);
        buf[l] = 0;
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

void ra_facts_from_mount(struct ra_facts *f, const char *bdi_name, const struct ra_mount *m) {
        f->kind = RA_KIND_MOUNT;
        snprintf(f->name, sizeof(f->name), "%s", bdi_name);
        f->major = m->major;
        f->minor = m->minor;
        f->transport = RA_TRANSPORT_NETWORK;
        snprintf(f->mount_point, sizeof(f->mount_point), "%s", m->mount_point);
        f->n_mount_points = m->n_mount_points;
        snprintf(f->fstype, sizeof(f->fstype), "%s", m->fstype);
        snprintf(f->source, sizeof(f->source), "%s", m->source);
        ra_mount_server(m->source, f->server, sizeof(f->server));
        f->rsize_bytes = ra_mount_option_u64(m->super_options, "rsize");
        if (strncmp(m->fstype, "nfs", 3) == 0) {
                ra_mount_option_string(m->super_options, "vers", f->nfs_version, sizeof(f->nfs_version));
                if (!f->nfs_version[0] && strcmp(m->fstype, "nfs4") == 0)
                        snprintf(f->nfs_version, sizeof(f->nfs_version), "4");
        }
        ra_facts_classify(f);
}
