/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "advise-disk.h"
#include "size.h"

static double share_of(double part, double whole) {
        return whole > 0 ? part / whole : 0;
}

/* What no device or host moves in a second: 2^33 sectors (4 TiB), 2^28
 * requests, 2^30 pages (4 TiB); a request's ticks add up to at most 65536
 * requests in flight. Time-based counters (busy, PSI) grow by at most the
 * interval, with a second of slack for the sampling. */
#define DELTA_SECTORS_PER_S (UINT64_C(1) << 33)
#define DELTA_IOS_PER_S (UINT64_C(1) << 28)
#define DELTA_PAGES_PER_S (UINT64_C(1) << 30)
#define DELTA_IN_FLIGHT_MAX 65536

static bool counter_delta(uint64_t now, uint64_t before, double max, uint64_t *ret) {
        if (now < before || (double) (now - before) > max)
                return false;
        *ret = now - before;
        return true;
}

bool ra_disk_delta(const struct ra_disk_counters *now, const struct ra_disk_counters *before, double seconds,
                   struct ra_disk_counters *ret) {
        const double s = seconds > 0 ? seconds : 0, ms = (s + 1) * 1000;
        struct ra_disk_counters d;

        if (counter_delta(now->read_ios, before->read_ios, s * (double) DELTA_IOS_PER_S, &d.read_ios) &&
            counter_delta(now->read_merges, before->read_merges, s * (double) DELTA_SECTORS_PER_S, &d.read_merges) &&
            counter_delta(now->read_sectors, before->read_sectors, s * (double) DELTA_SECTORS_PER_S,
                          &d.read_sectors) &&
            counter_delta(now->read_ticks_ms, before->read_ticks_ms, ms * DELTA_IN_FLIGHT_MAX, &d.read_ticks_ms) &&
            counter_delta(now->io_ticks_ms, before->io_ticks_ms, ms, &d.io_ticks_ms)) {
                *ret = d;
                return true;
        }
        *ret = (struct ra_disk_counters){};
        return false;
}

bool ra_host_delta(const struct ra_host_counters *now, const struct ra_host_counters *before, double seconds,
                   struct ra_host_counters *ret) {
        const double s = seconds > 0 ? seconds : 0, pages = s * (double) DELTA_PAGES_PER_S, us = (s + 1) * 1e6;
        struct ra_host_counters d;

        if (counter_delta(now->majfaults, before->majfaults, pages, &d.majfaults) &&
            counter_delta(now->refault_file_pages, before->refault_file_pages, pages, &d.refault_file_pages) &&
            counter_delta(now->steal_file_pages, before->steal_file_pages, pages, &d.steal_file_pages) &&
            counter_delta(now->pinned_pages, before->pinned_pages, pages, &d.pinned_pages) &&
            counter_delta(now->mem_some_us, before->mem_some_us, us, &d.mem_some_us) &&
            counter_delta(now->io_some_us, before->io_some_us, us, &d.io_some_us)) {
                *ret = d;
                return true;
        }
        *ret = (struct ra_host_counters){};
        return false;
}

void ra_disk_observe_interval(struct ra_disk_observed *o, const struct ra_disk_counters *dev,
                              uint64_t all_read_sectors, const struct ra_host_counters *host, bool psi,
                              double seconds, unsigned page_kb) {
        ra_disk_observe_interval_cg(o, dev, all_read_sectors, host, NULL, NULL, psi, seconds, page_kb);
}

