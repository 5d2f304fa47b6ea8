/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "advise-attrib.h"
#include "advise-suggest.h"

/*
 * advise for a disk: what readahead did on a live system, and whether to
 * raise, lower or keep read_ahead_kb. Pure: counters in, advice out. The
 * sampler (advise-sample.h) reads /proc/diskstats, /proc/vmstat and
 * /proc/pressure/ and hands each interval's deltas to
 * ra_disk_observe_interval().
 *
 * The thresholds, each with its reason (readahead-ctl(8) lists them too;
 * those both decisions share are in advise-suggest.h):
 */
/* A major fault reads around it by read_ahead_kb: when faults times
 * read_ahead_kb explain half of the reads, and each fault reads between half
 * and twice read_ahead_kb (more: sequential readahead behind them; less:
 * faults served by another disk, such as a program's own pages evicted in a
 * small memory cgroup), the reads are read-around for random faults. */
#define RA_ADVISE_FAULT_SHARE_MIN 0.5
#define RA_ADVISE_FAULT_READ_MIN 0.5
#define RA_ADVISE_FAULT_READ_MAX 2.0
/* ...and the faults issue half of the device's requests, each fault its
 * read over RA_ADVISE_FAULT_REQUEST_KB_MAX (or max_sectors_kb, when smaller)
 * of them, at least one: fault counters do not say which device a fault
 * read, and 4K random reads (120 requests a second on the HDD model) beside
 * 1.8 faults a second from elsewhere read 272K "a fault", half of 512K
 * (bench/tune-hold's control). */
#define RA_ADVISE_FAULT_REQUEST_SHARE_MIN 0.5
/* A request holds at most max_segments pages: 128 (the kernel's
 * BLK_MAX_SEGMENTS, the loop driver's and many disks') scattered 4K pages
 * of the page cache, 512K. With max_sectors_kb alone, faults reading 1280K
 * each on the HDD model, whose requests averaged 546K once memory was
 * fragmented, issued "0.43" of the requests and were not advised. */
#define RA_ADVISE_FAULT_REQUEST_KB_MAX 512
/* A fault that reads less than this share of its window found the rest
 * cached: read by the faults beside it (a scan through a mapping, backward
 * or strided, which uses every page it reads), or kept from a dataset read
 * at random, which then reads again what reclaim took. Only the second is
 * read-around thrown away: without refaults above the noise
 * (RA_ADVISE_OWN_REFAULT_NOISE) such faults are a scan, and each waits for
 * its read: raised as sequential reads are, past max_sectors_kb too
 * (advise_mapped_scan()). db_bench readreverse through
 * mmap on bench/apps' ssd model read 259K a fault at 512K, 68K at 128K and
 * 20K at 32K with refaults of 0.5-1.1%: 514K ops/s at 512K, 526K at 2M,
 * 571K at 16M, and lowered as random faults, 114K at 8K. Random faults
 * read 0.76-0.92 of their window (db_bench readrandom and mixgraph through
 * mmap) or refaulted 63-96% at 0.70-0.76. */
#define RA_ADVISE_FAULT_READ_WHOLE 0.75
/* ...and a scan's faults read half their window, a little less where a
 * window meets what the fault before read (1015K a fault at 2M, 0.496). */
#define RA_ADVISE_SCAN_READ_MIN 0.4
/* On a rotating disk a fault's seek costs more than its read-around up to
 * a few hundred K, and faults near each other share it: random 4K faults
 * on the HDD model take as many faults a second from 16K to 512K
 * (bench/benefit: 118-122, against 75 at 1M and 21 at 4M), and db_bench
 * readrandom through mmap (bench/apps) reads 246 ops/s at 256K, 225 at
 * 128K and 203 at 64K (medians of 3). Not lowered below it. */
#define RA_ADVISE_FAULT_FLOOR_KB 256
/* Without seeks a fault costs its bytes, or one operation where a volume
 * caps those: below 32K on bench/apps' gp3 model (3,000 IOPS) every fault
 * took the same time (about 2,000-2,400 a second from 32K to 8K), and
 * what a smaller window saves is only the neighbours a fault brings.
 * db_bench through mmap, medians of 3, % of each sweep's best at 8K and
 * 16K: readrandom on the ssd model 100% and 89%, on gp3 97% and 100%;
 * mixgraph (hot keys) on the ssd model 93% and 100%, on gp3 71% and 100%
 * (59% and 100% on another machine).
 * No counter advise reads told the 8K cells from the others on the way
 * down (device rate, requests and faults a second from 128K to 32K: 0.45x,
 * 1.31x, 1.54x for mixgraph on gp3, 0.45x, 1.54x, 1.73x for readrandom
 * on the ssd model), so the floor is the value that held on all four. */
