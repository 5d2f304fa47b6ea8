/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cgroup-attrib.h"

/*
 * readahead-ctl advise: what readahead did on a live system, and whether to
 * raise, lower or keep read_ahead_kb. Pure: counters in, advice out. The
 * caller samples /proc/diskstats, /proc/vmstat and /proc/pressure/ and hands
 * each interval's deltas to ra_observe_interval().
 *
 * The thresholds, each with its reason (readahead-ctl(8) lists them too):
 */
/* Less than this read in the window says nothing about readahead. */
#define RA_ADVISE_READ_BYTES_MIN (UINT64_C(1) << 20)
/* Reads that pinned user pages (O_DIRECT) bypass the page cache and
 * readahead: when they are most of what a device read, nothing to advise. */
#define RA_ADVISE_DIRECT_SHARE_MIN 0.8
/* A major fault reads around it by read_ahead_kb: when faults times
 * read_ahead_kb explain half of the reads, and each fault reads between half
 * and twice read_ahead_kb (more: sequential readahead behind them; less:
 * faults served by another disk, such as a program's own pages evicted in a
 * small memory cgroup), the reads are read-around for random faults. */
#define RA_ADVISE_FAULT_SHARE_MIN 0.5
#define RA_ADVISE_FAULT_READ_MIN 0.5
#define RA_ADVISE_FAULT_READ_MAX 2.0
/* Random faults gain nothing from read-around above this (bench/benefit:
 * 122 faults/s at 64K, 21 at 4M on the HDD model); not lowered below it. */
#define RA_ADVISE_FAULT_FLOOR_KB 64
/* Pages read again after reclaim took them, as a share of what was read:
 * readahead that memory could not hold until it was used. */
#define RA_ADVISE_REFAULT_SHARE_MIN 0.10
/* ...with memory under pressure: stalls (PSI some) or reclaim of at least
 * half of what was read. */
#define RA_ADVISE_MEM_STALL_MIN 0.005
#define RA_ADVISE_RECLAIM_SHARE_MIN 0.5
/* Sequential reads limited by readahead: requests at least 3/4 of
 * read_ahead_kb (or of max_sectors_kb, which splits larger ones), and the
 * device busy half the time or its readers stalled on I/O a quarter of it
 * (a throttled device hides its busy time from the device's counters). */
#define RA_ADVISE_REQUEST_SHARE_MIN 0.75
#define RA_ADVISE_BUSY_MIN 0.5
#define RA_ADVISE_IO_STALL_MIN 0.25
/* No raise while readahead shows waste: the thresholds of lowering (less
 * is the noise of a busy host, 3% measured while the lab ran). */
#define RA_ADVISE_RAISE_REFAULT_MAX 0.10
#define RA_ADVISE_RAISE_FAULT_MAX 0.1
/* PSI memory is the host's: with events attributed per cgroup, a device
 * whose own readers refault less than the noise (3%) is not held back by
 * another cgroup's memory stalls. */
#define RA_ADVISE_OWN_REFAULT_NOISE 0.03
/* ...and, with reclaim attributed per cgroup, no raise while reclaim takes
 * half of what the device's readers read: their memory is full, a larger
 * window would be thrown away (32 streams in 48 MiB: 640K raised to 1280K
 * refaulted 14%). */
/* No raise back to where the last advice lowered from: a value lowered
 * for thrashing looks sequential and unlimited by memory once the
 * thrashing stops (32 streams in 48 MiB went 2560K -> 640K -> 1280K ->
 * 320K -> 1280K without this). */
/* One step: at most a factor of 4 either way. */
#define RA_ADVISE_STEP 4

/* A device's cumulative read counters (/proc/diskstats). */
struct ra_disk_counters {
        uint64_t read_ios, read_merges, read_sectors, read_ticks_ms, io_ticks_ms;
};

/* The host's cumulative counters (/proc/vmstat, /proc/pressure/). */
struct ra_host_counters {
        uint64_t majfaults;          /* pgmajfault */
        uint64_t refault_file_pages; /* workingset_refault_file */
        uint64_t steal_file_pages;   /* pgsteal_file */
        uint64_t pinned_pages;       /* nr_foll_pin_acquired: O_DIRECT and other pins */
        uint64_t mem_some_us, io_some_us;
};

/* The change of cumulative counters over `seconds` in *ret; false (and all
 * zero) when one went backwards or jumped further than any device or host
 * moves in that time (a reset, a wrap, a bogus value such as 2^64-1): such
 * an interval counts as nothing. */
