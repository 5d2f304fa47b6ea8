/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "advise-cgroup.h"
#include "advise-parse.h"
#include "advise-sample.h"
#include "fileio.h"
#include "mountinfo.h"

/* What no host's files come near: /proc/diskstats has a line of about 150
 * bytes per block device, vmstat a few KiB, a PSI file two lines
 * (mountstats: RA_MOUNTSTATS_MAX_BYTES). */
#define DISKSTATS_MAX_BYTES ((size_t) 64 << 20)
#define VMSTAT_MAX_BYTES    ((size_t) 1 << 20)
#define PSI_MAX_BYTES       ((size_t) 64 << 10)
/* Whole disks nobody watches whose reads are followed. */
#define DISKS_MAX 4096

uint64_t ra_evidence_read_bytes(const struct ra_evidence *e) {
        return e->source == RA_EVIDENCE_NFS ? e->nfs.read.server_read_bytes : e->disk.disk.read_sectors * 512;
}

uint64_t ra_evidence_read_ios(const struct ra_evidence *e) {
        return e->source == RA_EVIDENCE_NFS ? e->nfs.read.read_ops : e->disk.disk.read_ios;
}

void ra_advise_evidence(const struct ra_evidence *e, const struct ra_advise_limits *l, struct ra_advice *ret) {
        if (e->source == RA_EVIDENCE_NFS)
                ra_advise_nfs(&e->nfs, l, ret);
        else
                ra_advise_disk(&e->disk, l, ret);
}

bool ra_advise_is_nfs(const struct ra_facts *f) {
        return f->kind == RA_KIND_MOUNT && f->class == RA_CLASS_NFS && f->mount_point;
}

struct ra_advise_target ra_advise_target_of(const struct ra_facts *f) {
        bool nfs = ra_advise_is_nfs(f);
        return (struct ra_advise_target){
                .source = nfs ? RA_EVIDENCE_NFS : RA_EVIDENCE_DISK,
                .major = f->major,
                .minor = f->minor,
                .mount_point = nfs ? f->mount_point : NULL,
                .rsize_kb = nfs ? f->rsize_bytes / 1024 : 0,
                .page_kb = f->page_kb,
        };
}

/* Sectors read so far by the whole disks nobody watches: their reads share
 * the host's events too. */
struct others {
        struct {
                unsigned major, minor;
                uint64_t read_sectors;
        } disk[DISKS_MAX];
        size_t n;
};

struct watched {
        struct ra_advise_target t;
        char *mount_point; /* t.mount_point's copy */
        /* a disk: its counters in the last sample, and whether it was in it */
        struct ra_disk_counters last;
        bool seen;
        /* an NFS mount: the same of its READ counters */
        struct ra_nfs_read_counters nfs_last;
        bool nfs_seen;
        struct ra_evidence e;
};

/* The host's counters of one sample. */
struct host_sample {
        struct ra_host_counters c;
        bool psi;
};

struct ra_advise_window {
        struct watched *w;
        size_t n;
        bool any_nfs;
        struct others *others;
        struct ra_cgroup_sampler *cg; /* NULL: no cgroups to read */
        struct ra_cgroup_device *majmin;
        struct ra_events *from_cgroups;
        struct ra_disk_counters *deltas;
        bool *seen_now;
        struct host_sample before;
        double last;
        bool started;
        char *mountinfo_path, *mountstats_path;
        int mountstats_error; /* the last error in the window, 0: none */
};

/* No evidence yet: only where it comes from. */
static void evidence_init(struct watched *d) {
        d->e = (struct ra_evidence){ .source = d->t.source };
        if (d->t.source == RA_EVIDENCE_NFS)
                d->e.nfs.rsize_kb = d->t.rsize_kb;
}

