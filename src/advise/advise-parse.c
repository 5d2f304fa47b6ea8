/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "advise-parse.h"

/* ---- lines, fields, numbers ------------------------------------------------ */

/* A span of the text: [s, e). */
struct span {
        const char *s, *e;
};

/* The next line of [*p, end) without its '\n'; false at the end. */
static bool next_line(const char **p, const char *end, struct span *ret) {
        if (*p >= end)
                return false;
        const char *eol = memchr(*p, '\n', (size_t) (end - *p));
        ret->s = *p;
        ret->e = eol ? eol : end;
        *p = eol ? eol + 1 : end;
        return true;
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

/* The next field of the line, moved past; false at its end. */
static bool next_field(struct span *line, struct span *ret) {
        const char *s = line->s;
        while (s < line->e && is_blank(*s))
                s++;
        if (s >= line->e)
                return false;
        ret->s = s;
        while (s < line->e && !is_blank(*s))
                s++;
        ret->e = s;
        line->s = s;
        return true;
}

static bool span_is(struct span f, const char *word) {
        size_t n = strlen(word);
        return (size_t) (f.e - f.s) == n && memcmp(f.s, word, n) == 0;
}

/* f starts with prefix: the rest in *ret. */
static bool span_after(struct span f, const char *prefix, struct span *ret) {
        size_t n = strlen(prefix);
        if ((size_t) (f.e - f.s) < n || memcmp(f.s, prefix, n) != 0)
                return false;
        *ret = (struct span){ f.s + n, f.e };
        return true;
}

/* Decimal digits only, at least one, at most max. */
static bool span_number(struct span f, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;
        if (f.s >= f.e)
                return false;
        for (const char *s = f.s; s < f.e; s++) {
                if (*s < '0' || *s > '9' || v > (max - (uint64_t) (*s - '0')) / 10)
                        return false;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        *ret = v;
        return true;
}

static bool span_u64(struct span f, uint64_t *ret) {
        return span_number(f, UINT64_MAX, ret);
}

static bool span_uint(struct span f, unsigned *ret) {
        uint64_t v;
        if (!span_number(f, UINT_MAX, &v))
                return false;
        *ret = (unsigned) v;
        return true;
}

/* "MAJ:MIN" */
static bool span_majmin(struct span f, unsigned *major, unsigned *minor) {
        const char *colon = memchr(f.s, ':', (size_t) (f.e - f.s));
        return colon && span_uint((struct span){ f.s, colon }, major) &&
               span_uint((struct span){ colon + 1, f.e }, minor);
}

/* The next field of the line as a number. */
static bool next_u64(struct span *line, uint64_t *ret) {
        struct span f;
        return next_field(line, &f) && span_u64(f, ret);
}

/* ---- /proc ---------------------------------------------------------------- */

static bool diskstats_line(struct span line, struct ra_diskstats_line *ret) {
        struct span major, minor, name;
        struct ra_diskstats_line d = {};
        uint64_t skip;

        if (!next_field(&line, &major) || !span_uint(major, &d.major) || !next_field(&line, &minor) ||
            !span_uint(minor, &d.minor) || !next_field(&line, &name) ||
            (size_t) (name.e - name.s) >= sizeof(d.name))
                return false;
        memcpy(d.name, name.s, (size_t) (name.e - name.s));
        d.name[name.e - name.s] = 0;
        if (strlen(d.name) != (size_t) (name.e - name.s))
                return false; /* a NUL in the name: no device has one */
        /* reads, merged, sectors, ms; writes, merged, sectors, ms; in flight; io_ticks */
        uint64_t *const out[] = { &d.c.read_ios, &d.c.read_merges, &d.c.read_sectors, &d.c.read_ticks_ms,
                                  &skip,         &skip,            &skip,             &skip,
                                  &skip,         &d.c.io_ticks_ms };
        for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
                if (!next_u64(&line, out[i]))
                        return false;
        *ret = d;
        return true;
}

bool ra_diskstats_next(const char *text, size_t len, size_t *pos, struct ra_diskstats_line *ret) {
        const char *p = text + (*pos < len ? *pos : len), *end = text + len;
        struct span line;

        while (next_line(&p, end, &line)) {
                *pos = (size_t) (p - text);
                if (diskstats_line(line, ret))
                        return true;
        }
        *pos = len;
        return false;
}

unsigned ra_vmstat_parse(const char *text, size_t len, struct ra_host_counters *ret) {
        static const struct {
                const char *key;
                size_t offset;
        } keys[] = {
                { "pgmajfault", offsetof(struct ra_host_counters, majfaults) },
                { "workingset_refault_file", offsetof(struct ra_host_counters, refault_file_pages) },
                { "pgsteal_file", offsetof(struct ra_host_counters, steal_file_pages) },
                { "nr_foll_pin_acquired", offsetof(struct ra_host_counters, pinned_pages) },
        };
        const char *p = text, *end = text + len;
        bool found[sizeof(keys) / sizeof(keys[0])] = {};
        unsigned n = 0;
        struct span line, key;
        uint64_t v;

        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                *(uint64_t *) ((char *) ret + keys[i].offset) = 0;
        while (next_line(&p, end, &line)) {
                if (!next_field(&line, &key) || !next_u64(&line, &v))
                        continue;
                for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                        if (span_is(key, keys[i].key)) {
                                *(uint64_t *) ((char *) ret + keys[i].offset) = v;
                                n += !found[i];
                                found[i] = true;
                        }
        }
        return n;
}

int ra_psi_some_total_us(const char *text, size_t len, uint64_t *ret) {
        const char *p = text, *end = text + len;
        struct span line, f, value;

        while (next_line(&p, end, &line)) {
                if (!next_field(&line, &f) || !span_is(f, "some"))
                        continue;
                while (next_field(&line, &f))
                        if (span_after(f, "total=", &value) && span_u64(value, ret))
                                return 0;
        }
        return -ENODATA;
}

int ra_proc_cgroup_path(const char *text, size_t len, const char *controller, char *ret, size_t size) {
        const char *p = text, *end = text + len;
        struct span line;

        while (next_line(&p, end, &line)) {
                /* "ID:LIST:PATH"; the path may hold ':' itself */
                const char *c1 = memchr(line.s, ':', (size_t) (line.e - line.s));
                const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t) (line.e - c1 - 1)) : NULL;
                bool named = false;
                if (!c2)
                        continue;
                for (const char *s = c1 + 1; s <= c2 && !named;) {
                        const char *comma = memchr(s, ',', (size_t) (c2 - s));
                        const char *e = comma ? comma : c2;
                        named = span_is((struct span){ s, e }, controller);
                        s = e + 1;
                }
                if (!named)
                        continue;
                struct span path = { c2 + 1, line.e };
                if (memchr(path.s, 0, (size_t) (path.e - path.s)))
                        continue; /* no C string names it */
                if (span_is(path, "/"))
                        path.e = path.s;
                if ((size_t) (path.e - path.s) >= size)
                        return -ENAMETOOLONG;
                memcpy(ret, path.s, (size_t) (path.e - path.s));
                ret[path.e - path.s] = 0;
                return 0;
        }
        return -ENOENT;
}

