/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "advise-mountstats.h"
#include "advise-suggest.h"

/*
 * advise for an NFS mount: its own READ counters (/proc/self/mountstats,
 * advise-mountstats.h) in, the same struct ra_advice as a disk's out. Pure.
 * The evidence is the mount's own, never dressed up as a disk's sectors.
 * A sequential reader whose readahead window is the limit keeps the window
 * in flight: throughput x RTT (Little's law) is about read_ahead_kb, and
 * more with the next window issued early. A reader that is the limit itself
 * leaves most of the window idle.
 *
 * Thresholds (bench/nfs-benefit.tsv, NFSv4.2 over loopback with netem, in
 * the QEMU lab; readahead-ctl(8) lists them):
 */
/* Raise when at least this share of the window is in flight. */
#define RA_ADVISE_NFS_IN_FLIGHT_RAISE_MIN 1.0
/* Lower when less than this share is in flight, and the window is above
 * the profile's floor, max(1M, 4 x rsize) (four READs, never lowered below;
 * at rsize 32K, 1M read 98-100% of the best and 512K 79-84%). */
#define RA_ADVISE_NFS_IN_FLIGHT_LOWER_MAX 0.125
#define RA_ADVISE_NFS_RSIZE_MULTIPLE      4
#define RA_ADVISE_NFS_FLOOR_MIN_KB        1024
/* Lower a window of 4 x that floor or more when less than this share is in
 * flight: the round trips need a quarter of it. On a slower lab machine 16M
 * at rsize 512K with 28-31% in flight read 0.72-0.89 of the best (2M-4M);
 * on the sweep's machine a quarter of such a window read 92-109% of it
 * (bench/README-nfs.md). */
#define RA_ADVISE_NFS_IN_FLIGHT_LOWER_LARGE_MAX 0.5
/* Retransmitted READs (timeouts, lost replies) say the network is the
 * trouble: a larger window only sends more into it. */
#define RA_ADVISE_NFS_RETRANSMIT_MAX 0.01

struct ra_nfs_observed {
        double seconds;                   /* the window */
        double read_seconds;              /* intervals in which READs completed */
        struct ra_nfs_read_counters read; /* deltas over the window */
        uint64_t rsize_kb;                /* the mount's; 0: unknown */
        /* Its mountstats entry was there without a READ line (or with a
         * malformed one) in a sample: no READ counters, not no reads. */
        bool no_read_counters;
        /* mountstats could not be read in a sample (too large, gone). */
        bool mountstats_unread;
};

/* Whether one interval's deltas (ra_nfs_read_counters_delta()) are what a
 * mount can move in `seconds`: no more than 2^42 bytes (4 TiB) or 2^28
 * READs a second, and round-trip times of at most 65536 READs in flight.
 * A bogus counter (2^64-1, a wrap) fails: such an interval counts as
 * nothing, as a disk's (ra_disk_delta()). */
bool ra_nfs_delta_plausible(const struct ra_nfs_read_counters *d, double seconds);

/* Adds one interval's deltas (ra_nfs_read_counters_delta()). */
void ra_nfs_observe_interval(struct ra_nfs_observed *o, const struct ra_nfs_read_counters *d,
                             double seconds);

/* The advice; l->network is ignored (this is the network's own evidence). */
void ra_advise_nfs(const struct ra_nfs_observed *o, const struct ra_advise_limits *l, struct ra_advice *ret);