int ra_advise_window_new(const struct ra_advise_target *t, size_t n, const char *mountinfo_path,
                         struct ra_advise_window **ret) {
        struct ra_advise_window *w = calloc(1, sizeof(*w));
        size_t k = n ? n : 1;
        char mountstats_path[RA_PATH_MAX];

        if (!mountinfo_path)
                mountinfo_path = "/proc/self/mountinfo";
        int r = ra_mountstats_path(mountinfo_path, mountstats_path, sizeof(mountstats_path));
        if (r < 0) {
                free(w);
                return r;
        }
        if (!w)
                return -ENOMEM;
        w->n = n;
        w->w = calloc(k, sizeof(*w->w));
        w->others = calloc(1, sizeof(*w->others));
        w->majmin = calloc(k, sizeof(*w->majmin));
        w->from_cgroups = calloc(k, sizeof(*w->from_cgroups));
        w->deltas = calloc(k, sizeof(*w->deltas));
        w->seen_now = calloc(k, sizeof(*w->seen_now));
        w->mountinfo_path = strdup(mountinfo_path);
        w->mountstats_path = strdup(mountstats_path);
        if (!w->w || !w->others || !w->majmin || !w->from_cgroups || !w->deltas || !w->seen_now ||
            !w->mountinfo_path || !w->mountstats_path) {
                ra_advise_window_free(w);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                struct watched *d = &w->w[i];
                d->t = t[i];
                if (t[i].source == RA_EVIDENCE_NFS) {
                        d->mount_point = strdup(t[i].mount_point ? t[i].mount_point : "");
                        if (!d->mount_point) {
                                ra_advise_window_free(w);
                                return -ENOMEM;
                        }
                        d->t.mount_point = d->mount_point;
                        w->any_nfs = true;
                }
                evidence_init(d);
                w->majmin[i] = (struct ra_cgroup_device){ t[i].major, t[i].minor };
        }
        /* Without cgroups to read, every event is split by share. */
        if (ra_cgroup_sampler_new(&w->cg) < 0)
                w->cg = NULL;
        *ret = w;
        return 0;
}

struct ra_advise_window *ra_advise_window_free(struct ra_advise_window *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; w->w && i < w->n; i++)
                free(w->w[i].mount_point);
        ra_cgroup_sampler_free(w->cg);
        free(w->w);
        free(w->others);
        free(w->majmin);
        free(w->from_cgroups);
        free(w->deltas);
        free(w->seen_now);
        free(w->mountinfo_path);
        free(w->mountstats_path);
        free(w);
        return NULL;
}

void ra_advise_window_restart(struct ra_advise_window *w) {
        for (size_t i = 0; i < w->n; i++)
                evidence_init(&w->w[i]);
        w->mountstats_error = 0;
        if (w->cg)
                ra_cgroup_sampler_window_restart(w->cg);
}

int ra_advise_window_mountstats_error(const struct ra_advise_window *w, const char **ret_path) {
        *ret_path = w->mountstats_path;
        return w->mountstats_error;
}

const struct ra_evidence *ra_advise_window_evidence(const struct ra_advise_window *w, size_t i) {
        return &w->w[i].e;
}

const char *ra_advise_window_cgroups(const struct ra_advise_window *w, unsigned *ret_with_events,
                                     unsigned *ret_explaining) {
        *ret_with_events = *ret_explaining = 0;
        if (!w->cg)
                return NULL;
        ra_cgroup_sampler_counts(w->cg, ret_with_events, ret_explaining);
        return ra_cgroup_sampler_v2(w->cg) ? "v2" : "v1";
}

/* ---- the host ---------------------------------------------------------------- */

static int read_psi_some_us(const char *path, uint64_t *ret) {
        char *text;
        size_t len;
        int r = ra_read_whole_file(path, PSI_MAX_BYTES, &text, &len);
        if (r < 0)
                return r;
        r = ra_psi_some_total_us(text, len, ret);
        free(text);
        return r;
}

