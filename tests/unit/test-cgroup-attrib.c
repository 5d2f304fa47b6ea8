/* SPDX-License-Identifier: MIT */
/* Attribution per cgroup: recorded memory.stat, io.stat and blkio texts in,
 * each cgroup's events split over the devices it read. The v1 texts are
 * this machine's (6.18, cgroup v1 memory and blkio), cut; the v2 ones are
 * a Debian 13 guest's format. */

#include <errno.h>
#include <math.h>

#include "advise.h"
#include "cgroup-attrib.h"
#include "test.h"

/* v1: the cgroup's own counters come before the total_ ones. */
static const char v1_memory_stat[] =
        "cache 11907072\nrss 10235904\nworkingset_refault_anon 0\n"
        "workingset_refault_file 830\npgpgin 62033\npgpgout 56665\npgfault 70898\npgmajfault 12\n"
        "total_workingset_refault_file 388669\ntotal_pgmajfault 8968\n";
static const char v2_memory_stat[] =
        "anon 1531904\nfile 331776\npgfault 70898\npgmajfault 41\n"
        "workingset_refault_anon 0\nworkingset_refault_file 2048\n"
        "workingset_activate_file 10\npgscan 9000\npgsteal 8192\npgsteal_kswapd 100\n";

static void test_memory_stat_v1(void) {
        struct ra_cgroup_mem m;
        CHECK_INT(0, ra_cgroup_mem_parse(v1_memory_stat, &m));
        CHECK_U64(12, m.majfaults);
        CHECK_U64(830, m.refault_file_pages); /* its own, not total_ */
        CHECK(!m.have_steal); /* v1 has no pgsteal; pgpgout is not one */
}

static void test_memory_stat_v2(void) {
        struct ra_cgroup_mem m;
        CHECK_INT(0, ra_cgroup_mem_parse(v2_memory_stat, &m));
        CHECK_U64(41, m.majfaults);
        CHECK_U64(2048, m.refault_file_pages);
        CHECK(m.have_steal);
        CHECK_U64(8192, m.steal_pages); /* pgsteal, not pgsteal_kswapd */
        CHECK_INT(-ENODATA, ra_cgroup_mem_parse("cache 1\nrss 2\n", &m));
}

static void test_io_stat_v2(void) {
        struct ra_cgroup_io io[4];
        size_t n = ra_cgroup_io_parse_v2("7:0 rbytes=1048576 wbytes=0 rios=8 wios=0 dbytes=0 dios=0\n"
                                         "8:16 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n",
                                         io, 4);
        CHECK_INT(2, (int) n);
        CHECK_INT(7, (int) io[0].major);
        CHECK_U64(1048576, io[0].read_bytes);
        CHECK_U64(8, io[0].read_ios);
        CHECK_INT(16, (int) io[1].minor);
        CHECK_U64(4096, io[1].read_bytes);
        /* bounded: a third device does not fit in one */
        CHECK_INT(1, (int) ra_cgroup_io_parse_v2("7:0 rbytes=1\n7:1 rbytes=2\n", io, 1));
}

static void test_blkio_v1(void) {
        struct ra_cgroup_io io[4];
        size_t n =
                ra_cgroup_io_parse_v1("7:3 Read 52428800\n7:3 Write 0\n7:3 Sync 52428800\n7:3 Async 0\n"
                                      "7:3 Discard 0\n7:3 Total 52428800\n7:4 Read 1024\nTotal 52429824\n",
                                      "7:3 Read 400\n7:3 Write 0\n7:4 Read 1\nTotal 401\n", io, 4);
        CHECK_INT(2, (int) n);
        CHECK_U64(52428800, io[0].read_bytes);
        CHECK_U64(400, io[0].read_ios);
        CHECK_U64(1024, io[1].read_bytes);
        CHECK_INT(0, (int) ra_cgroup_io_parse_v1("Total 0\n", NULL, io, 4));
}

/* The case: A reads alone in its cgroup, B thrashes in its own; the
 * host's refaults are B's, and only what no cgroup explains is shared. */
static void test_neighbour_refaults_go_to_their_reader(void) {
        /* devices: 0 = A, 1 = B; one second */
        struct ra_events per_dev[2] = {}, explained = {};
        const double a_reads[2] = { 15e6, 0 }, b_reads[2] = { 0, 40e6 };
        struct ra_cgroup_delta a = { .ev = { .majfaults = 0, .refault_pages = 0 } };
        struct ra_cgroup_delta b = { .ev = { .majfaults = 3, .refault_pages = 2400 } };
        CHECK(ra_attribute_cgroup(&a, a_reads, 2, per_dev, &explained));
        CHECK(ra_attribute_cgroup(&b, b_reads, 2, per_dev, &explained));
        /* a cgroup that read nothing (the shell around) explains nothing */
        struct ra_cgroup_delta idle = { .ev = { .refault_pages = 50 } };
        const double none[2] = { 0, 0 };
        CHECK(!ra_attribute_cgroup(&idle, none, 2, per_dev, &explained));

        struct ra_host_counters host = { .majfaults = 3,
                                         .refault_file_pages = 2500,
                                         .steal_file_pages = 4000 };
        struct ra_disk_counters da = { .read_ios = 114, .read_sectors = 29297 },
                                db = { .read_ios = 300, .read_sectors = 78125 };
        struct ra_observed oa = {}, ob = {};
        ra_observe_interval_cg(&oa, &da, da.read_sectors + db.read_sectors, &host, &per_dev[0], &explained,
                               true, 1, 4);
        ra_observe_interval_cg(&ob, &db, da.read_sectors + db.read_sectors, &host, &per_dev[1], &explained,
                               true, 1, 4);
        /* A: none of B's 2400; of the 100 no cgroup explains, its sector share (27%) */
        CHECK(fabs(oa.refault_bytes - 100 * 0.27273 * 4096) < 100);
        CHECK(fabs(oa.cgroup_refault_bytes) < 1e-9);
        /* B: its 2400 and the rest of the 100 */
        CHECK(fabs(ob.cgroup_refault_bytes - 2400 * 4096.0) < 1e-6);
        CHECK(fabs(ob.refault_bytes - (2400 + 100 * 0.72727) * 4096) < 100);
        /* v1 has no pgsteal per cgroup: reclaim is all the host's share */
        CHECK(fabs(oa.reclaim_bytes - 4000 * 0.27273 * 4096) < 1000);
        CHECK(fabs(oa.cgroup_reclaim_bytes) < 1e-9);
}