void ra_disk_observe_interval_cg(struct ra_disk_observed *o, const struct ra_disk_counters *dev,
                                 uint64_t all_read_sectors, const struct ra_host_counters *host,
                                 const struct ra_events *from_cgroups, const struct ra_events *explained,
                                 bool psi, double seconds, unsigned page_kb) {
        const double page_bytes = (double) page_kb * 1024;
        const struct ra_events none = {};
        const struct ra_events host_ev = { .majfaults = (double) host->majfaults,
                                           .refault_pages = (double) host->refault_file_pages,
                                           .steal_pages = (double) host->steal_file_pages };
        const struct ra_events rest = ra_events_unexplained(&host_ev, explained ? explained : &none);

        o->seconds += seconds;
        o->disk.read_ios += dev->read_ios;
        o->disk.read_merges += dev->read_merges;
        o->disk.read_sectors += dev->read_sectors;
        o->disk.read_ticks_ms += dev->read_ticks_ms;
        o->disk.io_ticks_ms += dev->io_ticks_ms;
        o->psi = psi;
        /* A cgroup's events belong to the devices it read, in whatever
         * interval its reads were counted. */
        if (from_cgroups) {
                o->by_cgroup = true;
                o->majfaults += from_cgroups->majfaults;
                o->refault_bytes += from_cgroups->refault_pages * page_bytes;
                o->reclaim_bytes += from_cgroups->steal_pages * page_bytes;
                o->cgroup_majfaults += from_cgroups->majfaults;
                o->process_majfaults += from_cgroups->process_majfaults;
                o->cgroup_refault_bytes += from_cgroups->refault_pages * page_bytes;
                o->cgroup_reclaim_bytes += from_cgroups->steal_pages * page_bytes;
        }
        if (dev->read_sectors == 0)
                return;
        /* What no cgroup explains belongs to whoever read: to this device
         * by its share of the sectors all disks read in this interval. */
        double share = share_of((double) dev->read_sectors,
                                (double) (all_read_sectors > dev->read_sectors ? all_read_sectors : dev->read_sectors));
        o->read_seconds += seconds;
        o->majfaults += share * rest.majfaults;
        o->refault_bytes += share * rest.refault_pages * page_bytes;
        o->reclaim_bytes += share * rest.steal_pages * page_bytes;
        o->direct_bytes += share * (double) host->pinned_pages * page_bytes;
        if (psi) {
                o->mem_some_seconds += (double) host->mem_some_us / 1e6;
                o->io_some_seconds += (double) host->io_some_us / 1e6;
        }
}

static void suggest(struct ra_advice *a, const struct ra_advise_limits *l, enum ra_advice_kind kind,
                    uint64_t want_kb, const char *evidence) {
        ra_advise_suggest(a, l, kind, want_kb, 0, NULL, evidence);
}

/* The rates and shares of one observation, before any judgement. */
static void measure(const struct ra_disk_observed *o, const struct ra_advise_limits *l, struct ra_advice *a) {
        const double read_bytes = (double) o->disk.read_sectors * 512;
        const double ra_bytes = (double) l->read_ahead_kb * 1024;

        a->read_bytes_per_s = share_of(read_bytes, o->seconds);
        a->request_kb = share_of(read_bytes / 1024, (double) o->disk.read_ios);
        a->busy = share_of((double) o->disk.io_ticks_ms / 1000, o->read_seconds);
        if (a->busy > 1) /* the sampling's jitter; never more than all the time */
                a->busy = 1;
        a->io_stall = o->psi ? share_of(o->io_some_seconds, o->read_seconds) : -1;
        a->mem_stall = o->psi ? share_of(o->mem_some_seconds, o->read_seconds) : -1;
        a->majfaults_per_s = share_of(o->majfaults, o->seconds);
        a->read_per_fault_kb = o->majfaults >= 1 ? read_bytes / 1024 / o->majfaults : 0;
        a->direct_share = share_of(o->direct_bytes, read_bytes);
        if (a->direct_share > 1)
                a->direct_share = 1;
        /* What went through the page cache: the rest is readahead's. */
        const double cached_bytes = read_bytes * (1 - a->direct_share);
        a->fault_share = share_of(o->majfaults * ra_bytes, cached_bytes);
        a->refault_share = share_of(o->refault_bytes, cached_bytes);
        a->reclaim_share = share_of(o->reclaim_bytes, cached_bytes);
}

/* A network mount, too few reads, or reads that bypass the page cache: no
 * advice either way. Writes the reason and returns true when one holds. */
