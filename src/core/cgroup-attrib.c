/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-attrib.h"

/* The next line of text (NUL-terminated) into buf, cut to its size; NULL at the end. */
static const char *next_line(const char *p, char *buf, size_t size) {
        if (!p || !*p)
                return NULL;
        size_t len = strcspn(p, "\n");
        size_t take = len < size - 1 ? len : size - 1;
        memcpy(buf, p, take);
        buf[take] = 0;
        return p[len] ? p + len + 1 : p + len;
}

int ra_cgroup_mem_parse(const char *text, struct ra_cgroup_mem *ret) {
        struct ra_cgroup_mem m = {};
        char line[128], key[64];
        uint64_t v;

        for (const char *p = text; (p = next_line(p, line, sizeof(line)));) {
                if (sscanf(line, "%63s %" SCNu64, key, &v) != 2)
                        continue;
                if (strcmp(key, "pgmajfault") == 0) {
                        m.majfaults = v;
                        m.have_majfaults = true;
                } else if (strcmp(key, "workingset_refault_file") == 0) {
                        m.refault_file_pages = v;
                        m.have_refaults = true;
                } else if (strcmp(key, "pgsteal") == 0) {
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

size_t ra_cgroup_io_parse_v2(const char *text, struct ra_cgroup_io *ret, size_t max) {
        char line[512];
        size_t n = 0;

        for (const char *p = text; (p = next_line(p, line, sizeof(line)));) {
                unsigned major, minor;
                int used;
                if (sscanf(line, "%u:%u%n", &major, &minor, &used) != 2)
                        continue;
                struct ra_cgroup_io *e = io_entry(ret, &n, max, major, minor);
                if (!e)
                        break;
                for (char *save = NULL, *t = strtok_r(line + used, " ", &save); t;
                     t = strtok_r(NULL, " ", &save)) {
                        uint64_t v;
                        if (sscanf(t, "rbytes=%" SCNu64, &v) == 1)
                                e->read_bytes = v;
                        else if (sscanf(t, "rios=%" SCNu64, &v) == 1)
                                e->read_ios = v;
                }
        }
        return n;
}

static void parse_v1_reads(const char *text, struct ra_cgroup_io *ret, size_t max, size_t *n, bool ios) {
        char line[128], op[16];
        unsigned major, minor;
        uint64_t v;

        for (const char *p = text; p && (p = next_line(p, line, sizeof(line)));) {
                if (sscanf(line, "%u:%u %15s %" SCNu64, &major, &minor, op, &v) != 4 ||
                    strcmp(op, "Read") != 0)
                        continue;
                struct ra_cgroup_io *e = io_entry(ret, n, max, major, minor);
                if (!e)
                        return;
                if (ios)
                        e->read_ios = v;
                else
                        e->read_bytes = v;
        }
}

size_t ra_cgroup_io_parse_v1(const char *bytes_text, const char *ios_text, struct ra_cgroup_io *ret,
                             size_t max) {
        size_t n = 0;
        parse_v1_reads(bytes_text, ret, max, &n, false);
        parse_v1_reads(ios_text, ret, max, &n, true);
        return n;
}

bool ra_attribute_cgroup(const struct ra_cgroup_delta *d, const double *weights, size_t n,
                         struct ra_events *per_device, struct ra_events *explained) {
        double sum = 0;
        for (size_t i = 0; i < n; i++)
                sum += weights[i] > 0 ? weights[i] : 0;
        if (sum <= 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (weights[i] <= 0)
                        continue;
                double share = weights[i] / sum;
                per_device[i].majfaults += share * d->ev.majfaults;
                per_device[i].refault_pages += share * d->ev.refault_pages;
                if (d->have_steal)
                        per_device[i].steal_pages += share * d->ev.steal_pages;
        }
        explained->majfaults += d->ev.majfaults;
        explained->refault_pages += d->ev.refault_pages;
        if (d->have_steal)
                explained->steal_pages += d->ev.steal_pages;
        return true;
}

static double rest(double host, double explained) {
        return host > explained ? host - explained : 0;
}

struct ra_events ra_events_unexplained(const struct ra_events *host, const struct ra_events *explained) {
        return (struct ra_events){
                .majfaults = rest(host->majfaults, explained->majfaults),
                .refault_pages = rest(host->refault_pages, explained->refault_pages),
                .steal_pages = rest(host->steal_pages, explained->steal_pages),
        };
}