#define RA_ADVISE_FAULT_FLOOR_SOLID_KB 16
/* Pages read again after reclaim took them, as a share of what was read:
 * readahead that memory could not hold until it was used. */
#define RA_ADVISE_REFAULT_SHARE_MIN 0.10
/* ...with memory under pressure: stalls (PSI some) or reclaim of at least
 * half of what was read. */
#define RA_ADVISE_MEM_STALL_MIN 0.005
#define RA_ADVISE_RECLAIM_SHARE_MIN 0.5
/* ...of readahead's reads: requests of at least the kernel's first window
 * for a 4K read (4 pages). Smaller ones are the readers' own random reads,
 * which readahead does not enlarge; their re-reads say memory is short,
 * not that readahead wasted it (bench/apps, fio randread 4K on the ssd
 * model: requests 5-6K and refaults 20-31% at 512K, 128K and 32K, and
 * lowering to 8K read 91% of the best; the thrashing labs' streams: 412-639K
 * at 2560K). */
#define RA_ADVISE_THRASH_REQUEST_KB_MIN 16
/* Sequential reads limited by readahead: requests at least 3/4 of
 * read_ahead_kb (or of the average piece max_sectors_kb splits it into), and the
 * device busy half the time or its readers stalled on I/O a quarter of it
 * (a throttled device hides its busy time from the device's counters). */
#define RA_ADVISE_REQUEST_SHARE_MIN 0.75
#define RA_ADVISE_BUSY_MIN 0.5
#define RA_ADVISE_IO_STALL_MIN 0.25
/* ...or, on a rotating disk whose readers stall on I/O, requests smaller
 * than that but of readahead's size (RA_ADVISE_THRASH_REQUEST_KB_MIN): each
 * costs a seek, and a larger window makes fewer of them, while the readers'
 * random reads are read as asked at any window (bench/apps' HDD model,
 * 125 reads a second: db_bench readseq with buffered reads, RocksDB's own
 * reads of 248-251K at 512K, 29.8K ops/s, 101.1K at 1280K; mixgraph with
 * buffered reads, its scans' and gets' reads 15-21K on average at 512K,
 * 418 ops/s, 507 at 1280K, raised in the rounds of 16K or more;
 * readrandom's 8K requests keep, every value 97-99% of the best). Not
 * where a raise brought read_ahead_kb (raised_here): a stream opened before
 * it reads requests of the old window, as these. */
/* No raise while readahead shows waste: the thresholds of lowering (less
 * is the noise of a busy host, 3% measured while the lab ran). */
#define RA_ADVISE_RAISE_REFAULT_MAX 0.10
#define RA_ADVISE_RAISE_FAULT_MAX 0.1
/* A raise followed (the device at the value the last advice raised it to)
 * must have bought at least this much more read rate, while the device
 * read, for another: readers stalled as much at the larger window are held
 * by the device's bandwidth, not by readahead, and every larger window only
 * costs memory (bench/apps, 4 streams on the gp3 model's 125 MiB/s: advise
 * raised 512K -> 2M -> 8M -> 32M at 125 MiB/s each, and 32M read 100). */
#define RA_ADVISE_RAISE_GAIN_MIN 1.1
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
struct ra_disk_observed {
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
        /* ...and of cgroup_majfaults, those counted per process (ra_attribute_process()). */
        double process_majfaults;
        /* Stall time of intervals in which the device read, not shared. */
        double mem_some_seconds, io_some_seconds;
        bool psi; /* /proc/pressure/ was readable */
        bool by_cgroup; /* events were attributed per cgroup (ra_disk_observe_interval_cg()) */
};

/* Adds one interval: the device's deltas, all disks' read sectors, the
 * host's deltas (NULL psi fields when psi is false). */
void ra_disk_observe_interval(struct ra_disk_observed *o, const struct ra_disk_counters *dev,
                              uint64_t all_read_sectors, const struct ra_host_counters *host, bool psi,
                              double seconds, unsigned page_kb);
/* The same with attribution per cgroup: from_cgroups, this device's events
 * from ra_attribute_cgroup(); explained, all cgroups' (only the host's
 * events beyond them are split by share). NULL for none. */
void ra_disk_observe_interval_cg(struct ra_disk_observed *o, const struct ra_disk_counters *dev,
                                 uint64_t all_read_sectors, const struct ra_host_counters *host,
                                 const struct ra_events *from_cgroups, const struct ra_events *explained,
                                 bool psi, double seconds, unsigned page_kb);

/* The advice for a disk; l->network (a mount that is not NFS) is no signal. */
void ra_advise_disk(const struct ra_disk_observed *o, const struct ra_advise_limits *l, struct ra_advice *ret);