static bool no_signal(const struct ra_disk_observed *o, const struct ra_advise_limits *l, struct ra_advice *a) {
        const double read_bytes = (double) o->disk.read_sectors * 512;

        if (l->network) {
                snprintf(a->reason, sizeof(a->reason), "a network mount: no read counters to observe");
                return true;
        }
        if (read_bytes < (double) RA_ADVISE_READ_BYTES_MIN) {
                if (o->disk.read_sectors == 0)
                        snprintf(a->reason, sizeof(a->reason), "no reads in %.0f s", o->seconds);
                else
                        snprintf(a->reason, sizeof(a->reason), "only %.0fK read in %.0f s",
                                 read_bytes / 1024, o->seconds);
                return true;
        }
        if (a->direct_share >= RA_ADVISE_DIRECT_SHARE_MIN) {
                snprintf(a->reason, sizeof(a->reason),
                         "%.0f%% of the reads bypass the page cache (O_DIRECT): readahead plays no part",
                         a->direct_share * 100);
                return true;
        }
        return false;
}

/* Major faults drive the reads: each reads from read_min to
 * RA_ADVISE_FAULT_READ_MAX times read_ahead_kb around it. */
static bool faults_read_around(const struct ra_disk_observed *o, const struct ra_advise_limits *l,
                               const struct ra_advice *a, double read_min) {
        const double ra_kb = (double) l->read_ahead_kb;

        /* The requests a fault's read needs, at least one; max_sectors_kb
         * unknown: the bytes alone decide. What each fault read, not
         * read_ahead_kb: in the window after a step, files opened before it
         * still fault at the old value. */
        bool faults_issue_requests = true;
        if (l->max_sectors_kb) {
                uint64_t request_kb = l->max_sectors_kb < RA_ADVISE_FAULT_REQUEST_KB_MAX
                                              ? l->max_sectors_kb
                                              : RA_ADVISE_FAULT_REQUEST_KB_MAX;
                double per_fault = a->read_per_fault_kb / (double) request_kb;
                faults_issue_requests = o->majfaults * (per_fault > 1 ? per_fault : 1) >=
                                        RA_ADVISE_FAULT_REQUEST_SHARE_MIN * (double) o->disk.read_ios;
        }
        return a->fault_share >= RA_ADVISE_FAULT_SHARE_MIN && a->read_per_fault_kb >= read_min * ra_kb &&
               a->read_per_fault_kb <= RA_ADVISE_FAULT_READ_MAX * ra_kb && faults_issue_requests;
}

/* Faults that read part of their window and nothing read again: the rest
 * of each window was read by the fault beside it, a scan through a mapping
 * (backward or strided) that uses every page it reads. Its refaults under
 * noise keep it apart from thrashing (RA_ADVISE_REFAULT_SHARE_MIN) and from
 * random faults over a dataset partly cached, which re-read what reclaim
 * took. */
static bool scan_through_mapping(const struct ra_disk_observed *o, const struct ra_advise_limits *l,
                                 const struct ra_advice *a) {
        return faults_read_around(o, l, a, RA_ADVISE_SCAN_READ_MIN) &&
               a->read_per_fault_kb < RA_ADVISE_FAULT_READ_WHOLE * (double) l->read_ahead_kb &&
               a->refault_share < RA_ADVISE_OWN_REFAULT_NOISE;
}

/* Read-around for random faults: each fault reads read_ahead_kb around it
 * and uses a page. Returns true when this is the advice. */
static bool lower_for_read_around(const struct ra_disk_observed *o, const struct ra_advise_limits *l,
                                  struct ra_advice *a) {
        char text[200], s1[24], s2[24];

        if (!faults_read_around(o, l, a, RA_ADVISE_FAULT_READ_MIN))
                return false;
        snprintf(text, sizeof(text),
                 "random page faults pay for read-around: %.1f major faults/s, each reading about %s "
                 "(read_ahead_kb %s)",
                 a->majfaults_per_s, ra_format_size_kb((uint64_t) (a->read_per_fault_kb + 0.5), s1),
                 ra_format_size_kb(l->read_ahead_kb, s2));
        uint64_t floor_kb = l->rotational ? RA_ADVISE_FAULT_FLOOR_KB : RA_ADVISE_FAULT_FLOOR_SOLID_KB;
        if (l->read_ahead_kb <= floor_kb) {
                snprintf(a->reason, sizeof(a->reason), "%s; at %s read-around is small already", text, s2);
                return true;
        }
        uint64_t kb = l->read_ahead_kb / RA_ADVISE_STEP;
        suggest(a, l, RA_ADVICE_LOWER, kb < floor_kb ? floor_kb : kb, text);
        return true;
}

