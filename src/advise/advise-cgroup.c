/* SPDX-License-Identifier: MIT */
/*
 * advise's attribution per cgroup: once a second, every memory cgroup's own
 * major faults, refaults and (v2) reclaim; the events of a cgroup that has
 * some are split over the devices by that cgroup's reads from each
 * (advise-attrib.c decides; advise-parse.c reads the texts). cgroup v2: the leaves' memory.stat and
 * io.stat. v1: every memory cgroup's own counters, and the reads of the
 * blkio cgroup of the same path, else of the blkio cgroup its first process
 * is in (v1 hierarchies are separate trees).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise-cgroup.h"
#include "advise-parse.h"
#include "facts.h"

#define CGROUP_ROOT    "/sys/fs/cgroup"
#define CGROUPS_MAX    4096
#define DEPTH_MAX      16
#define STAT_BYTES_MAX 16384

struct cgroup_state {
        char path[RA_PATH_MAX]; /* below the memory hierarchy's root, "" for it */
        struct ra_cgroup_mem mem;
        struct ra_cgroup_io io[RA_CGROUP_IO_MAX];
        size_t n_io;
        bool have_io, seen;
        /* v1: its blkio cgroups, looked up again every BLKIO_REFRESH passes */
        char (*blkio)[RA_PATH_MAX];
        size_t n_blkio;
        unsigned blkio_pass;
};

struct ra_cgroup_sampler {
        bool v2;
        char mem_root[64], io_root[64];
        struct cgroup_state *cg;
        size_t n;
        unsigned pass;
        double seconds; /* since the last pass */
        unsigned cgroups_with_events, cgroups_explaining; /* over the window */
};

/* A small file's text, NUL-terminated; its length, or -EFBIG when it does
 * not fit (buf then holds what did, for a caller that needs only the
 * start). */
static ssize_t read_small(const char *path, char *buf, size_t size) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        size_t len = 0;
        if (fd < 0)
                return -errno;
        for (;;) {
                ssize_t k = read(fd, buf + len, size - 1 - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        int r = k < 0 ? -errno : 0;
                        close(fd);
                        if (r < 0)
                                return r;
                        break;
                }
                len += (size_t) k;
                if (len >= size - 1) {
                        close(fd);
                        buf[len] = 0;
                        return -EFBIG;
                }
        }
        buf[len] = 0;
        return (ssize_t) len;
}

static bool has_controller(const char *list_file, const char *name) {
        char buf[512];
        ssize_t len = read_small(list_file, buf, sizeof(buf));
        return len >= 0 && ra_cgroup_controllers_has(buf, (size_t) len, name);
}