static int read_host(struct host_sample *s) {
        char *text;
        size_t len;
        int r = ra_read_whole_file("/proc/vmstat", VMSTAT_MAX_BYTES, &text, &len);
        if (r < 0)
                return r;
        *s = (struct host_sample){};
        (void) ra_vmstat_parse(text, len, &s->c);
        free(text);
        s->psi = read_psi_some_us("/proc/pressure/memory", &s->c.mem_some_us) >= 0 &&
                 read_psi_some_us("/proc/pressure/io", &s->c.io_some_us) >= 0;
        return 0;
}

/* ---- disks ----------------------------------------------------------------- */

/* Whole disks only: a partition's reads are its disk's too. */
static bool is_whole_disk(const char *name) {
        char path[RA_NAME_MAX + 16];
        struct stat st;
        snprintf(path, sizeof(path), "/sys/block/%s", name);
        return stat(path, &st) == 0;
}

static uint64_t others_delta(struct others *o, unsigned major, unsigned minor, uint64_t sectors, bool first,
                             double seconds) {
        for (size_t i = 0; i < o->n; i++)
                if (o->disk[i].major == major && o->disk[i].minor == minor) {
                        struct ra_disk_counters now = { .read_sectors = sectors },
                                                before = { .read_sectors = o->disk[i].read_sectors }, d;
                        ra_disk_delta(&now, &before, seconds, &d);
                        o->disk[i].read_sectors = sectors;
                        return first ? 0 : d.read_sectors;
                }
        if (o->n < DISKS_MAX)
                o->disk[o->n++] = (typeof(o->disk[0])){ major, minor, sectors };
        return 0; /* new: from now on */
}

/* One pass over /proc/diskstats' text: each watched device's deltas since
 * the last pass in w->deltas (the first only records), and the sectors all
 * whole disks read. */
static uint64_t take_disks(struct ra_advise_window *w, const char *text, size_t len, bool first,
                           double seconds) {
        struct ra_diskstats_line line;
        uint64_t all = 0;
        size_t pos = 0;

        /* A device missing from this pass read nothing in it, and its next
         * delta would span two intervals: it starts afresh. */
        memset(w->seen_now, 0, (w->n ? w->n : 1) * sizeof(*w->seen_now));
        memset(w->deltas, 0, (w->n ? w->n : 1) * sizeof(*w->deltas));
        while (ra_diskstats_next(text, len, &pos, &line)) {
                size_t i;
                for (i = 0; i < w->n; i++)
                        if (w->w[i].t.major == line.major && w->w[i].t.minor == line.minor)
                                break;
                if (i < w->n) {
                        if (w->seen_now[i])
                                continue; /* listed twice: the first line counts */
                        w->seen_now[i] = true;
                        if (!first && w->w[i].seen)
                                ra_disk_delta(&line.c, &w->w[i].last, seconds, &w->deltas[i]);
                        w->w[i].last = line.c;
                        all += w->deltas[i].read_sectors;
                } else if (is_whole_disk(line.name))
                        all += others_delta(w->others, line.major, line.minor, line.c.read_sectors, first,
                                            seconds);
        }
        for (size_t i = 0; i < w->n; i++)
                w->w[i].seen = w->seen_now[i];
        return all;
}

/* ---- NFS mounts ------------------------------------------------------------- */

/* The mount's counters: its entry among those at its mount point found in
 * mountinfo (NULL: none read), else the first NFS one there. */
static int find_nfs(const struct ra_advise_target *t, const char *text, size_t len, const char *mountinfo,
                    size_t mountinfo_len, struct ra_nfs_read_counters *ret) {
        int nth = mountinfo ? ra_mountinfo_nth_at(mountinfo, mountinfo_len, t->mount_point, t->major, t->minor)
                            : -ENOENT;
        if (nth >= 0)
                return ra_mountstats_find_nth(text, len, t->mount_point, (unsigned) nth, ret);
        return ra_mountstats_find(text, len, t->mount_point, ret);
}