/* Thrashing: what readahead brought in was reclaimed before use and read
 * again. Returns true when this is the advice. */
static bool lower_for_thrashing(const struct ra_advise_limits *l, struct ra_advice *a) {
        bool pressure =
                (a->mem_stall >= RA_ADVISE_MEM_STALL_MIN) || a->reclaim_share >= RA_ADVISE_RECLAIM_SHARE_MIN;
        char text[200], stall[48] = "";

        if (!(a->refault_share >= RA_ADVISE_REFAULT_SHARE_MIN && pressure &&
              a->request_kb >= RA_ADVISE_THRASH_REQUEST_KB_MIN))
                return false;
        if (a->mem_stall >= 0)
                snprintf(stall, sizeof(stall), ", memory stalls %.1f%% of the time", a->mem_stall * 100);
        snprintf(text, sizeof(text),
                 "readahead thrown away: %.0f%% of what was read had been read before and reclaimed "
                 "(refaults), reclaim took %.0f%% of it%s",
                 a->refault_share * 100, a->reclaim_share * 100, stall);
        suggest(a, l, RA_ADVICE_LOWER, l->read_ahead_kb / RA_ADVISE_STEP, text);
        return true;
}

/* Requests of readahead's size: 3/4 of the window, or of the average
 * piece a window larger than max_sectors_kb is split into (2M at 1280K
 * reads as 1280K and 768K, 1M a request on average; db_bench readseq
 * through mmap on the ssd model averaged 873K). */
static bool at_readahead_size(const struct ra_advise_limits *l, const struct ra_advice *a) {
        uint64_t request_max_kb = l->read_ahead_kb;
        if (l->max_sectors_kb && l->max_sectors_kb < l->read_ahead_kb) {
                uint64_t pieces = (l->read_ahead_kb + l->max_sectors_kb - 1) / l->max_sectors_kb;
                request_max_kb = l->read_ahead_kb / pieces;
        }
        return a->request_kb >= RA_ADVISE_REQUEST_SHARE_MIN * (double) request_max_kb;
}

/* Smaller requests that each cost a seek, see RA_ADVISE_IO_STALL_MIN. */
static bool seek_bound(const struct ra_advise_limits *l, const struct ra_advice *a) {
        return l->rotational && a->io_stall >= RA_ADVISE_IO_STALL_MIN &&
               a->request_kb >= RA_ADVISE_THRASH_REQUEST_KB_MIN;
}

/* Sequential reads that readahead does not limit: requests smaller than the
 * window that do not seek on a rotating disk, waste, or a device with room
 * to spare. Writes the reason and returns true when one holds; stall
 * describes the readers' I/O stalls. */
