/* SPDX-License-Identifier: MIT */
/* advise: counters in, advice out. The intervals are the lab's (tests/real/
 * advise-*.sh) as measured on the emulated HDD, 125 IOPS / 100 MiB/s. */

#include "advise-disk.h"
#include "test.h"

static const struct ra_advise_limits hdd = {
        .max_sectors_kb = 1280, .minimum_kb = 32, .maximum_kb = 131072, .memory_cap_kb = 32768, .page_kb = 4,
};

/* n one-second intervals of the same deltas, this device the only reader. */
static void observe(struct ra_disk_observed *o, unsigned n, const struct ra_disk_counters *d,
                    const struct ra_host_counters *h) {
        *o = (struct ra_disk_observed){};
        for (unsigned i = 0; i < n; i++)
                ra_disk_observe_interval(o, d, d->read_sectors, h, true, 1.0, 4);
}

static struct ra_advice advise_at(uint64_t kb, const struct ra_disk_observed *o) {
        struct ra_advise_limits l = hdd;
        struct ra_advice a;
        l.read_ahead_kb = kb;
        ra_advise_disk(o, &l, &a);
        return a;
}

/* (a) one stream at 128K: 15 MiB/s in 128K requests, the reader stalled half
 * the time (one of two CPUs), the throttled device idle by its own count. */
static const struct ra_disk_counters seq128 = { .read_ios = 114, .read_merges = 10, .read_sectors = 30720,
                                                .io_ticks_ms = 22 };
static const struct ra_host_counters seq_host = { .io_some_us = 520000 };

static void test_sequential_raise(void) {
        struct ra_disk_observed o;
        observe(&o, 5, &seq128, &seq_host);
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(512, a.suggested_kb);
        CHECK_STR("sequential reads limited by readahead: requests average 135K at read_ahead_kb 128K, device busy "
                  "2%, readers stalled on I/O 52%, no refaults or memory pressure; raise 128K -> 512K",
                  a.reason);
        CHECK_U64(15360, a.raise_base_kib_s); /* 15 MiB/s, for the next advice to weigh */
}

/* At the value the last advice raised to, readers as stalled as before: a
 * raise must have bought 10% more read rate for another (the gp3 model's
 * 125 MiB/s read the same at 512K, 2M and 8M). */
static void test_raise_without_gain_keeps(void) {
        struct ra_advise_limits l = hdd;
        struct ra_disk_observed o;
        struct ra_advice a;
        struct ra_disk_counters d = seq128;
        d.read_ios /= 4; /* 512K requests, 15 MiB/s as at 128K */
        observe(&o, 5, &d, &seq_host);
        l.read_ahead_kb = 512;
        l.raised_from_kib_s = 15000;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_U64(512, a.suggested_kb);
        CHECK_SUFFIX(a.reason, "; but the last raise to 512K gained nothing: 15.0 MiB/s while reading against "
                               "14.6 before it, so the device, not readahead, is the limit");
        CHECK_U64(15000, a.raise_base_kib_s); /* the keep goes on weighing against it */
        /* from 10 MiB/s the raise bought 50%: raise again */
        l.raised_from_kib_s = 10240;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(2048, a.suggested_kb);
        CHECK_U64(15360, a.raise_base_kib_s);
        /* no raise behind it: raise */
        l.raised_from_kib_s = 0;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        /* a scan that ends sooner at 512K: as many bytes in the window as
         * before the raise, read in 2 of its 5 seconds: 37.5 MiB/s while
         * reading, a gain */
        struct ra_disk_counters fast = d, idle = {};
        fast.read_sectors = d.read_sectors * 5 / 2;
        fast.read_ios = d.read_ios * 5 / 2;
        o = (struct ra_disk_observed){};
        for (unsigned i = 0; i < 5; i++)
                ra_disk_observe_interval(&o, i < 2 ? &fast : &idle, i < 2 ? fast.read_sectors : 0, &seq_host,
                                         true, 1.0, 4);
        l.raised_from_kib_s = 15360;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(38400, a.raise_base_kib_s);
}