int ra_proc_stat_parse(const char *text, size_t len, struct ra_proc_stat *ret) {
        /* "PID (COMM) STATE PPID ...": COMM may hold ")", spaces and
         * newlines, the numbers none: the fields start after the last ')' */
        const char *close = NULL;
        for (const char *s = text; s < text + len; s++)
                if (*s == ')')
                        close = s;
        if (!close)
                return -EINVAL;
        const char *eol = memchr(close, '\n', (size_t) (text + len - close));
        struct span line = { close + 1, eol ? eol : text + len }, f;
        uint64_t flags = 0, majfaults = 0;
        /* field 3 is the state; 9 the flags, 12 majflt */
        for (unsigned field = 3; field <= 12; field++) {
                if (!next_field(&line, &f))
                        return -EINVAL;
                if ((field == 9 && !span_u64(f, &flags)) || (field == 12 && !span_u64(f, &majfaults)))
                        return -EINVAL;
        }
        *ret = (struct ra_proc_stat){ .majfaults = majfaults, .kernel_thread = (flags & 0x00200000) != 0 };
        return 0;
}

/* ---- cgroup files ----------------------------------------------------------- */

int ra_cgroup_mem_parse(const char *text, size_t len, struct ra_cgroup_mem *ret) {
        const char *p = text, *end = text + len;
        struct ra_cgroup_mem m = {};
        struct span line, key;
        uint64_t v;

        while (next_line(&p, end, &line)) {
                if (!next_field(&line, &key) || !next_u64(&line, &v))
                        continue;
                if (span_is(key, "pgmajfault")) {
                        m.majfaults = v;
                        m.have_majfaults = true;
                } else if (span_is(key, "workingset_refault_file")) {
                        m.refault_file_pages = v;
                        m.have_refaults = true;
                } else if (span_is(key, "pgsteal")) {
                        m.steal_pages = v;
                        m.have_steal = true;
                }
        }
        if (!m.have_majfaults && !m.have_refaults && !m.have_steal)
                return -ENODATA;
        *ret = m;
        return 0;
}