static bool readahead_not_the_limit(const struct ra_disk_observed *o, const struct ra_advise_limits *l,
                                    struct ra_advice *a, const char *stall) {
        const double cached_bytes = (double) o->disk.read_sectors * 512 * (1 - a->direct_share);
        char s1[24];
        bool at_size = at_readahead_size(l, a);
        bool limited = a->busy >= RA_ADVISE_BUSY_MIN || a->io_stall >= RA_ADVISE_IO_STALL_MIN;
        bool others_stall = o->by_cgroup && a->refault_share < RA_ADVISE_OWN_REFAULT_NOISE;
        bool own_reclaim = o->cgroup_reclaim_bytes >= RA_ADVISE_RECLAIM_SHARE_MIN * cached_bytes && cached_bytes > 0;
        bool waste = a->refault_share > RA_ADVISE_RAISE_REFAULT_MAX ||
                     a->fault_share > RA_ADVISE_RAISE_FAULT_MAX ||
                     (a->mem_stall >= RA_ADVISE_MEM_STALL_MIN && !others_stall) || own_reclaim;
        if (!at_size && !seek_bound(l, a)) {
                snprintf(a->reason, sizeof(a->reason),
                         "requests average %.0fK against read_ahead_kb %s: readahead does not drive these "
                         "reads "
                         "(random or small reads)",
                         a->request_kb, ra_format_size_kb(l->read_ahead_kb, s1));
                return true;
        }
        /* After a raise, a stream opened before it reads requests of the
         * old window, under the new one, as reads that seek do: they are
         * not told apart, and the raise was for such a stream (k8s-tune: a
         * stream opened at 128K, raised to 512K, read 140K requests). */
        if (!at_size && l->raised_here) {
                snprintf(a->reason, sizeof(a->reason),
                         "requests average %.0fK under read_ahead_kb %s, which a raise brought: files opened "
                         "before it still read at the value before, so no raise on these",
                         a->request_kb, ra_format_size_kb(l->read_ahead_kb, s1));
                return true;
        }
        if (waste) {
                snprintf(
                        a->reason, sizeof(a->reason),
                        "%s, but with waste: refaults %.0f%%, fault read-around %.0f%% of the reads, memory "
                        "stalls %.1f%% of the time, reclaim took %.0f%% of it",
                        at_size ? "requests at the readahead size" : "reads that seek on a rotating disk",
                        a->refault_share * 100, a->fault_share * 100,
                        a->mem_stall > 0 ? a->mem_stall * 100 : 0, a->reclaim_share * 100);
                return true;
        }
        if (!limited) {
                snprintf(
                        a->reason, sizeof(a->reason),
                        "requests at the readahead size (%.0fK), but the device is busy %.0f%% of the time, "
                        "%s: readahead is not the limit",
                        a->request_kb, a->busy * 100, stall);
                return true;
        }
        return false;
}

/* Reads limited by readahead, as text says: raise up to max_kb, unless the
 * last advice says a raise gains nothing. */
static void raise_unless_futile(const struct ra_disk_observed *o, const struct ra_advise_limits *l,
                                struct ra_advice *a, const char *text, uint64_t max_kb) {
        char s2[24];
        /* The rate while the device read: a scan that ends sooner at the
         * larger window reads as many bytes a window, but faster. */
        const double reading_bytes_per_s = share_of((double) o->disk.read_sectors * 512, o->read_seconds);

        if (l->lowered_here) {
                snprintf(a->reason, sizeof(a->reason),
                         "%s; but the last advice lowered read_ahead_kb to %s for thrashing or read-around: "
                         "a "
                         "raise would bring that back",
                         text, ra_format_size_kb(l->read_ahead_kb, s2));
                return;
        }
        if (l->raised_from_kib_s &&
            reading_bytes_per_s < RA_ADVISE_RAISE_GAIN_MIN * (double) l->raised_from_kib_s * 1024) {
                snprintf(a->reason, sizeof(a->reason),
                         "%s; but the last raise to %s gained nothing: %.1f MiB/s while reading against %.1f "
                         "before it, so the device, not readahead, is the limit",
                         text, ra_format_size_kb(l->read_ahead_kb, s2), reading_bytes_per_s / (1 << 20),
                         (double) l->raised_from_kib_s / 1024);
                return;
        }
        uint64_t want_kb = l->read_ahead_kb * RA_ADVISE_STEP;
        if (want_kb > max_kb)
                want_kb = max_kb;
        suggest(a, l, RA_ADVICE_RAISE, want_kb, text);
        if (a->kind == RA_ADVICE_RAISE) {
                /* what the next advice, at the value raised to, weighs its rate against */
                uint64_t kib_s = (uint64_t) (reading_bytes_per_s / 1024);
                a->raise_base_kib_s = kib_s ? kib_s : 1;
        }
}

/* Sequential reads limited by readahead, or reads that seek on a rotating
 * disk: raise, up to max_sectors_kb on a rotating disk, unless futile. */