static void test_raise_held_by_maximum(void) {
        struct ra_advise_limits l = hdd;
        struct ra_disk_observed o;
        struct ra_advice a;
        observe(&o, 5, &seq128, &seq_host);
        l.read_ahead_kb = 128;
        l.maximum_kb = 256;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(256, a.suggested_kb);
        CHECK_SUFFIX(a.reason, "; raise 128K -> 256K, held by the profile's Maximum=");
        l.read_ahead_kb = 256; /* requests at 256K now */
        struct ra_disk_counters d = seq128;
        d.read_ios /= 2;
        observe(&o, 5, &d, &seq_host);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_U64(256, a.suggested_kb);
        CHECK_SUFFIX(a.reason, "; but the profile's Maximum= is 256K already");
        /* the host's memory cap holds it too */
        l = hdd;
        l.read_ahead_kb = 128;
        l.memory_cap_kb = 256;
        observe(&o, 5, &seq128, &seq_host);
        ra_advise_disk(&o, &l, &a);
        CHECK_U64(256, a.suggested_kb);
        CHECK_SUFFIX(a.reason, ", held by the host's memory cap");
}

/* Requests at the readahead size on a device that keeps up: not limited. */
static void test_sequential_not_limited(void) {
        struct ra_disk_observed o;
        struct ra_host_counters h = { .io_some_us = 30000 };
        observe(&o, 5, &seq128, &h);
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_STR("requests at the readahead size (135K), but the device is busy 2% of the time, readers "
                  "stalled on I/O 3%: readahead is not the limit",
                  a.reason);
}

/* (c) random faults through a mapping at 4M: 25 faults/s, 4M read each. */
static void test_faults_lower(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 110, .read_sectors = 204800, .io_ticks_ms = 105 };
        struct ra_host_counters h = { .majfaults = 25, .io_some_us = 490000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(4096, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(1024, a.suggested_kb);
        CHECK_STR("random page faults pay for read-around: 25.0 major faults/s, each reading about 4M "
                  "(read_ahead_kb 4M); lower 4M -> 1M",
                  a.reason);
        /* a rotating disk at 512K: down to the floor of 256K, not 128K */
        struct ra_advise_limits l = hdd;
        l.rotational = true;
        l.read_ahead_kb = 512;
        d.read_sectors = 25 * 1024;
        d.read_ios = 25;
        observe(&o, 5, &d, &h);
        ra_advise_disk(&o, &l, &a);
        CHECK_U64(256, a.suggested_kb);
        /* at 256K: nothing to gain */
        l.read_ahead_kb = 256;
        d.read_sectors = 25 * 512;
        observe(&o, 5, &d, &h);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "; at 256K read-around is small already");
        /* without seeks, down to 16K, not a quarter of 32K (a profile's
         * Minimum= of 8K leaves the floor to decide) */
        l.rotational = false;
        l.minimum_kb = 8;
        l.read_ahead_kb = 32;
        d.read_sectors = 25 * 64;
        observe(&o, 5, &d, &h);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(16, a.suggested_kb);
        CHECK_SUFFIX(a.reason, "lower 32K -> 16K");
        l.read_ahead_kb = 16;
        struct ra_host_counters many = h;
        many.majfaults = 250; /* 4000K a second: enough to judge */
        d.read_sectors = 250 * 32;
        d.read_ios = 250;
        observe(&o, 5, &d, &many);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "; at 16K read-around is small already");
        /* the default profile's Minimum= of 32K holds it there */
        l.minimum_kb = 32;
        l.read_ahead_kb = 64;
        d.read_sectors = 250 * 128;
        observe(&o, 5, &d, &many);
        ra_advise_disk(&o, &l, &a);
        CHECK_U64(32, a.suggested_kb);
        CHECK_SUFFIX(a.reason, "lower 64K -> 32K, held by the profile's Minimum=");
}

