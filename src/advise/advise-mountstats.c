/* SPDX-License-Identifier: MIT */
/*
 * The NFS client's /proc/self/mountstats, as fs/nfs/super.c
 * (nfs_show_stats) and net/sunrpc/stats.c (rpc_clnt_show_stats) print it:
 * fields separated by spaces or tabs, the device and mount point escaped
 * like mountinfo's (\ooo), one "device" line opening each mount.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mountinfo.h"
#include "advise-mountstats.h"

static bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

/* The next field of [*p, end): [*ret_start, return value), NULL at the end. */
static const char *next_field(const char **p, const char *end, const char **ret_start) {
        const char *s = *p;
        while (s < end && is_blank(*s))
                s++;
        if (s >= end)
                return NULL;
        *ret_start = s;
        while (s < end && !is_blank(*s))
                s++;
        *p = s;
        return s;
}

static bool field_is(const char *s, const char *e, const char *word) {
        size_t n = strlen(word);
        return (size_t) (e - s) == n && memcmp(s, word, n) == 0;
}

/* The escaped field [s, e) decodes to plain, exactly. */
static bool escaped_equal(const char *s, const char *e, const char *plain) {
        for (; s < e; plain++) {
                char c;
                s += ra_mount_unescape_byte(s, e, &c);
                if (*plain == 0 || *plain != c)
                        return false; /* plain is shorter, or differs */
        }
        return *plain == 0;
}

/* n decimal numbers after the line's label; more may follow. */
static bool parse_numbers(const char *p, const char *end, uint64_t *const *out, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const char *s, *e = next_field(&p, end, &s);
                uint64_t v = 0;
                if (!e)
                        return false;
                for (; s < e; s++) {
                        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t) (*s - '0')) / 10)
                                return false;
                        v = v * 10 + (uint64_t) (*s - '0');
                }
                *out[i] = v;
        }
        return true;
}

/* "device DEV mounted on MOUNT_POINT with fstype FSTYPE ...", starting at
 * its first field: at mount_point? Then *ret_nfs says whether it is NFS. */
static bool is_device_line_at(const char *p, const char *end, const char *mount_point, bool *ret_nfs) {
        const char *f[8], *fe[8];
        for (size_t i = 0; i < 8; i++)
                if (!(fe[i] = next_field(&p, end, &f[i])))
                        return false;
        *ret_nfs = field_is(f[7], fe[7], "nfs") || field_is(f[7], fe[7], "nfs4");
        return field_is(f[2], fe[2], "mounted") && field_is(f[3], fe[3], "on") &&
               field_is(f[5], fe[5], "with") && field_is(f[6], fe[6], "fstype") &&
               escaped_equal(f[4], fe[4], mount_point);
}

/* The mount at mount_point: the first NFS one (nth < 0), or the nth one
 * there, whatever its type (0 when that is not NFS). */
static int find(const char *text, size_t len, const char *mount_point, long nth,
                struct ra_nfs_read_counters *ret) {
        const char *end = text + len;
        struct ra_nfs_read_counters c = {};
        bool in_mount = false, have_bytes = false, have_read = false;
        long at = 0;
        uint64_t skip;

        for (const char *line = text; line < end;) {
                const char *eol = memchr(line, '\n', (size_t) (end - line));
                if (!eol)
                        eol = end;
                const char *p = line, *s, *e = next_field(&p, eol, &s);
                line = eol + 1;
                if (!e)
                        continue;
                /* "no device mounted on ...": a mount without a source */
                bool no_device = false;
                if (field_is(s, e, "no")) {
                        const char *s2, *e2 = next_field(&p, eol, &s2);
                        no_device = e2 && field_is(s2, e2, "device");
                        if (no_device)
                                s = s2, e = e2;
                }
                if (field_is(s, e, "device")) {
                        if (in_mount)
                                break; /* the next mount: ours is over */
                        bool nfs;
                        if (!is_device_line_at(s, eol, mount_point, &nfs))
                                continue;
                        if (nth < 0)
                                in_mount = nfs && !no_device;
                        else if (at++ == nth) {
                                if (!nfs || no_device)
                                        return 0;
                                in_mount = true;
                        }
                        continue;
                }
                if (!in_mount)
                        continue;
                if (field_is(s, e, "bytes:")) {
                        uint64_t *const out[] = { &c.normal_read_bytes, &skip, &c.direct_read_bytes, &skip,
                                                  &c.server_read_bytes };
                        if (!parse_numbers(p, eol, out, sizeof(out) / sizeof(out[0])))
                                return -EBADMSG;
                        have_bytes = true;
                } else if (field_is(s, e, "READ:")) {
                        uint64_t *const out[] = {
                                &c.read_ops,        &c.read_transmissions,  &c.read_timeouts,
                                &c.read_bytes_sent, &c.read_bytes_received, &c.read_queue_ms,
                                &c.read_rtt_ms,     &c.read_execute_ms
                        };
                        if (!parse_numbers(p, eol, out, sizeof(out) / sizeof(out[0])))
                                return -EBADMSG;
                        have_read = true;
                }
        }
        if (!in_mount)
                return 0;
        if (!have_bytes || !have_read)
                return -EBADMSG;
        *ret = c;
        return 1;
}

