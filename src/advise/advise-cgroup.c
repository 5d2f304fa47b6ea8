/* SPDX-License-Identifier: MIT */
/*
 * advise's attribution per cgroup: once a second, every memory cgroup's own
 * major faults, refaults and (v2) reclaim; the events of a cgroup that has
 * some are split over the devices by that cgroup's reads from each
 * (advise-attrib.c decides; advise-parse.c reads the texts). cgroup v2: the
 * leaves' memory.stat and io.stat. v1: every memory cgroup's own counters,
 * and the reads of the blkio cgroups its processes are in (v1 hierarchies
 * are separate trees; systemd names both alike, a bare host keeps every
 * process in the root memory cgroup). When they are in several, each
 * process's major faults (/proc/PID/stat) go by its own blkio cgroup's reads.
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

/* v1: a blkio cgroup a memory cgroup's processes are in, its reads at the
 * last pass. */
struct blkio_group {
        char path[RA_PATH_MAX];
        struct ra_cgroup_io *io;
        size_t n_io;
        bool have_io;
        bool used; /* some process of the memory cgroup is in it, as last looked up */
};

/* v1: a process of a memory cgroup, its blkio group (an index of
 * blkio_state's) and its major faults at the last pass. */
struct process_state {
        unsigned pid, group;
        uint64_t majfaults;
        bool uncounted; /* a kernel thread, or its files were not there */
};

#define PROCS_MAX        512
#define BLKIO_GROUPS_MAX 16

/* v1: where a memory cgroup's processes read, looked up again when its
 * processes change and every BLKIO_REFRESH passes (a process may move). */
struct blkio_state {
        struct blkio_group group[BLKIO_GROUPS_MAX];
        size_t n_groups;
        struct process_state proc[PROCS_MAX];
        size_t n_procs;
        unsigned pass; /* of the last look-up; 0: none yet (passes count from 1) */
};