/* One cgroup reading two devices: its events by its bytes from each. */
static void test_split_by_reads(void) {
        struct ra_events per_dev[2] = {}, explained = {};
        const double reads[2] = { 3e6, 1e6 };
        struct ra_cgroup_delta d = { .ev = { .majfaults = 8, .refault_pages = 400, .steal_pages = 1000 },
                                     .have_steal = true };
        CHECK(ra_attribute_cgroup(&d, reads, 2, per_dev, &explained));
        CHECK(fabs(per_dev[0].majfaults - 6) < 1e-9);
        CHECK(fabs(per_dev[1].refault_pages - 100) < 1e-9);
        CHECK(fabs(per_dev[0].steal_pages - 750) < 1e-9);
        CHECK(fabs(explained.steal_pages - 1000) < 1e-9);
        /* more explained than the host counted (samples a moment apart): no negative rest */
        struct ra_events host = { .majfaults = 5, .refault_pages = 500, .steal_pages = 900 };
        struct ra_events rest = ra_events_unexplained(&host, &explained);
        CHECK(rest.majfaults == 0);
        CHECK(fabs(rest.refault_pages - 100) < 1e-9);
        CHECK(rest.steal_pages == 0);
}

/* A's reader beside B's thrashing: the host's memory stalls are B's. With
 * attribution A is raised; with the host's share alone it is not. */
static void test_neighbour_stall_does_not_hold_raise(void) {
        const struct ra_disk_counters seq = { .read_ios = 114, .read_merges = 10, .read_sectors = 30720 };
        const struct ra_host_counters host = { .refault_file_pages = 2400,
                                               .mem_some_us = 80000,
                                               .io_some_us = 520000 };
        const struct ra_events mine = {}, all = { .refault_pages = 2400 };
        struct ra_advise_limits l = { .read_ahead_kb = 128,
                                      .max_sectors_kb = 1280,
                                      .minimum_kb = 32,
                                      .maximum_kb = 131072,
                                      .memory_cap_kb = 32768,
                                      .page_kb = 4 };
        struct ra_observed o = {};
        struct ra_advice a;
        for (int i = 0; i < 5; i++) /* B read 3 x what A read */
                ra_observe_interval_cg(&o, &seq, 4 * seq.read_sectors, &host, &mine, &all, true, 1, 4);
        ra_advise(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(512, a.suggested_kb);
        o = (struct ra_observed){};
        for (int i = 0; i < 5; i++)
                ra_observe_interval(&o, &seq, 4 * seq.read_sectors, &host, true, 1, 4);
        ra_advise(&o, &l, &a);
        CHECK_STR("lower", ra_advice_to_string(a.kind)); /* the wrong advice, by share */
}

/* 32 streams in 48 MiB at 640K: requests at the size, few refaults, but its
 * own cgroup's reclaim takes most of what it reads: keep, not raise. */
static void test_own_reclaim_holds_raise(void) {
        const struct ra_disk_counters d = { .read_ios = 100, .read_sectors = 100 * 1280, .io_ticks_ms = 40 };
        const struct ra_host_counters host = { .refault_file_pages = 200, .steal_file_pages = 11000,
                                               .io_some_us = 830000 };
        const struct ra_events mine = { .refault_pages = 200, .steal_pages = 11000 }, all = mine;
        struct ra_advise_limits l = { .read_ahead_kb = 640, .max_sectors_kb = 1280, .minimum_kb = 32,
                                      .maximum_kb = 131072, .memory_cap_kb = 32768, .page_kb = 4 };
        struct ra_observed o = {};
        struct ra_advice a;
        for (int i = 0; i < 5; i++)
                ra_observe_interval_cg(&o, &d, d.read_sectors, &host, &mine, &all, true, 1, 4);
        ra_advise(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "but with waste");
        CHECK_CONTAINS(a.reason, "reclaim took 69% of it");
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_memory_stat_v1);
        RUN(test_memory_stat_v2);
        RUN(test_io_stat_v2);
        RUN(test_blkio_v1);
        RUN(test_neighbour_refaults_go_to_their_reader);
        RUN(test_split_by_reads);
        RUN(test_neighbour_stall_does_not_hold_raise);
        RUN(test_own_reclaim_holds_raise);
        TEST_MAIN_END;
}