int ra_mountstats_find(const char *text, size_t len, const char *mount_point,
                       struct ra_nfs_read_counters *ret) {
        return find(text, len, mount_point, -1, ret);
}

int ra_mountstats_find_nth(const char *text, size_t len, const char *mount_point, unsigned nth,
                           struct ra_nfs_read_counters *ret) {
        return find(text, len, mount_point, (long) nth, ret);
}

struct nth_ctx {
        const char *mount_point;
        unsigned major, minor, at;
        int found;
};

static int nth_cb(const struct ra_mount *m, void *userdata) {
        struct nth_ctx *c = userdata;
        if (strcmp(m->mount_point, c->mount_point) != 0)
                return 0;
        if (m->major == c->major && m->minor == c->minor)
                c->found = (int) c->at; /* the last counts: the one on top */
        c->at++;
        return 0;
}

int ra_mountinfo_nth_at(const char *text, size_t len, const char *mount_point, unsigned major,
                        unsigned minor) {
        struct nth_ctx c = { .mount_point = mount_point, .major = major, .minor = minor, .found = -ENOENT };
        int r = ra_mountinfo_foreach(text, len, nth_cb, &c);
        return r < 0 ? r : c.found;
}

int ra_mountstats_path(const char *mountinfo_path, char *buf, size_t size) {
        const char *slash = mountinfo_path ? strrchr(mountinfo_path, '/') : NULL;
        int n;

        if (slash && strcmp(slash, "/mountinfo") == 0)
                n = snprintf(buf, size, "%.*s/mountstats", (int) (slash - mountinfo_path), mountinfo_path);
        else
                n = snprintf(buf, size, "/proc/self/mountstats");
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static uint64_t delta(uint64_t now, uint64_t before) {
        return now >= before ? now - before : 0;
}

struct ra_nfs_read_counters ra_nfs_read_counters_delta(const struct ra_nfs_read_counters *now,
                                                       const struct ra_nfs_read_counters *before) {
        return (struct ra_nfs_read_counters){
                .normal_read_bytes = delta(now->normal_read_bytes, before->normal_read_bytes),
                .direct_read_bytes = delta(now->direct_read_bytes, before->direct_read_bytes),
                .server_read_bytes = delta(now->server_read_bytes, before->server_read_bytes),
                .read_ops = delta(now->read_ops, before->read_ops),
                .read_transmissions = delta(now->read_transmissions, before->read_transmissions),
                .read_timeouts = delta(now->read_timeouts, before->read_timeouts),
                .read_bytes_sent = delta(now->read_bytes_sent, before->read_bytes_sent),
                .read_bytes_received = delta(now->read_bytes_received, before->read_bytes_received),
                .read_queue_ms = delta(now->read_queue_ms, before->read_queue_ms),
                .read_rtt_ms = delta(now->read_rtt_ms, before->read_rtt_ms),
                .read_execute_ms = delta(now->read_execute_ms, before->read_execute_ms),
        };
}