/* A sequential reader through a mapping: few faults for much reading. */
static void test_sequential_faults_are_not_read_around(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 100, .read_sectors = 204800, .io_ticks_ms = 900 };
        struct ra_host_counters h = { .majfaults = 4, .io_some_us = 500000 };
        observe(&o, 5, &d, &h); /* 25M a fault at 1M: sequential readahead behind them */
        struct ra_advice a = advise_at(1024, &o);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(4096, a.suggested_kb);
}

/* (b) 32 streams in 48 MiB at 2560K: a third read again, reclaim takes
 * nearly all. */
static void test_thrashing_lower(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 100, .read_merges = 20, .read_sectors = 112640, .io_ticks_ms = 40 };
        struct ra_host_counters h = { .refault_file_pages = 5000, .steal_file_pages = 12800, .mem_some_us = 6000,
                                      .io_some_us = 950000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(2560, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(640, a.suggested_kb);
        CHECK_STR("readahead thrown away: 36% of what was read had been read before and reclaimed (refaults), "
                  "reclaim took 91% of it, memory stalls 0.6% of the time; lower 2560K -> 640K",
                  a.reason);
        /* refaults without pressure (no stalls, little reclaim): no blame
         * (5000 pages of 56320K read: 36%) */
        h.steal_file_pages = 1000;
        h.mem_some_us = 0;
        observe(&o, 5, &d, &h);
        a = advise_at(2560, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_STR("requests average 563K against read_ahead_kb 2560K: readahead does not drive these reads (random "
                  "or small reads)",
                  a.reason);
        /* at the profile's Minimum: keep */
        h.steal_file_pages = 12800;
        observe(&o, 5, &d, &h);
        a = advise_at(32, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "; but the profile's Minimum= is 32K already");
}

/* (f) random 4K reads: readahead does not touch them. */
static void test_random_reads_keep(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 121, .read_sectors = 968, .io_ticks_ms = 5 };
        struct ra_host_counters h = { .io_some_us = 510000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(4096, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_U64(4096, a.suggested_kb);
        CHECK_STR("requests average 4K against read_ahead_kb 4M: readahead does not drive these reads (random or "
                  "small reads)",
                  a.reason);
}

/* bench/apps' fio randread on the ssd model: buffered 4K reads of a file
 * four times the cgroup's memory, re-read after reclaim (refaults 31%) with
 * memory stalls: the readers' own reads, not readahead's, so no lower. */
static void test_random_rereads_not_thrashing(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 1000, .read_sectors = 12000, .io_ticks_ms = 680 };
        struct ra_host_counters h = { .refault_file_pages = 465, .steal_file_pages = 645, .mem_some_us = 20000,
                                      .io_some_us = 670000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(512, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_STR("requests average 6K against read_ahead_kb 512K: readahead does not drive these reads (random or "
                  "small reads)",
                  a.reason);
        /* the same re-reads in readahead's 16K requests: thrashing */
        d.read_ios = 375;
        observe(&o, 5, &d, &h);
        a = advise_at(512, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(128, a.suggested_kb);
}

/* (f) with faults of other programs in the same seconds (5 a second, their
 * pages on another disk that read little): no read-around blamed here. */
static void test_random_reads_with_foreign_faults(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 120, .read_sectors = 960, .io_ticks_ms = 5 };
        struct ra_host_counters h = { .majfaults = 5, .io_some_us = 510000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(4096, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_STR("requests average 4K against read_ahead_kb 4M: readahead does not drive these reads (random or "
                  "small reads)",
                  a.reason);
}

/* bench/tune-hold's control: 4K random reads at the HDD model's 120 a
 * second, and 1.8 faults a second that read elsewhere (its program's own
 * pages): 272K "a fault" at 512K passes the bytes, not the requests. */
static void test_random_reads_with_few_foreign_faults(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 120, .read_sectors = 1088, .io_ticks_ms = 5 };
        struct ra_host_counters h = { .majfaults = 2, .io_some_us = 510000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(512, &o);
        CHECK(a.read_per_fault_kb >= 0.5 * 512 && a.fault_share >= 0.5); /* the bytes say read-around */
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        /* the same faults issuing the requests: 2 in 5 seconds, one
         * request of their whole window each */
        d.read_ios = 2;
        d.read_sectors = 2 * 1024;
        observe(&o, 5, &d, &h);
        a = advise_at(512, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
}

/* db_bench readreverse through mmap on bench/apps' ssd model at 512K: each
 * fault reads the half of its window below it, the upper half read by the
 * fault before; nothing is read again. Read-around used, not thrown away,
 * and each fault waits for its read: raise while the readers stall. The
 * same faults re-reading what reclaim took are random faults over a
 * dataset partly cached: lower. */
static void test_backward_scan_faults(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 1930, .read_sectors = 1900 * 518, .io_ticks_ms = 390 };
        struct ra_host_counters h = { .majfaults = 1900, .refault_file_pages = 740, .io_some_us = 440000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(512, &o);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(2048, a.suggested_kb);
        CHECK_STR("a scan through a mapping: faults read about 259K each (51% of read_ahead_kb 512K), refaults "
                  "0.6%, device busy 39%, readers stalled on I/O 44%; raise 512K -> 2M",
                  a.reason);
        /* at 2M, reading no faster than at 512K: the last raise gained
         * nothing. Each fault a little under half its window (readreverse
         * at 2M: 1015K), still a scan. */
        struct ra_advise_limits l = hdd;
        l.read_ahead_kb = 2048;
        l.raised_from_kib_s = 1900 * 259;
        d.read_sectors = 475 * 2030;
        d.read_ios = 475 * 3;
        h.majfaults = 475;
        observe(&o, 5, &d, &h);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "a scan through a mapping: faults read about 1015K each (50% of read_ahead_kb 2M)");
        CHECK_SUFFIX(a.reason, "; but the last raise to 2M gained nothing: 470.8 MiB/s while reading against 480.6 "
                               "before it, so the device, not readahead, is the limit");
        /* on a rotating disk, past max_sectors_kb: each fault is a seek too */
        l = hdd;
        l.rotational = true;
        l.read_ahead_kb = 1280;
        d.read_sectors = 120 * 1274;
        d.read_ios = 240;
        h.majfaults = 120;
        h.refault_file_pages = 100;
        observe(&o, 5, &d, &h);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(5120, a.suggested_kb);
        /* readers that do not wait for it: readahead is not the limit */
        d.read_sectors = 1900 * 518;
        d.read_ios = 1930;
        h.majfaults = 1900;
        h.refault_file_pages = 740;
        h.io_some_us = 100000;
        observe(&o, 5, &d, &h);
        a = advise_at(512, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "readers stalled on I/O 10%: readahead is not the limit");
        h.io_some_us = 440000;
        /* a fifth of it read again: the windows were half cached by memory */
        h.refault_file_pages = 24600;
        observe(&o, 5, &d, &h);
        a = advise_at(512, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        /* whole windows read with no refaults: random faults on a dataset
         * read the first time */
        h.refault_file_pages = 0;
        d.read_sectors = 1900 * 1024;
        observe(&o, 5, &d, &h);
        a = advise_at(512, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(128, a.suggested_kb);
}

/* Faults reading 1280K each at read_ahead_kb 1280K (max_sectors_kb 1280),
 * their reads split into requests of about 512K (max_segments 128 of
 * scattered pages): read-around, as real-advise-tune-switch's faults once
 * memory was fragmented. */
static void test_fault_reads_split_by_segments(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 63, .read_sectors = 64000, .io_ticks_ms = 5 };
        struct ra_host_counters h = { .majfaults = 25, .io_some_us = 510000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(1280, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(320, a.suggested_kb);
}

/* (e) O_DIRECT: every page read was pinned. */
static void test_direct_no_signal(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters d = { .read_ios = 61, .read_sectors = 124928, .io_ticks_ms = 30 };
        struct ra_host_counters h = { .pinned_pages = 15616, .io_some_us = 500000 };
        observe(&o, 5, &d, &h);
        struct ra_advice a = advise_at(4096, &o);
        CHECK_STR("no signal", ra_advice_to_string(a.kind));
        CHECK_STR("100% of the reads bypass the page cache (O_DIRECT): readahead plays no part", a.reason);
}

/* (d) idle, a trickle, a network mount. */
static void test_no_reads(void) {
        struct ra_disk_observed o;
        struct ra_disk_counters none = {}, trickle = { .read_ios = 2, .read_sectors = 64 };
        struct ra_host_counters h = { .majfaults = 3 };
        struct ra_advise_limits l = hdd;
        struct ra_advice a;

        observe(&o, 30, &none, &h);
        a = advise_at(512, &o);
        CHECK_STR("no signal", ra_advice_to_string(a.kind));
        CHECK_STR("no reads in 30 s", a.reason);
        CHECK_U64(512, a.suggested_kb);
        observe(&o, 30, &trickle, &h);
        a = advise_at(512, &o);
        CHECK_STR("only 960K read in 30 s", a.reason);
        l.read_ahead_kb = 512;
        l.network = true;
        observe(&o, 30, &seq128, &seq_host);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("no signal", ra_advice_to_string(a.kind));
        CHECK_STR("a network mount: no read counters to observe", a.reason);
}

/* Host events go to the devices by their share of the interval's reads, and
 * only in intervals in which a device read. */
static void test_attribution(void) {
        struct ra_disk_observed o = {};
        struct ra_disk_counters d = { .read_ios = 10, .read_sectors = 1000 };
        struct ra_host_counters h = { .majfaults = 40, .refault_file_pages = 100, .mem_some_us = 20000 };
        ra_disk_observe_interval(&o, &d, 4000, &h, true, 1.0, 4);
        struct ra_disk_counters idle = {};
        ra_disk_observe_interval(&o, &idle, 4000, &h, true, 1.0, 4);
        CHECK(o.majfaults == 10);
        CHECK(o.refault_bytes == 25 * 4096);
        CHECK(o.mem_some_seconds == 0.02);
        CHECK(o.read_seconds == 1.0);
        CHECK(o.seconds == 2.0);
        CHECK_U64(1000, o.disk.read_sectors);
}

static void test_gauge(void) {
        int v = 7;
        CHECK(!ra_advice_to_gauge(RA_ADVICE_NO_SIGNAL, &v));
        CHECK_INT(7, v);
        CHECK(ra_advice_to_gauge(RA_ADVICE_LOWER, &v));
        CHECK_INT(-1, v);
        CHECK(ra_advice_to_gauge(RA_ADVICE_RAISE, &v));
        CHECK_INT(1, v);
}

/* Without PSI the reason says the stall is unknown; it never claims 0%. */
static void test_no_psi_says_unknown(void) {
        struct ra_disk_observed o = {};
        struct ra_disk_counters d = seq128;
        d.io_ticks_ms = 900;
        for (unsigned i = 0; i < 5; i++)
                ra_disk_observe_interval(&o, &d, d.read_sectors, &(struct ra_host_counters){}, false, 1.0, 4);
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_STR("sequential reads limited by readahead: requests average 135K at read_ahead_kb 128K, device busy "
                  "90%, readers' I/O stalls unknown (no PSI), no refaults or memory pressure; raise 128K -> 512K",
                  a.reason);
        d.io_ticks_ms = 100;
        o = (struct ra_disk_observed){};
        for (unsigned i = 0; i < 5; i++)
                ra_disk_observe_interval(&o, &d, d.read_sectors, &(struct ra_host_counters){}, false, 1.0, 4);
        a = advise_at(128, &o);
        CHECK_STR("requests at the readahead size (135K), but the device is busy 10% of the time, readers' I/O "
                  "stalls unknown (no PSI): readahead is not the limit",
                  a.reason);
}

/* A counter that jumps to 2^64-1, or back, is no reading. */
static void test_delta_refuses_jumps(void) {
        struct ra_disk_counters before = { .read_ios = 100, .read_sectors = 8000, .io_ticks_ms = 50 }, now = before, d;
        now.read_ios = 200;
        now.read_sectors = 16000;
        now.io_ticks_ms = 900;
        CHECK(ra_disk_delta(&now, &before, 1.0, &d));
        CHECK_U64(100, d.read_ios);
        CHECK_U64(8000, d.read_sectors);
        CHECK_U64(850, d.io_ticks_ms);
        now.read_sectors = UINT64_MAX;
        CHECK(!ra_disk_delta(&now, &before, 1.0, &d));
        CHECK_U64(0, d.read_sectors);
        CHECK_U64(0, d.read_ios);
        now.read_sectors = 7999; /* reset */
        CHECK(!ra_disk_delta(&now, &before, 1.0, &d));
        now.read_sectors = 16000;
        now.io_ticks_ms = 50 + 5000; /* busy 5 s in one */
        CHECK(!ra_disk_delta(&now, &before, 1.0, &d));

        struct ra_host_counters hb = { .majfaults = 10, .refault_file_pages = 10 }, hn = hb, h;
        hn.majfaults = 20;
        CHECK(ra_host_delta(&hn, &hb, 1.0, &h));
        CHECK_U64(10, h.majfaults);
        hn.refault_file_pages = UINT64_MAX;
        CHECK(!ra_host_delta(&hn, &hb, 1.0, &h));
        CHECK_U64(0, h.majfaults);
        CHECK_U64(0, h.refault_file_pages);
}

/* io_ticks a little over the interval (sampling jitter) is busy 100%. */
static void test_busy_at_most_all_the_time(void) {
        struct ra_disk_observed o = {};
        struct ra_disk_counters d = seq128;
        d.io_ticks_ms = 1600;
        ra_disk_observe_interval(&o, &d, d.read_sectors, &(struct ra_host_counters){}, true, 1.0, 4);
        struct ra_advice a = advise_at(128, &o);
        CHECK(a.busy <= 1.0);
        CHECK(a.busy >= 1.0);
}

/* One stream on the HDD model: 128K -> 512K -> 1280K (max_sectors_kb), then keep. */
static void test_rotating_raise_stops_at_max_sectors(void) {
        struct ra_advise_limits l = hdd;
        struct ra_disk_observed o;
        struct ra_advice a;
        struct ra_disk_counters d = seq128;
        l.rotational = true;
        observe(&o, 5, &seq128, &seq_host);
        l.read_ahead_kb = 128;
        ra_advise_disk(&o, &l, &a);
        CHECK_U64(512, a.suggested_kb);
        d.read_ios /= 4; /* 512K requests */
        observe(&o, 5, &d, &seq_host);
        l.read_ahead_kb = 512;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(1280, a.suggested_kb);
        d.read_ios = d.read_ios * 512 / 1280;
        observe(&o, 5, &d, &seq_host);
        l.read_ahead_kb = 1280;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "; but requests are split at max_sectors_kb 1280K already and a rotating disk gains "
                               "nothing from more of them in flight");
}

/* A window larger than max_sectors_kb reads in pieces of it: db_bench
 * readseq through mmap on the ssd model at 2M (max_sectors_kb 1280) read
 * requests of 873K on average, at the readahead size, not small reads. */
static void test_window_split_at_max_sectors_is_at_size(void) {
        struct ra_advise_limits l = hdd;
        struct ra_disk_observed o;
        struct ra_advice a;
        struct ra_disk_counters d = seq128;
        d.read_ios = d.read_ios * 135 / 873; /* requests of 873K, 15 MiB/s */
        observe(&o, 5, &d, &seq_host);
        l.read_ahead_kb = 2048;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(8192, a.suggested_kb);
        /* after a raise to 2M that bought nothing: keep, and say so */
        l.raised_from_kib_s = 15360;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "; but the last raise to 2M gained nothing: 15.0 MiB/s while reading against 15.0 "
                               "before it, so the device, not readahead, is the limit");
        /* pieces of 1M are the size: half of that is not */
        d.read_ios *= 2;
        observe(&o, 5, &d, &seq_host);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "readahead does not drive these reads");
}

/* bench/apps' HDD model, db_bench readseq with buffered reads: RocksDB's
 * own reads of 251K at 512K, 120 a second, the reader stalled 93% of the
 * time. On a rotating disk each costs a seek: raise (1M read the scan 3.4
 * times as fast); not on a disk that does not rotate, and not for the
 * readers' own 8K reads (readrandom). */
static void test_rotating_seeks_raise(void) {
        struct ra_advise_limits l = hdd;
        struct ra_disk_observed o;
        struct ra_advice a;
        struct ra_disk_counters d = { .read_ios = 120, .read_sectors = 120 * 502, .io_ticks_ms = 28 };
        struct ra_host_counters h = { .io_some_us = 930000 };
        observe(&o, 5, &d, &h);
        l.rotational = true;
        l.read_ahead_kb = 512;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(1280, a.suggested_kb);
        CHECK_STR("reads that seek on a rotating disk: requests average 251K under read_ahead_kb 512K, readers "
                  "stalled on I/O 93%, no refaults or memory pressure: a larger window makes fewer of them; "
                  "raise 512K -> 1280K",
                  a.reason);
        /* at max_sectors_kb: held there, as a stream is */
        l.read_ahead_kb = 1280;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "split at max_sectors_kb 1280K already and a rotating disk gains nothing from more "
                               "of them in flight");
        /* where a raise brought 512K: a stream opened before it reads at
         * the old window, and looks the same (k8s-tune: 140K at 512K) */
        l.read_ahead_kb = 512;
        l.raised_here = true;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_STR("requests average 251K under read_ahead_kb 512K, which a raise brought: files opened before it "
                  "still read at the value before, so no raise on these",
                  a.reason);
        l.raised_here = false;
        /* readers that do not stall: not the limit */
        struct ra_host_counters calm = { .io_some_us = 100000 };
        observe(&o, 5, &d, &calm);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "readahead does not drive these reads");
        /* without seeks: keep */
        observe(&o, 5, &d, &h);
        l.rotational = false;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "readahead does not drive these reads");
        /* the readers' own random 8K reads: keep */
        l.rotational = true;
        d.read_sectors = 120 * 16;
        observe(&o, 5, &d, &h);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_STR("requests average 8K against read_ahead_kb 512K: readahead does not drive these reads (random or "
                  "small reads)",
                  a.reason);
}

/* Lowered here by the last advice: a sequential raise is held. */
static void test_no_raise_back_after_lower(void) {
        struct ra_advise_limits l = hdd;
        struct ra_disk_observed o;
        struct ra_advice a;
        observe(&o, 5, &seq128, &seq_host);
        l.read_ahead_kb = 128;
        l.lowered_here = true;
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "; but the last advice lowered read_ahead_kb to 128K for thrashing or read-around: a "
                               "raise would bring that back");
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_sequential_raise);
        RUN(test_raise_without_gain_keeps);
        RUN(test_raise_held_by_maximum);
        RUN(test_sequential_not_limited);
        RUN(test_faults_lower);
        RUN(test_sequential_faults_are_not_read_around);
        RUN(test_thrashing_lower);
        RUN(test_random_rereads_not_thrashing);
        RUN(test_random_reads_keep);
        RUN(test_random_reads_with_foreign_faults);
        RUN(test_random_reads_with_few_foreign_faults);
        RUN(test_backward_scan_faults);
        RUN(test_fault_reads_split_by_segments);
        RUN(test_direct_no_signal);
        RUN(test_no_reads);
        RUN(test_attribution);
        RUN(test_gauge);
        RUN(test_no_psi_says_unknown);
        RUN(test_delta_refuses_jumps);
        RUN(test_busy_at_most_all_the_time);
        RUN(test_rotating_raise_stops_at_max_sectors);
        RUN(test_no_raise_back_after_lower);
        RUN(test_rotating_seeks_raise);
        RUN(test_window_split_at_max_sectors_is_at_size);
        TEST_MAIN_END;
}