/* The entry of MAJ:MIN in list, added when new (while there is room). */
static struct ra_cgroup_io *io_entry(struct ra_cgroup_io *list, size_t *n, size_t max, unsigned major,
                                     unsigned minor) {
        for (size_t i = 0; i < *n; i++)
                if (list[i].major == major && list[i].minor == minor)
                        return &list[i];
        if (*n >= max)
                return NULL;
        list[*n] = (struct ra_cgroup_io){ .major = major, .minor = minor };
        return &list[(*n)++];
}

size_t ra_cgroup_io_parse_v2(const char *text, size_t len, struct ra_cgroup_io *ret, size_t max) {
        const char *p = text, *end = text + len;
        struct span line, f, value;
        unsigned major, minor;
        size_t n = 0;
        uint64_t v;

        while (next_line(&p, end, &line)) {
                if (!next_field(&line, &f) || !span_majmin(f, &major, &minor))
                        continue;
                struct ra_cgroup_io *e = io_entry(ret, &n, max, major, minor);
                if (!e)
                        break;
                while (next_field(&line, &f)) {
                        if (span_after(f, "rbytes=", &value) && span_u64(value, &v))
                                e->read_bytes = v;
                        else if (span_after(f, "rios=", &value) && span_u64(value, &v))
                                e->read_ios = v;
                }
        }
        return n;
}

/* One of v1's files: each device's "Read" into the field at `offset`. */
static void parse_v1_reads(const char *text, size_t len, struct ra_cgroup_io *ret, size_t max, size_t *n,
                           size_t offset) {
        const char *p = text, *end = text + len;
        struct span line, dev, op;
        unsigned major, minor;
        uint64_t v;

        while (next_line(&p, end, &line)) {
                if (!next_field(&line, &dev) || !span_majmin(dev, &major, &minor) ||
                    !next_field(&line, &op) || !span_is(op, "Read") || !next_u64(&line, &v))
                        continue;
                struct ra_cgroup_io *e = io_entry(ret, n, max, major, minor);
                if (!e)
                        return;
                *(uint64_t *) ((char *) e + offset) = v;
        }
}

size_t ra_cgroup_io_parse_v1(const char *bytes_text, size_t bytes_len, const char *ios_text, size_t ios_len,
                             struct ra_cgroup_io *ret, size_t max) {
        size_t n = 0;
        if (bytes_text)
                parse_v1_reads(bytes_text, bytes_len, ret, max, &n,
                               offsetof(struct ra_cgroup_io, read_bytes));
        if (ios_text)
                parse_v1_reads(ios_text, ios_len, ret, max, &n, offsetof(struct ra_cgroup_io, read_ios));
        return n;
}

bool ra_cgroup_controllers_has(const char *text, size_t len, const char *controller) {
        const char *p = text, *end = text + len;
        struct span line, f;

        while (next_line(&p, end, &line))
                while (next_field(&line, &f))
                        if (span_is(f, controller))
                                return true;
        return false;
}

size_t ra_cgroup_procs_parse(const char *text, size_t len, unsigned *ret, size_t max) {
        const char *p = text, *end = text + len;
        struct span line, f;
        size_t lines = 0, n = 0;
        unsigned pid;

        while (lines < max && next_line(&p, end, &line)) {
                if (line.s == line.e)
                        continue;
                lines++;
                if (next_field(&line, &f) && span_uint(f, &pid) && pid > 0 && !next_field(&line, &f))
                        ret[n++] = pid;
        }
        return n;
}
