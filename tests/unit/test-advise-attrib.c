/* SPDX-License-Identifier: MIT */
/* Attribution per cgroup: each cgroup's events split over the devices it
 * read (the texts they come from: test-advise-parse.c). */

#include <math.h>

#include "advise-disk.h"
#include "test.h"

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
        struct ra_disk_observed oa = {}, ob = {};
        ra_disk_observe_interval_cg(&oa, &da, da.read_sectors + db.read_sectors, &host, &per_dev[0], &explained,
                               true, 1, 4);
        ra_disk_observe_interval_cg(&ob, &db, da.read_sectors + db.read_sectors, &host, &per_dev[1], &explained,
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

/* Two processes in one memory cgroup, each in a blkio cgroup of its own
 * (v1): A reads device 0 sequentially, B faults on device 1. Split by the
 * memory cgroup's reads, B's faults would go mostly to A; each process's
 * own faults go by its own group's reads. */
static void test_process_faults_go_by_their_group(void) {
        struct ra_events per_dev[3] = {}, explained = {};
        const double group_b[3] = { 0, 20e6, 0 };
        CHECK(ra_attribute_process(110, group_b, 3, per_dev, &explained));
        /* A faulted nothing; a process whose group read nothing explains nothing */
        CHECK(!ra_attribute_process(4, (const double[3]){ 0, 0, 0 }, 3, per_dev, &explained));
        CHECK(fabs(per_dev[0].majfaults) < 1e-9);
        CHECK(fabs(per_dev[1].majfaults - 110) < 1e-9);
        CHECK(fabs(per_dev[1].process_majfaults - 110) < 1e-9);
        CHECK(fabs(explained.majfaults - 110) < 1e-9 && fabs(explained.process_majfaults - 110) < 1e-9);
        /* the memory cgroup's refaults still go by all its reads */
        struct ra_cgroup_delta memcg = { .ev = { .refault_pages = 800 } };
        const double all[3] = { 60e6, 20e6, 0 };
        CHECK(ra_attribute_cgroup(&memcg, all, 3, per_dev, &explained));
        CHECK(fabs(per_dev[0].refault_pages - 600) < 1e-9);
        CHECK(fabs(per_dev[0].process_majfaults) < 1e-9);
        /* what no process explains is the host's, and none of it per process */
        struct ra_events host = { .majfaults = 130, .process_majfaults = 0 };
        struct ra_events rest = ra_events_unexplained(&host, &explained);
        CHECK(fabs(rest.majfaults - 20) < 1e-9 && rest.process_majfaults == 0);
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
        struct ra_disk_observed o = {};
        struct ra_advice a;
        for (int i = 0; i < 5; i++) /* B read 3 x what A read */
                ra_disk_observe_interval_cg(&o, &seq, 4 * seq.read_sectors, &host, &mine, &all, true, 1, 4);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("raise", ra_advice_to_string(a.kind));
        CHECK_U64(512, a.suggested_kb);
        o = (struct ra_disk_observed){};
        for (int i = 0; i < 5; i++)
                ra_disk_observe_interval(&o, &seq, 4 * seq.read_sectors, &host, true, 1, 4);
        ra_advise_disk(&o, &l, &a);
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
        struct ra_disk_observed o = {};
        struct ra_advice a;
        for (int i = 0; i < 5; i++)
                ra_disk_observe_interval_cg(&o, &d, d.read_sectors, &host, &mine, &all, true, 1, 4);
        ra_advise_disk(&o, &l, &a);
        CHECK_STR("keep", ra_advice_to_string(a.kind));
        CHECK_CONTAINS(a.reason, "but with waste");
        CHECK_CONTAINS(a.reason, "reclaim took 69% of it");
}

/* Issue 34: a cgroup counter that jumps to 2^64-1 is no evidence. */
static void test_cgroup_plausible(void) {
        struct ra_events ev = { .majfaults = 100, .refault_pages = 2400, .steal_pages = 11000 };
        CHECK(ra_cgroup_events_plausible(&ev, 1));
        ev.refault_pages = 18446744073709551615.0;
        CHECK(!ra_cgroup_events_plausible(&ev, 1));
        ev.refault_pages = 2e9; /* 7.5 TiB of pages in a second */
        CHECK(!ra_cgroup_events_plausible(&ev, 1));
        CHECK(ra_cgroup_events_plausible(&ev, 2));
        CHECK(ra_cgroup_reads_plausible(1e9, 1));
        CHECK(!ra_cgroup_reads_plausible(18446744073709551615.0, 1));
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_neighbour_refaults_go_to_their_reader);
        RUN(test_split_by_reads);
        RUN(test_process_faults_go_by_their_group);
        RUN(test_neighbour_stall_does_not_hold_raise);
        RUN(test_own_reclaim_holds_raise);
        RUN(test_cgroup_plausible);
        TEST_MAIN_END;
}