int ra_cgroup_sampler_new(struct ra_cgroup_sampler **ret) {
        struct ra_cgroup_sampler *s = calloc(1, sizeof(*s));
        struct stat st;

        if (!s)
                return -ENOMEM;
        if (has_controller(CGROUP_ROOT "/cgroup.controllers", "memory") &&
            has_controller(CGROUP_ROOT "/cgroup.controllers", "io")) {
                s->v2 = true;
                snprintf(s->mem_root, sizeof(s->mem_root), CGROUP_ROOT);
                snprintf(s->io_root, sizeof(s->io_root), CGROUP_ROOT);
        } else if (stat(CGROUP_ROOT "/memory/memory.stat", &st) == 0 &&
                   stat(CGROUP_ROOT "/blkio/blkio.throttle.io_service_bytes", &st) == 0) {
                snprintf(s->mem_root, sizeof(s->mem_root), CGROUP_ROOT "/memory");
                snprintf(s->io_root, sizeof(s->io_root), CGROUP_ROOT "/blkio");
        } else {
                free(s);
                return -EOPNOTSUPP;
        }
        s->cg = calloc(CGROUPS_MAX, sizeof(*s->cg));
        if (!s->cg) {
                free(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

void ra_cgroup_sampler_free(struct ra_cgroup_sampler *s) {
        if (s) {
                for (size_t i = 0; i < s->n; i++)
                        free(s->cg[i].blkio);
                free(s->cg);
                free(s);
        }
}

bool ra_cgroup_sampler_v2(const struct ra_cgroup_sampler *s) {
        return s->v2;
}

void ra_cgroup_sampler_counts(const struct ra_cgroup_sampler *s, unsigned *with_events, unsigned *explaining) {
        *with_events = s->cgroups_with_events;
        *explaining = s->cgroups_explaining;
}

static struct cgroup_state *state_of(struct ra_cgroup_sampler *s, const char *path, size_t hint) {
        if (hint < s->n && strcmp(s->cg[hint].path, path) == 0)
                return &s->cg[hint];
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->cg[i].path, path) == 0)
                        return &s->cg[i];
        if (s->n >= CGROUPS_MAX)
                return NULL;
        struct cgroup_state *c = &s->cg[s->n++];
        *c = (struct cgroup_state){};
        snprintf(c->path, sizeof(c->path), "%s", path);
        return c;
}

#define PIDS_MAX         64
#define BLKIO_GROUPS_MAX 16
/* Looking a memory cgroup's processes up costs a read per process: once in
 * so many passes (seconds) is enough for the lab's and a service's. */
#define BLKIO_REFRESH 10

/* v1: the blkio cgroup of process `pid` ("" for the root). */
static int blkio_of_pid(unsigned pid, char *ret, size_t size) {
        char file[64], buf[4096];

        snprintf(file, sizeof(file), "/proc/%u/cgroup", pid);
        ssize_t len = read_small(file, buf, sizeof(buf));
        if (len < 0)
                return -ESRCH;
        return ra_proc_cgroup_path(buf, (size_t) len, "blkio", ret, size);
}

/* v1: the blkio cgroups of memory cgroup `path`: the one of the same path
 * (systemd and the lab name them alike), else those its processes are in
 * (the first PIDS_MAX of them). */
static size_t blkio_groups(const struct ra_cgroup_sampler *s, const char *path, char (*ret)[RA_PATH_MAX]) {
        char file[RA_PATH_MAX + 64], buf[4096];
        struct stat st;
        size_t n = 0;

        snprintf(file, sizeof(file), "%s%s", s->io_root, path);
        if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
                snprintf(ret[0], RA_PATH_MAX, "%s", path);
                return 1;
        }
        snprintf(file, sizeof(file), "%s%s/cgroup.procs", s->mem_root, path);
        ssize_t len = read_small(file, buf, sizeof(buf));
        if (len == -EFBIG)
                len = (ssize_t) strlen(buf); /* the first processes are enough */
        if (len < 0)
                return 0;
        unsigned pids[PIDS_MAX];
        size_t n_pids = ra_cgroup_procs_parse(buf, (size_t) len, pids, PIDS_MAX);
        for (size_t p = 0; p < n_pids && n < BLKIO_GROUPS_MAX; p++) {
                char blk[RA_PATH_MAX];
                if (blkio_of_pid(pids[p], blk, sizeof(blk)) < 0)
                        continue;
                bool known = false;
                for (size_t i = 0; i < n && !known; i++)
                        known = strcmp(ret[i], blk) == 0;
                if (!known)
                        snprintf(ret[n++], RA_PATH_MAX, "%s", blk);
        }
        return n;
}