bool ra_disk_delta(const struct ra_disk_counters *now, const struct ra_disk_counters *before, double seconds,
                   struct ra_disk_counters *ret);
bool ra_host_delta(const struct ra_host_counters *now, const struct ra_host_counters *before, double seconds,
                   struct ra_host_counters *ret);

/* One device over the window; host events attributed to it. */
struct ra_observed {
        double seconds;               /* the window */
        double read_seconds;          /* intervals in which the device read */
        struct ra_disk_counters disk; /* deltas over the window */
        /* Events: what cgroups that read the device explain (their own
         * events, split by their reads per device), plus the host's events
         * no cgroup explains of intervals in which the device read, times
         * its share of that interval's sectors read by all disks. */
        double majfaults, refault_bytes, reclaim_bytes, direct_bytes;
        /* ...of which from cgroups: the rest is the host-wide share. */
        double cgroup_majfaults, cgroup_refault_bytes, cgroup_reclaim_bytes;
        /* Stall time of intervals in which the device read, not shared. */
        double mem_some_seconds, io_some_seconds;
        bool psi; /* /proc/pressure/ was readable */
        bool by_cgroup; /* events were attributed per cgroup (ra_observe_interval_cg with cgroups) */
};

/* Adds one interval: the device's deltas, all disks' read sectors, the
 * host's deltas (NULL psi fields when psi is false). */
void ra_observe_interval(struct ra_observed *o, const struct ra_disk_counters *dev, uint64_t all_read_sectors,
                         const struct ra_host_counters *host, bool psi, double seconds, unsigned page_kb);
/* The same with attribution per cgroup: from_cgroups, this device's events
 * from ra_attribute_cgroup(); explained, all cgroups' (only the host's
 * events beyond them are split by share). NULL for none. */
void ra_observe_interval_cg(struct ra_observed *o, const struct ra_disk_counters *dev, uint64_t all_read_sectors,
                            const struct ra_host_counters *host, const struct ra_events *from_cgroups,
                            const struct ra_events *explained, bool psi, double seconds, unsigned page_kb);

struct ra_advise_limits {
        uint64_t read_ahead_kb;
        uint64_t max_sectors_kb; /* 0: unknown */
        uint64_t minimum_kb, maximum_kb; /* the profile's Minimum= and Maximum= */
        uint64_t memory_cap_kb;          /* the host's; 0: none */
        unsigned page_kb;
        bool network; /* a network mount: no device counters */
        bool rotational; /* one head: no gain from requests in flight beyond max_sectors_kb */
        bool lowered_here; /* the last advice (the record) lowered read_ahead_kb to this value */
};

enum ra_advice_kind {
        RA_ADVICE_NO_SIGNAL,
        RA_ADVICE_KEEP,
        RA_ADVICE_RAISE,
        RA_ADVICE_LOWER,
        _RA_ADVICE_MAX,
};

struct ra_advice {
        enum ra_advice_kind kind;
        uint64_t suggested_kb; /* read_ahead_kb unless raise or lower */
        /* The evidence, also for output. Shares are of bytes read. */
        double read_bytes_per_s;
        double request_kb;     /* average read request; 0 without reads */
        double busy;           /* io_ticks over the time the device read */
        double io_stall, mem_stall; /* PSI some over that time; < 0: no PSI */
        double majfaults_per_s;
        double read_per_fault_kb; /* 0: no faults */
        double fault_share, refault_share, reclaim_share, direct_share;
        char reason[320];
        /* NFS mounts (advise-nfs.h): the READs' average RTT and the bytes in
         * flight (throughput x RTT); 0 for disks. */
        double rtt_ms, in_flight_kb;
};

void ra_advise(const struct ra_observed *o, const struct ra_advise_limits *l, struct ra_advice *ret);

/* A raise or lower of a->kind to want_kb, held by the profile's limits, the
 * memory cap and floor_kb (0: none; floor_why names it in the reason), or
 * keep when they leave no room; evidence opens the reason. */
void ra_advise_suggest(struct ra_advice *a, const struct ra_advise_limits *l, enum ra_advice_kind kind,
                       uint64_t want_kb, uint64_t floor_kb, const char *floor_why, const char *evidence);

/* "no signal", "keep", "raise", "lower" */
const char *ra_advice_to_string(enum ra_advice_kind k);
/* -1 lower, 0 keep, 1 raise; no signal has no value (false) */
bool ra_advice_to_gauge(enum ra_advice_kind k, int *ret);
