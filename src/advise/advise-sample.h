/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise-disk.h"
#include "advise-nfs.h"
#include "facts.h"

/*
 * advise's window: the devices watched, sampled as often as the caller
 * likes (readahead-ctl advise: once a second), each sample's change added
 * to the device's evidence. Each evidence source keeps its own shape:
 *  - a disk: /proc/diskstats, the host's /proc/vmstat and /proc/pressure/,
 *    and the events of the cgroups that read it (advise-cgroup.h); a mount
 *    that is not NFS is watched the same way and has no counters there;
 *  - an NFS mount: its own READ counters, /proc/self/mountstats, so that a
 *    local disk's reads never enter a mount's evidence, nor a mount's a
 *    disk's.
 * The texts are parsed by advise-parse.h and advise-mountstats.h, the
 * evidence judged by advise-disk.h and advise-nfs.h.
 */

/* What a device's advice is made from. */
enum ra_evidence_source {
        RA_EVIDENCE_DISK,
        RA_EVIDENCE_NFS,
};

struct ra_evidence {
        enum ra_evidence_source source;
        struct ra_disk_observed disk; /* RA_EVIDENCE_DISK; all 0 for NFS */
        struct ra_nfs_observed nfs;   /* RA_EVIDENCE_NFS; all 0 for a disk */
};

/* Bytes read over the window: a disk's sectors, what an NFS server sent. */
uint64_t ra_evidence_read_bytes(const struct ra_evidence *e);
/* Read requests: a disk's, an NFS mount's READs. */
uint64_t ra_evidence_read_ios(const struct ra_evidence *e);
/* The advice of the decision for the evidence's source. */
void ra_advise_evidence(const struct ra_evidence *e, const struct ra_advise_limits *l, struct ra_advice *ret);

/* An NFS mount: advise reads its evidence from mountstats. */
bool ra_advise_is_nfs(const struct ra_facts *f);

/* A device to watch, from its facts. */
struct ra_advise_target {
        enum ra_evidence_source source;
        unsigned major, minor;   /* the disk's, or the NFS superblock's */
        const char *mount_point; /* NFS: the mount's (copied by the window) */
        uint64_t rsize_kb;       /* NFS: the mount's; 0: unknown */
        unsigned page_kb;
};

struct ra_advise_target ra_advise_target_of(const struct ra_facts *f);

struct ra_advise_window;

/* A window over n devices, with the cgroup sampler where cgroups can be
 * read. NFS mounts are found in the mount table at mountinfo_path
 * (ra_mountinfo_path(); NULL: /proc/self/mountinfo), by their superblock
 * (of mounts stacked on one mount point, the one the target names), and
 * their counters read in the mountstats beside it (ra_mountstats_path()).
 * -ENOMEM, -ENAMETOOLONG. */
int ra_advise_window_new(const struct ra_advise_target *t, size_t n, const char *mountinfo_path,
                         struct ra_advise_window **ret);
struct ra_advise_window *ra_advise_window_free(struct ra_advise_window *w);
/* The next window over the same devices, from the last sample on: the
 * evidence starts again, the counters taken stay as the next sample's
 * baseline (no first sample), and so does what the cgroup sampler has
 * looked up. */
void ra_advise_window_restart(struct ra_advise_window *w);

/* One sample at `now` (seconds, monotonic): the first records, each later
 * one adds the interval since the one before. -errno when /proc/vmstat or
 * /proc/diskstats cannot be read: nothing changes then, and the next
 * sample spans both intervals. A mountstats that cannot be read (over
 * RA_MOUNTSTATS_MAX_BYTES, gone) is no error: the NFS mounts get no
 * evidence from that sample, and ra_advise_window_mountstats_error() says
 * why. */
int ra_advise_window_sample(struct ra_advise_window *w, double now);

/* The last error reading mountstats in the window (0: none), and its path. */
int ra_advise_window_mountstats_error(const struct ra_advise_window *w, const char **ret_path);

/* Device i's evidence so far. */
const struct ra_evidence *ra_advise_window_evidence(const struct ra_advise_window *w, size_t i);

/* The cgroups read: "v1", "v2", or NULL for none (every event is split by
 * share then); over the window, how many cgroups had events and how many
 * of them explained theirs by their reads. */
const char *ra_advise_window_cgroups(const struct ra_advise_window *w, unsigned *ret_with_events,
                                     unsigned *ret_explaining);