/* The cgroup's reads per device now. */
static int read_io(const struct ra_cgroup_sampler *s, struct cgroup_state *c, struct ra_cgroup_io *io,
                   size_t *n) {
        const char *path = c->path;
        char file[RA_PATH_MAX + 64], bytes[STAT_BYTES_MAX], ios[STAT_BYTES_MAX];

        if (s->v2) {
                snprintf(file, sizeof(file), "%s%s/io.stat", s->io_root, path);
                ssize_t len = read_small(file, bytes, sizeof(bytes));
                if (len < 0)
                        return -ENOENT;
                *n = ra_cgroup_io_parse_v2(bytes, (size_t) len, io, RA_CGROUP_IO_MAX);
                return 0;
        }
        if (!c->blkio) {
                c->blkio = calloc(BLKIO_GROUPS_MAX, RA_PATH_MAX);
                if (!c->blkio)
                        return -ENOMEM;
                c->blkio_pass = s->pass - BLKIO_REFRESH;
        }
        if (s->pass - c->blkio_pass >= BLKIO_REFRESH) {
                c->n_blkio = blkio_groups(s, path, c->blkio);
                c->blkio_pass = s->pass;
        }
        char(*groups)[RA_PATH_MAX] = c->blkio;
        size_t n_groups = c->n_blkio;
        *n = 0;
        for (size_t g = 0; g < n_groups; g++) {
                struct ra_cgroup_io one[RA_CGROUP_IO_MAX];
                snprintf(file, sizeof(file), "%s%s/blkio.throttle.io_service_bytes", s->io_root, groups[g]);
                ssize_t bytes_len = read_small(file, bytes, sizeof(bytes));
                if (bytes_len < 0)
                        continue;
                snprintf(file, sizeof(file), "%s%s/blkio.throttle.io_serviced", s->io_root, groups[g]);
                ssize_t ios_len = read_small(file, ios, sizeof(ios));
                size_t k = ra_cgroup_io_parse_v1(bytes, (size_t) bytes_len, ios_len >= 0 ? ios : NULL,
                                                 ios_len >= 0 ? (size_t) ios_len : 0, one, RA_CGROUP_IO_MAX);
                /* the groups' reads add up, device by device */
                for (size_t i = 0; i < k; i++) {
                        size_t j;
                        for (j = 0; j < *n; j++)
                                if (io[j].major == one[i].major && io[j].minor == one[i].minor)
                                        break;
                        if (j == *n) {
                                if (*n >= RA_CGROUP_IO_MAX)
                                        continue;
                                io[(*n)++] = (struct ra_cgroup_io){ one[i].major, one[i].minor, 0, 0 };
                        }
                        io[j].read_bytes += one[i].read_bytes;
                        io[j].read_ios += one[i].read_ios;
                }
        }
        return n_groups > 0 ? 0 : -ENOENT;
}

static uint64_t io_reads_of(const struct ra_cgroup_io *io, size_t n, unsigned major, unsigned minor) {
        for (size_t i = 0; i < n; i++)
                if (io[i].major == major && io[i].minor == minor)
                        return io[i].read_bytes;
        return 0;
}

static double rest_of(uint64_t now, uint64_t before) {
        return now > before ? (double) (now - before) : 0;
}

