/* SPDX-License-Identifier: MIT */
/* advise for NFS mounts: a mount's READ counters in, advice out. The
 * counters are bench/nfs-benefit's runs (NFSv4.2, rsize 1M, one reader of
 * 4 KiB, 3 s, the QEMU lab) unless a case says otherwise. */

#include <string.h>

#include "advise-nfs.h"
#include "test.h"

/* A 4 GiB host: memory cap 4M; the default profile's Minimum= and Maximum=. */
static const struct ra_advise_limits host = {
        .minimum_kb = 32,
        .maximum_kb = 131072,
        .memory_cap_kb = 4096,
        .page_kb = 4,
};

/* Three one-second intervals, a third of the counters each. */
static struct ra_nfs_observed observe(const struct ra_nfs_read_counters *c, uint64_t rsize_kb) {
        struct ra_nfs_observed o = { .rsize_kb = rsize_kb };
        struct ra_nfs_read_counters third = {
                .normal_read_bytes = c->normal_read_bytes / 3,
                .direct_read_bytes = c->direct_read_bytes / 3,
                .server_read_bytes = c->server_read_bytes / 3,
                .read_ops = c->read_ops / 3,
                .read_transmissions = c->read_transmissions / 3,
                .read_rtt_ms = c->read_rtt_ms / 3,
                .read_execute_ms = c->read_execute_ms / 3,
        };
        for (int i = 0; i < 3; i++)
                ra_nfs_observe_interval(&o, &third, 1.0);
        return o;
}

static struct ra_advice advise_at(uint64_t kb, const struct ra_nfs_observed *o) {
        struct ra_advise_limits l = host;
        struct ra_advice a;
        l.read_ahead_kb = kb;
        ra_advise_nfs(o, &l, &a);
        return a;
}

/* 128K, 10 ms added RTT: 9.8 MiB/s in 128K READs of 18.4 ms. */
static const struct ra_nfs_read_counters ra128_rtt10 = {
        .normal_read_bytes = 30523392,
        .server_read_bytes = 30785536,
        .read_ops = 237,
        .read_transmissions = 237,
        .read_rtt_ms = 4363,
        .read_execute_ms = 5003,
};

static void test_window_limited_raise(void) {
        struct ra_nfs_observed o = observe(&ra128_rtt10, 1024);
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(512, a.suggested_kb);
        CHECK_STR("sequential reads limited by the readahead window: 9.8 MiB/s x 18.4 ms RTT = 184K in "
                  "flight, 144% "
                  "of read_ahead_kb 128K (READs average 127K, rsize 1M); raise 128K -> 512K",
                  a.reason);
        CHECK(a.in_flight_kb > 184 && a.in_flight_kb < 185);
}

/* 4M, no added delay: 40 MiB/s, 1M READs of 49 ms (the emulated CPU is the
 * limit): half the window in flight. */