static void raise_for_sequential(const struct ra_disk_observed *o, const struct ra_advise_limits *l,
                                 struct ra_advice *a, const char *stall) {
        char text[200], s1[24], s2[24];

        if (at_readahead_size(l, a))
                snprintf(text, sizeof(text),
                         "sequential reads limited by readahead: requests average %.0fK at read_ahead_kb %s, "
                         "device busy %.0f%%, %s, no refaults or memory pressure",
                         a->request_kb, ra_format_size_kb(l->read_ahead_kb, s1), a->busy * 100, stall);
        else
                snprintf(text, sizeof(text),
                         "reads that seek on a rotating disk: requests average %.0fK under read_ahead_kb %s, "
                         "%s, no refaults or memory pressure: a larger window makes fewer of them",
                         a->request_kb, ra_format_size_kb(l->read_ahead_kb, s1), stall);
        /* A rotating disk reads one request at a time: past max_sectors_kb
         * a larger window only queues more requests of the same size
         * (bench/benefit, HDD model, one stream: 103.6 MiB/s at 1M, 98.8 at
         * 2M, 94.8 at 16M with max_sectors_kb 1280). */
        if (l->rotational && l->max_sectors_kb && l->read_ahead_kb >= l->max_sectors_kb) {
                snprintf(a->reason, sizeof(a->reason),
                         "%s; but requests are split at max_sectors_kb %s already and a rotating disk gains "
                         "nothing from more of them in flight",
                         text, ra_format_size_kb(l->max_sectors_kb, s2));
                return;
        }
        uint64_t max_kb = l->rotational && l->max_sectors_kb ? l->max_sectors_kb : UINT64_MAX;
        raise_unless_futile(o, l, a, text, max_kb);
}

/* A scan through a mapping waits for each fault's read: a larger window
 * makes fewer waits for the same pages. Raise while its readers stall on
 * I/O or the device is busy, as for sequential reads, unless futile; past
 * max_sectors_kb too, since on a rotating disk each wait is a seek as well
 * (db_bench readreverse through mmap, bench/apps' HDD model: 30.9K ops/s
 * at 512K, 52.5K at 1280K, 61.4K at 2560K, 77.1K at 8M, 81.7K at 16M). */
static void advise_mapped_scan(const struct ra_disk_observed *o, const struct ra_advise_limits *l,
                               struct ra_advice *a, const char *stall) {
        char text[200], s1[24], s2[24];

        snprintf(text, sizeof(text),
                 "a scan through a mapping: faults read about %s each (%.0f%% of read_ahead_kb %s), "
                 "refaults %.1f%%, device busy %.0f%%, %s",
                 ra_format_size_kb((uint64_t) (a->read_per_fault_kb + 0.5), s1),
                 a->read_per_fault_kb / (double) l->read_ahead_kb * 100, ra_format_size_kb(l->read_ahead_kb, s2),
                 a->refault_share * 100, a->busy * 100, stall);
        if (a->busy < RA_ADVISE_BUSY_MIN && !(a->io_stall >= RA_ADVISE_IO_STALL_MIN)) {
                snprintf(a->reason, sizeof(a->reason), "%s: readahead is not the limit", text);
                return;
        }
        raise_unless_futile(o, l, a, text, UINT64_MAX);
}

/* What the readers' I/O stalls were, for the reasons: without PSI the
 * stall is unknown, not 0%. */
static void describe_io_stall(const struct ra_advice *a, char *buf, size_t size) {
        if (a->io_stall < 0)
                snprintf(buf, size, "readers' I/O stalls unknown (no PSI)");
        else
                snprintf(buf, size, "readers stalled on I/O %.0f%%", a->io_stall * 100);
}

void ra_advise_disk(const struct ra_disk_observed *o, const struct ra_advise_limits *l, struct ra_advice *ret) {
        /* a keep at the value a raise brought goes on weighing against the rate before it */
        struct ra_advice a = { .kind = RA_ADVICE_NO_SIGNAL,
                               .suggested_kb = l->read_ahead_kb,
                               .raise_base_kib_s = l->raised_from_kib_s };

        measure(o, l, &a);
        if (no_signal(o, l, &a)) {
                *ret = a;
                return;
        }
        a.kind = RA_ADVICE_KEEP;
        char stall[48];
        describe_io_stall(&a, stall, sizeof(stall));
        /* A scan's faults read part of their window as random faults do;
         * asked first, so that read-around does not lower it. */
        if (scan_through_mapping(o, l, &a))
                advise_mapped_scan(o, l, &a, stall);
        else if (!lower_for_read_around(o, l, &a) && !lower_for_thrashing(l, &a) &&
                 !readahead_not_the_limit(o, l, &a, stall))
                raise_for_sequential(o, l, &a, stall);
        *ret = a;
}