/* One NFS mount's counters from mountstats' text (NULL: none read): the
 * first sample records, the next ones add the interval since the last. A
 * mount missing from a sample starts afresh when it comes back. */
static void take_nfs(struct watched *d, const char *text, size_t len, const char *mountinfo,
                     size_t mountinfo_len, double seconds, bool first) {
        struct ra_nfs_observed *o = &d->e.nfs;
        struct ra_nfs_read_counters now;

        int r = text ? find_nfs(&d->t, text, len, mountinfo, mountinfo_len, &now) : 0;
        bool found = r == 1;
        if (r == -EBADMSG)
                o->no_read_counters = true;
        struct ra_nfs_read_counters delta = {};
        if (!first && found && d->nfs_seen)
                delta = ra_nfs_read_counters_delta(&now, &d->nfs_last);
        if (!first && found && d->nfs_seen && ra_nfs_delta_plausible(&delta, seconds)) {
                ra_nfs_observe_interval(o, &delta, seconds);
        } else if (!first) {
                o->seconds += seconds; /* no evidence in this interval */
        }
        /* Unmounted, or its entry malformed: it starts afresh when back. */
        d->nfs_seen = found;
        if (found)
                d->nfs_last = now;
}

/* ---- one sample ---------------------------------------------------------------- */

int ra_advise_window_sample(struct ra_advise_window *w, double now) {
        char *disks = NULL, *mountstats = NULL, *mountinfo = NULL;
        size_t disks_len, mountstats_len = 0, mountinfo_len = 0;
        struct host_sample host;
        bool first = !w->started;
        double seconds = first ? 0 : now - w->last;
        int r;

        /* Every text first: a file that cannot be read changes nothing. */
        r = read_host(&host);
        if (r < 0)
                return r;
        r = ra_read_whole_file("/proc/diskstats", DISKSTATS_MAX_BYTES, &disks, &disks_len);
        if (r < 0)
                return r;
        /* NFS evidence only: a mountstats too large or gone leaves the
         * disks' evidence alone */
        int mountstats_r = w->any_nfs ? ra_read_whole_file(w->mountstats_path, RA_MOUNTSTATS_MAX_BYTES,
                                                            &mountstats, &mountstats_len)
                                      : 0;
        if (mountstats_r < 0)
                w->mountstats_error = mountstats_r;
        /* which of the mounts stacked on a mount point each is; unread: the first NFS one */
        if (mountstats && ra_read_whole_file(w->mountinfo_path, RA_MOUNTINFO_MAX_BYTES, &mountinfo,
                                             &mountinfo_len) < 0)
                mountinfo = NULL;

        uint64_t all = take_disks(w, disks, disks_len, first, seconds);
        free(disks);
        struct ra_host_counters h;
        if (!first)
                ra_host_delta(&host.c, &w->before.c, seconds, &h);
        struct ra_events explained;
        if (w->cg)
                ra_cgroup_sampler_pass(w->cg, w->majmin, w->n, first, seconds, w->from_cgroups, &explained);
        for (size_t i = 0; i < w->n; i++) {
                struct watched *d = &w->w[i];
                if (d->t.source == RA_EVIDENCE_NFS) {
                        if (mountstats_r < 0)
                                d->e.nfs.mountstats_unread = true;
                        take_nfs(d, mountstats, mountstats_len, mountinfo, mountinfo_len, seconds, first);
                }
                else if (!first)
                        ra_disk_observe_interval_cg(&d->e.disk, &w->deltas[i], all, &h,
                                                    w->cg ? &w->from_cgroups[i] : NULL,
                                                    w->cg ? &explained : NULL, host.psi, seconds,
                                                    d->t.page_kb ? d->t.page_kb : 4);
        }
        free(mountstats);
        free(mountinfo);
        w->before = host;
        w->last = now;
        w->started = true;
        return 0;
}