/* One cgroup: its events since the last pass, split by its reads. */
static void sample_cgroup(struct ra_cgroup_sampler *s, const char *path, size_t hint,
                          const struct ra_cgroup_device *dev, size_t n, bool first, struct ra_events *per_dev,
                          struct ra_events *explained) {
        char file[RA_PATH_MAX + 64], text[STAT_BYTES_MAX];
        struct ra_cgroup_mem mem;

        snprintf(file, sizeof(file), "%s%s/memory.stat", s->mem_root, path);
        ssize_t len = read_small(file, text, sizeof(text));
        if (len < 0 || ra_cgroup_mem_parse(text, (size_t) len, &mem) < 0)
                return;
        struct cgroup_state *c = state_of(s, path, hint);
        if (!c)
                return;
        struct ra_cgroup_delta d = {
                .ev = { rest_of(mem.majfaults, c->mem.majfaults),
                        rest_of(mem.refault_file_pages, c->mem.refault_file_pages),
                        rest_of(mem.steal_pages, c->mem.steal_pages) },
                .have_steal = mem.have_steal,
        };
        bool was_seen = c->seen;
        c->mem = mem;
        c->seen = true;
        if (first || !was_seen || (d.ev.majfaults == 0 && d.ev.refault_pages == 0 && d.ev.steal_pages == 0) ||
            !ra_cgroup_events_plausible(&d.ev, s->seconds))
                return;
        s->cgroups_with_events++;
        /* Its reads: since its last sample, or all it read before the first
         * (the device mix of what it reads). The last weight is the reads
         * from devices nobody watches: their share is not ours. */
        struct ra_cgroup_io io[RA_CGROUP_IO_MAX];
        size_t n_io = 0;
        if (read_io(s, c, io, &n_io) < 0)
                return;
        double *w = calloc(n + 1, sizeof(double));
        struct ra_events *got = calloc(n + 1, sizeof(*got));
        if (!w || !got) {
                free(w);
                free(got);
                return;
        }
        double total = 0, watched = 0;
        for (size_t k = 0; k < n_io; k++)
                total += c->have_io ? rest_of(io[k].read_bytes,
                                              io_reads_of(c->io, c->n_io, io[k].major, io[k].minor))
                                    : (double) io[k].read_bytes;
        for (size_t i = 0; i < n; i++) {
                uint64_t now = io_reads_of(io, n_io, dev[i].major, dev[i].minor);
                w[i] = c->have_io ? rest_of(now, io_reads_of(c->io, c->n_io, dev[i].major, dev[i].minor))
                                  : (double) now;
                watched += w[i];
        }
        w[n] = total > watched ? total - watched : 0;
        /* before its first sample, all it read so far: any amount */
        if ((!c->have_io || ra_cgroup_reads_plausible(total, s->seconds)) &&
            ra_attribute_cgroup(&d, w, n + 1, got, explained)) {
                s->cgroups_explaining++;
                for (size_t i = 0; i < n; i++) {
                        per_dev[i].majfaults += got[i].majfaults;
                        per_dev[i].refault_pages += got[i].refault_pages;
                        per_dev[i].steal_pages += got[i].steal_pages;
                }
        }
        memcpy(c->io, io, n_io * sizeof(io[0]));
        c->n_io = n_io;
        c->have_io = true;
        free(w);
        free(got);
}

/* Walks the memory hierarchy below `path`; v2: leaves only (their counters
 * include nobody else's). */
static void walk(struct ra_cgroup_sampler *s, char *path, size_t len, unsigned depth, size_t *index,
                 const struct ra_cgroup_device *dev, size_t n, bool first, struct ra_events *per_dev,
                 struct ra_events *explained) {
        char dir[RA_PATH_MAX + 64];
        bool children = false;

        snprintf(dir, sizeof(dir), "%s%s", s->mem_root, path);
        DIR *d = opendir(dir);
        if (!d)
                return;
        for (struct dirent *e; (e = readdir(d));) {
                if (e->d_type != DT_DIR || e->d_name[0] == '.')
                        continue;
                children = true;
                size_t l = strlen(e->d_name);
                if (depth >= DEPTH_MAX || len + 1 + l >= RA_PATH_MAX || *index >= CGROUPS_MAX)
                        continue;
                path[len] = '/';
                memcpy(path + len + 1, e->d_name, l + 1);
                walk(s, path, len + 1 + l, depth + 1, index, dev, n, first, per_dev, explained);
                path[len] = 0;
        }
        closedir(d);
        /* v2's root has no memory.stat; its inner cgroups hold no processes */
        if (s->v2 && (children || len == 0))
                return;
        sample_cgroup(s, path, (*index)++, dev, n, first, per_dev, explained);
}

void ra_cgroup_sampler_pass(struct ra_cgroup_sampler *s, const struct ra_cgroup_device *dev, size_t n,
                            bool first, double seconds, struct ra_events *per_dev,
                            struct ra_events *explained) {
        char path[RA_PATH_MAX] = "";
        size_t index = 0;

        s->pass++;
        s->seconds = seconds;
        memset(per_dev, 0, n * sizeof(*per_dev));
        *explained = (struct ra_events){};
        walk(s, path, 0, 0, &index, dev, n, first, per_dev, explained);
}