static void test_at_profile_value_keep(void) {
        static const struct ra_nfs_read_counters c = {
                .normal_read_bytes = 120987648,
                .server_read_bytes = 125648896,
                .read_ops = 123,
                .read_transmissions = 123,
                .read_rtt_ms = 6022,
                .read_execute_ms = 7297,
        };
        struct ra_nfs_observed o = observe(&c, 1024);
        struct ra_advice a = advise_at(4096, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_U64(4096, a.suggested_kb);
        CHECK_STR("39.9 MiB/s x 49.0 ms RTT = 2002K in flight, 49% of read_ahead_kb 4M (READs average 998K, "
                  "rsize "
                  "1M): the window is not the limit",
                  a.reason);
}

/* The raise stops at the host's memory cap. */
static void test_raise_held_by_memory_cap(void) {
        struct ra_nfs_observed o = observe(&ra128_rtt10, 1024);
        struct ra_advise_limits l = host;
        struct ra_advice a;
        l.read_ahead_kb = 2048;
        ra_advise_nfs(&o, &l, &a); /* the same counters: 9% in flight, no raise */
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        l.read_ahead_kb = 64;
        l.memory_cap_kb = 128;
        ra_advise_nfs(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(128, a.suggested_kb);
        CHECK_SUFFIX(a.reason, "; raise 64K -> 128K, held by the host's memory cap");
        l.read_ahead_kb = 128;
        ra_advise_nfs(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, "; but the host's memory cap is 128K already");
}

/* Not measured: an application reading 2 MiB/s from a 15M window (AKS's
 * 15380, amazon-ec2-utils' 15360), 1M READs of 20 ms: 40K in flight. */
static const struct ra_nfs_read_counters slow_reader = {
        .normal_read_bytes = 6291456,
        .server_read_bytes = 6291456,
        .read_ops = 6,
        .read_transmissions = 6,
        .read_rtt_ms = 120,
        .read_execute_ms = 126,
};

static void test_slow_reader_lower_to_four_rsize(void) {
        struct ra_nfs_observed o = observe(&slow_reader, 1024);
        struct ra_advise_limits l = host;
        struct ra_advice a;
        l.read_ahead_kb = 15360;
        l.memory_cap_kb = 0;
        ra_advise_nfs(&o, &l, &a);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(4096, a.suggested_kb);
        CHECK_STR("most of the window waits for the reader: 2.0 MiB/s x 20.0 ms RTT = 41K in flight, 0% of "
                  "read_ahead_kb 15M (READs average 1024K, rsize 1M); lower 15M -> 4M, held by max(1M, 4 x rsize)",
                  a.reason);
        l.read_ahead_kb = 4096; /* max(1M, 4 x rsize): never lowered below */
        ra_advise_nfs(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, ": the reader is the limit, and the window is not above max(1M, 4 x rsize)");
        o.rsize_kb = 0; /* rsize unknown: no floor to lower to */
        l.read_ahead_kb = 15360;
        ra_advise_nfs(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "rsize unknown");
}

/* Case (e) of vm-nfs-advise on the slower lab machine: 16M at rsize 512K
 * with 10 ms added RTT, 53.9 MiB/s in 512K READs of 89.8 ms: 30% of the
 * window in flight. A quarter of it (4M) is still above the floor: lower.
 * 2M, the floor itself, is kept with the same counters, and so is 4M at
 * rsize 1M (not 4 x its floor of 4M). */
static const struct ra_nfs_read_counters large_window = {
        .normal_read_bytes = 169554739,
        .server_read_bytes = 169554739,
        .read_ops = 324,
        .read_transmissions = 324,
        .read_rtt_ms = 29095,
        .read_execute_ms = 29500,
};

static void test_large_window_lower(void) {
        struct ra_nfs_observed o = observe(&large_window, 512);
        struct ra_advice a = advise_at(16384, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(4096, a.suggested_kb);
        CHECK_STR("under half of a window of 4 x max(1M, 4 x rsize) or more is in flight: 53.9 MiB/s x 89.8 ms "
                  "RTT = 4956K in flight, 30% of read_ahead_kb 16M (READs average 511K, rsize 512K); lower 16M -> "
                  "4M",
                  a.reason);
        a = advise_at(8192, &o); /* 8M: 4 x 2M, 60% in flight: kept */
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        o = observe(&large_window, 1024);
        a = advise_at(16384, &o); /* rsize 1M: 16M is 4 x 4M */
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(4096, a.suggested_kb);
        a = advise_at(15360, &o); /* under 4 x 4M: kept */
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, ": the window is not the limit");
}

/* rsize 32K: the floor is 1M, not 4 x rsize (128K); a slow reader's 1M
 * window is kept, 2M lowered to it. */
static void test_floor_one_mib(void) {
        struct ra_nfs_observed o = observe(&slow_reader, 32);
        struct ra_advice a = advise_at(1024, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_SUFFIX(a.reason, ": the reader is the limit, and the window is not above max(1M, 4 x rsize)");
        a = advise_at(2048, &o);
        CHECK_STR("lower", ra_advice_to_string(a.kind));
        CHECK_U64(1024, a.suggested_kb);
        CHECK_SUFFIX(a.reason, "; lower 2M -> 1M, held by max(1M, 4 x rsize)");
}

static void test_idle_and_small(void) {
        struct ra_nfs_observed o = { .seconds = 5, .rsize_kb = 1024 };
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("no signal", ra_advice_to_string(a.kind));
        CHECK_U64(128, a.suggested_kb);
        CHECK_STR("no NFS reads in 5 s", a.reason);
        struct ra_nfs_read_counters c = { .normal_read_bytes = 4096,
                                          .server_read_bytes = 131072,
                                          .read_ops = 1,
                                          .read_transmissions = 1,
                                          .read_rtt_ms = 18 };
        o = observe(&c, 1024);
        a = advise_at(128, &o);
        CHECK_STR("no signal", ra_advice_to_string(a.kind));
        CHECK_STR("only 128K read from the server in 3 s", a.reason);
}

static void test_direct_no_signal(void) {
        struct ra_nfs_read_counters c = { .direct_read_bytes = 67108864,
                                          .server_read_bytes = 67108864,
                                          .read_ops = 64,
                                          .read_transmissions = 64,
                                          .read_rtt_ms = 1280 };
        struct ra_nfs_observed o = observe(&c, 1024);
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("no signal", ra_advice_to_string(a.kind));
        CHECK_STR("100% of the reads bypass the page cache (O_DIRECT): readahead plays no part", a.reason);
}

/* The window is in flight, but READs go out twice: a lossy network. */
static void test_retransmits_keep(void) {
        struct ra_nfs_read_counters c = ra128_rtt10;
        c.read_transmissions = 243;
        struct ra_nfs_observed o = observe(&c, 1024);
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, ", 2.5% retransmitted)");
        CHECK_SUFFIX(a.reason, "but READs are retransmitted: the network, not readahead, is the limit");
}

/* Intervals without READs count in the window, not in the throughput the
 * window is judged by: a reader busy one second of three. */
static void test_read_seconds(void) {
        struct ra_nfs_observed o = { .rsize_kb = 1024 };
        struct ra_nfs_read_counters none = {};
        ra_nfs_observe_interval(&o, &none, 1.0);
        ra_nfs_observe_interval(&o, &ra128_rtt10, 1.0);
        ra_nfs_observe_interval(&o, &none, 1.0);
        CHECK(o.seconds == 3.0);
        CHECK(o.read_seconds == 1.0);
        struct ra_advice a = advise_at(1024, &o);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "29.4 MiB/s x 18.4 ms RTT = 553K in flight, 54% of read_ahead_kb 1M");
}

/* Issue 34: a sum of two 64-bit counters wrapped, and "156% of the reads
 * bypass the page cache" was the advice. In doubles: 60%, no bypass. */
static void test_direct_share_no_wrap(void) {
        static const struct ra_nfs_read_counters c = {
                .normal_read_bytes = UINT64_C(1) << 63,
                .direct_read_bytes = (UINT64_C(1) << 63) + (UINT64_C(1) << 62),
                .server_read_bytes = 30785536,
                .read_ops = 237,
                .read_transmissions = 237,
                .read_rtt_ms = 4363,
        };
        struct ra_nfs_observed o = { .seconds = 3, .read_seconds = 3, .read = c, .rsize_kb = 1024 };
        struct ra_advice a = advise_at(128, &o);
        CHECK(a.direct_share > 0.59 && a.direct_share < 0.61);
        CHECK(!strstr(a.reason, "bypass"));
        CHECK_STR("raise", ra_advice_to_string(a.kind));
}

/* Issue 34: an entry without a READ line is no READ counters, not no reads. */
static void test_no_read_counters(void) {
        struct ra_nfs_observed o = { .seconds = 3, .no_read_counters = true };
        struct ra_advice a = advise_at(128, &o);
        CHECK_STR("no signal", ra_advice_to_string(a.kind));
        CHECK_STR("no READ counters: the mount's entry in mountstats has no READ line, or a malformed one",
                  a.reason);
        o.no_read_counters = false;
        a = advise_at(128, &o);
        CHECK_STR("no NFS reads in 3 s", a.reason);
}

/* Issue 34: 2^64-1 bytes in a second (4.3e12 MiB/s) was taken as evidence. */
static void test_delta_plausible(void) {
        struct ra_nfs_read_counters d = ra128_rtt10;
        CHECK(ra_nfs_delta_plausible(&d, 1));
        d.server_read_bytes = UINT64_MAX;
        CHECK(!ra_nfs_delta_plausible(&d, 1));
        d = ra128_rtt10;
        d.read_ops = UINT64_C(1) << 29; /* more READs than a second holds */
        CHECK(!ra_nfs_delta_plausible(&d, 1));
        CHECK(ra_nfs_delta_plausible(&d, 2));
        d = ra128_rtt10;
        d.read_rtt_ms = UINT64_MAX;
        CHECK(!ra_nfs_delta_plausible(&d, 1));
        d = (struct ra_nfs_read_counters){};
        CHECK(ra_nfs_delta_plausible(&d, 0));
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_window_limited_raise);
        RUN(test_at_profile_value_keep);
        RUN(test_raise_held_by_memory_cap);
        RUN(test_slow_reader_lower_to_four_rsize);
        RUN(test_large_window_lower);
        RUN(test_floor_one_mib);
        RUN(test_idle_and_small);
        RUN(test_direct_no_signal);
        RUN(test_retransmits_keep);
        RUN(test_read_seconds);
        RUN(test_direct_share_no_wrap);
        RUN(test_no_read_counters);
        RUN(test_delta_plausible);
        TEST_MAIN_END;
}