struct cgroup_state {
        char path[RA_PATH_MAX]; /* below the memory hierarchy's root, "" for it */
        struct ra_cgroup_mem mem;
        struct ra_cgroup_io io[RA_CGROUP_IO_MAX]; /* v2 */
        size_t n_io;
        bool have_io, seen;
        struct blkio_state *blkio; /* v1 */
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

static void blkio_state_free(struct blkio_state *b) {
        if (b)
                for (size_t g = 0; g < b->n_groups; g++)
                        free(b->group[g].io);
        free(b);
}

void ra_cgroup_sampler_free(struct ra_cgroup_sampler *s) {
        if (s) {
                for (size_t i = 0; i < s->n; i++)
                        blkio_state_free(s->cg[i].blkio);
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

void ra_cgroup_sampler_window_restart(struct ra_cgroup_sampler *s) {
        s->cgroups_with_events = s->cgroups_explaining = 0;
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

/* Looking a memory cgroup's processes up costs two reads per process:
 * again when its list changes, else once in so many passes (seconds). */
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

static int stat_of_pid(unsigned pid, struct ra_proc_stat *ret) {
        char file[64], buf[1024];

        snprintf(file, sizeof(file), "/proc/%u/stat", pid);
        ssize_t len = read_small(file, buf, sizeof(buf));
        if (len == -EFBIG)
                len = (ssize_t) strlen(buf); /* majflt is in the first 1 KiB */
        if (len < 0)
                return -ESRCH;
        return ra_proc_stat_parse(buf, (size_t) len, ret);
}

/* The index of blkio group `path`, added when new; -1 when full. */
static int group_index(struct blkio_state *b, const char *path) {
        for (size_t g = 0; g < b->n_groups; g++)
                if (strcmp(b->group[g].path, path) == 0)
                        return (int) g;
        if (b->n_groups >= BLKIO_GROUPS_MAX)
                return -1;
        struct blkio_group *g = &b->group[b->n_groups];
        *g = (struct blkio_group){};
        snprintf(g->path, sizeof(g->path), "%s", path);
        return (int) b->n_groups++;
}

static const struct process_state *process_known(const struct blkio_state *b, unsigned pid) {
        for (size_t i = 0; i < b->n_procs; i++)
                if (b->proc[i].pid == pid)
                        return &b->proc[i];
        return NULL;
}

/* v1: the memory cgroup's processes (the first PROCS_MAX), each with its
 * blkio group and its major faults now; a process known before keeps its
 * last count, unless it is looked up again. A cgroup without processes
 * reads through the blkio cgroup of its own path, if there is one. */
static void blkio_sync(const struct ra_cgroup_sampler *s, const char *path, struct blkio_state *b) {
        char file[RA_PATH_MAX + 64], buf[8192];
        unsigned pids[PROCS_MAX];
        struct stat st;
        size_t n_pids = 0;

        snprintf(file, sizeof(file), "%s%s/cgroup.procs", s->mem_root, path);
        ssize_t len = read_small(file, buf, sizeof(buf));
        if (len == -EFBIG)
                len = (ssize_t) strlen(buf); /* the first processes are enough */
        if (len >= 0)
                n_pids = ra_cgroup_procs_parse(buf, (size_t) len, pids, PROCS_MAX);
        /* the first look-up is never skipped: a cgroup whose processes this
         * PID namespace does not see (a pod's) lists none from the start,
         * and reads through its own path from then on */
        bool changed = b->pass == 0 || n_pids != b->n_procs, refresh = s->pass - b->pass >= BLKIO_REFRESH;
        for (size_t i = 0; i < n_pids && !changed; i++)
                changed = pids[i] != b->proc[i].pid;
        if (!changed && !refresh)
                return;

        struct blkio_state *was = malloc(sizeof(*was));
        if (!was)
                return;
        memcpy(was, b, sizeof(*b));
        /* the groups keep their reads (one a process returns to needs no
         * new start); those nobody is in count for nothing */
        b->n_procs = 0;
        b->pass = s->pass;
        if (refresh)
                for (size_t g = 0; g < b->n_groups; g++)
                        b->group[g].used = false;
        for (size_t i = 0; i < n_pids; i++) {
                const struct process_state *old = process_known(was, pids[i]);
                struct process_state p = { .pid = pids[i] };
                struct ra_proc_stat ps;
                char blk[RA_PATH_MAX];
                if (old)
                        p = *old;
                else if (stat_of_pid(pids[i], &ps) == 0) {
                        p.majfaults = ps.majfaults;
                        p.uncounted = ps.kernel_thread; /* it never faults */
                } else
                        p.uncounted = true;
                if (!p.uncounted && (!old || refresh)) {
                        int g = blkio_of_pid(pids[i], blk, sizeof(blk)) < 0 ? -1 : group_index(b, blk);
                        if (g >= 0)
                                p.group = (unsigned) g;
                        else
                                p.uncounted = true;
                }
                if (!p.uncounted)
                        b->group[p.group].used = true;
                b->proc[b->n_procs++] = p;
        }
        free(was);
        snprintf(file, sizeof(file), "%s%s", s->io_root, path);
        if (b->n_procs == 0 && stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
                int g = group_index(b, path);
                if (g >= 0)
                        b->group[g].used = true;
        }
}

/* v1: how many groups the memory cgroup's processes are in. */
static size_t groups_used(const struct blkio_state *b) {
        size_t n = 0;
        for (size_t g = 0; g < b->n_groups; g++)
                n += b->group[g].used;
        return n;
}

/* v1: a blkio group's reads per device now. */
static size_t group_reads(const struct ra_cgroup_sampler *s, const struct blkio_group *g, struct ra_cgroup_io *io) {
        char file[RA_PATH_MAX + 64], bytes[STAT_BYTES_MAX], ios[STAT_BYTES_MAX];

        snprintf(file, sizeof(file), "%s%s/blkio.throttle.io_service_bytes", s->io_root, g->path);
        ssize_t bytes_len = read_small(file, bytes, sizeof(bytes));
        if (bytes_len < 0)
                return 0;
        snprintf(file, sizeof(file), "%s%s/blkio.throttle.io_serviced", s->io_root, g->path);
        ssize_t ios_len = read_small(file, ios, sizeof(ios));
        return ra_cgroup_io_parse_v1(bytes, (size_t) bytes_len, ios_len >= 0 ? ios : NULL,
                                     ios_len >= 0 ? (size_t) ios_len : 0, io, RA_CGROUP_IO_MAX);
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

/* Weights of the reads `io` since `before` (all of them without it): w[i]
 * for dev[i], w[n] the reads from devices nobody watches (their share is
 * not ours). Returns all reads. */
static double weights_of(const struct ra_cgroup_io *io, size_t n_io, const struct ra_cgroup_io *before,
                         size_t n_before, bool have_before, const struct ra_cgroup_device *dev, size_t n,
                         double *w) {
        double total = 0, watched = 0;
        for (size_t k = 0; k < n_io; k++)
                total += have_before ? rest_of(io[k].read_bytes,
                                               io_reads_of(before, n_before, io[k].major, io[k].minor))
                                     : (double) io[k].read_bytes;
        for (size_t i = 0; i < n; i++) {
                uint64_t now = io_reads_of(io, n_io, dev[i].major, dev[i].minor);
                w[i] = have_before ? rest_of(now, io_reads_of(before, n_before, dev[i].major, dev[i].minor))
                                   : (double) now;
                watched += w[i];
        }
        w[n] = total > watched ? total - watched : 0;
        return total;
}

/* v1: each blkio group's weights (n + 1 each, group g's at gw + g * (n + 1))
 * since the last pass, and their sum in w; the groups' reads are kept for
 * the next (a group's first pass only keeps them). Returns all reads. */
static double blkio_weights(const struct ra_cgroup_sampler *s, struct blkio_state *b,
                            const struct ra_cgroup_device *dev, size_t n, double *gw, double *w) {
        double total = 0;
        for (size_t g = 0; g < b->n_groups; g++) {
                struct blkio_group *grp = &b->group[g];
                struct ra_cgroup_io io[RA_CGROUP_IO_MAX];
                size_t n_io = group_reads(s, grp, io);
                double *mine = gw + g * (n + 1);
                if (grp->have_io && grp->used) {
                        total += weights_of(io, n_io, grp->io, grp->n_io, true, dev, n, mine);
                        for (size_t i = 0; i <= n; i++)
                                w[i] += mine[i];
                }
                struct ra_cgroup_io *keep = realloc(grp->io, (n_io ? n_io : 1) * sizeof(*keep));
                if (!keep)
                        continue;
                memcpy(keep, io, n_io * sizeof(*keep));
                grp->io = keep;
                grp->n_io = n_io;
                grp->have_io = true;
        }
        return total;
}

/* v1: each process's major faults since the last pass, split by its own
 * blkio group's weights (gw NULL: only counted, for the next pass). Returns
 * the faults explained so. */
static double attribute_processes(struct blkio_state *b, const double *gw, size_t n, double seconds,
                                  struct ra_events *got, struct ra_events *explained) {
        double by_processes = 0;
        for (size_t i = 0; i < b->n_procs; i++) {
                struct process_state *p = &b->proc[i];
                struct ra_proc_stat ps;
                if (p->uncounted || stat_of_pid(p->pid, &ps) < 0)
                        continue;
                double faults = rest_of(ps.majfaults, p->majfaults);
                p->majfaults = ps.majfaults;
                if (gw && faults > 0 && ra_cgroup_events_plausible(&(struct ra_events){ .majfaults = faults }, seconds) &&
                    ra_attribute_process(faults, gw + p->group * (n + 1), n + 1, got, explained))
                        by_processes += faults;
        }
        return by_processes;
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
                .ev = { .majfaults = rest_of(mem.majfaults, c->mem.majfaults),
                        .refault_pages = rest_of(mem.refault_file_pages, c->mem.refault_file_pages),
                        .steal_pages = rest_of(mem.steal_pages, c->mem.steal_pages) },
                .have_steal = mem.have_steal,
        };
        bool was_seen = c->seen;
        c->mem = mem;
        c->seen = true;
        if (!s->v2 && !c->blkio && !(c->blkio = calloc(1, sizeof(*c->blkio))))
                return;
        double *w = calloc(n + 1, sizeof(double));
        struct ra_events *got = calloc(n + 1, sizeof(*got));
        double *gw = NULL, total = 0, by_processes = 0;
        if (!w || !got)
                goto out;
        if (!s->v2) {
                /* v1: where its processes read, and their faults, from the
                 * first pass on, so that the next explains its events */
                blkio_sync(s, path, c->blkio);
                if (!(gw = calloc(c->blkio->n_groups * (n + 1) + 1, sizeof(double))))
                        goto out;
        }
        if (first || !was_seen) {
                if (gw)
                        (void) blkio_weights(s, c->blkio, dev, n, gw, w);
                goto out;
        }
        if ((d.ev.majfaults == 0 && d.ev.refault_pages == 0 && d.ev.steal_pages == 0) ||
            !ra_cgroup_events_plausible(&d.ev, s->seconds))
                goto out;
        s->cgroups_with_events++;
        /* Its reads: since its last sample, or all it read before the first
         * (the device mix of what it reads). */
        if (s->v2) {
                struct ra_cgroup_io io[RA_CGROUP_IO_MAX];
                snprintf(file, sizeof(file), "%s%s/io.stat", s->io_root, path);
                len = read_small(file, text, sizeof(text));
                if (len < 0)
                        goto out;
                size_t n_io = ra_cgroup_io_parse_v2(text, (size_t) len, io, RA_CGROUP_IO_MAX);
                total = weights_of(io, n_io, c->io, c->n_io, c->have_io, dev, n, w);
                memcpy(c->io, io, n_io * sizeof(io[0]));
                c->n_io = n_io;
        } else {
                total = blkio_weights(s, c->blkio, dev, n, gw, w);
        }
        bool had_io = c->have_io || !s->v2;
        c->have_io = true;
        /* before its first sample, all it read so far: any amount */
        if (had_io && !ra_cgroup_reads_plausible(total, s->seconds))
                goto out;
        /* Readers in several blkio groups: each process's faults by its own
         * group's reads, the rest (a process gone, or not yet looked up) as
         * the cgroup's. */
        if (!s->v2) {
                bool several = groups_used(c->blkio) > 1;
                by_processes = attribute_processes(c->blkio, several ? gw : NULL, n, s->seconds, got, explained);
                d.ev.majfaults = d.ev.majfaults > by_processes ? d.ev.majfaults - by_processes : 0;
        }
        if (ra_attribute_cgroup(&d, w, n + 1, got, explained) || by_processes > 0) {
                s->cgroups_explaining++;
                for (size_t i = 0; i < n; i++) {
                        per_dev[i].majfaults += got[i].majfaults;
                        per_dev[i].process_majfaults += got[i].process_majfaults;
                        per_dev[i].refault_pages += got[i].refault_pages;
                        per_dev[i].steal_pages += got[i].steal_pages;
                }
        }
out:
        free(gw);
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
