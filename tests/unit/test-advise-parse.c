/* SPDX-License-Identifier: MIT */
/* The /proc and cgroup texts advise samples (advise-parse.h), parsed. The
 * /proc texts and the v1 cgroup ones are this machine's (6.18, cgroup v1
 * memory and blkio), cut; the v2 ones are a Debian 13 guest's format. */

#include <errno.h>

#include "advise-parse.h"
#include "test.h"

/* A parser called on a string literal's text, without its NUL. */
#define PARSE(fn, text, ...) fn(text, sizeof(text) - 1, __VA_ARGS__)
/* A literal and its length, as arguments. */
#define LIT(text) text, sizeof(text) - 1

/* ---- /proc/diskstats -------------------------------------------------------- */

/* 6.18: 20 fields (discards and flushes after the 14 of 4.x). */
static const char diskstats[] =
        "   7       0 loop0 77053 1992 32201296 54830 67 1204 10240 17 0 16604 54854 8 0 16777216 0 16 5\n"
        " 259       0 nvme0n1 1210 33 92414 201 24 0 336 12 0 240 214 0 0 0 0 0 0\n"
        "   8       0 sda 18446744073709551615 0 4 5 0 0 0 0 2 6 7\n";

static void test_diskstats(void) {
        struct ra_diskstats_line d;
        size_t pos = 0;

        CHECK(ra_diskstats_next(diskstats, sizeof(diskstats) - 1, &pos, &d));
        CHECK_INT(7, (int) d.major);
        CHECK_INT(0, (int) d.minor);
        CHECK_STR("loop0", d.name);
        CHECK_U64(77053, d.c.read_ios);
        CHECK_U64(1992, d.c.read_merges);
        CHECK_U64(32201296, d.c.read_sectors);
        CHECK_U64(54830, d.c.read_ticks_ms);
        CHECK_U64(16604, d.c.io_ticks_ms); /* the tenth number, not a discard's */
        CHECK(ra_diskstats_next(diskstats, sizeof(diskstats) - 1, &pos, &d));
        CHECK_INT(259, (int) d.major);
        CHECK_STR("nvme0n1", d.name);
        CHECK_U64(92414, d.c.read_sectors);
        CHECK_U64(240, d.c.io_ticks_ms);
        /* the kernel's 4.x format, 14 fields; 2^64-1 is a number, judged later */
        CHECK(ra_diskstats_next(diskstats, sizeof(diskstats) - 1, &pos, &d));
        CHECK_STR("sda", d.name);
        CHECK_U64(UINT64_MAX, d.c.read_ios);
        CHECK_U64(6, d.c.io_ticks_ms);
        CHECK(!ra_diskstats_next(diskstats, sizeof(diskstats) - 1, &pos, &d));
        CHECK_U64(sizeof(diskstats) - 1, pos);
        CHECK(!ra_diskstats_next(diskstats, sizeof(diskstats) - 1, &pos, &d)); /* and stays there */
}

/* A line that is not one is skipped, the next one read. */
static void test_diskstats_malformed(void) {
        static const char text[] =
                "   8 0 sda 1 2 3 4 5 6 7 8 9\n"                      /* nine numbers */
                "   8 1 sda1 1 2 3 4 5 6 7 8 9 -1\n"                  /* a sign */
                "   8 2 sda2 1 2 3 4 5 6 7 8 9 18446744073709551616\n" /* beyond 64 bits */
                "   8 3 sda3 1 2 3 4 5 6 7 8 9 +1\n"
                "   4294967296 0 big 1 2 3 4 5 6 7 8 9 10\n"            /* a major beyond 32 bits */
                "   8 4 a123456789012345678901234567890123456789012345678901234567890123 1 2 3 4 5 6 7 8 9 10\n"
                "   8 5 a12345678901234567890123456789012345678901234567890123456789012 1 2 3 4 5 6 7 8 9 10";
        struct ra_diskstats_line d;
        size_t pos = 0;

        CHECK(ra_diskstats_next(text, sizeof(text) - 1, &pos, &d));
        CHECK_INT(5, (int) d.minor); /* a 63-byte name fits, 64 do not */
        CHECK_U64(10, d.c.io_ticks_ms);
        CHECK_U64(sizeof(text) - 1, pos); /* the last line has no newline */
        CHECK(!ra_diskstats_next(text, sizeof(text) - 1, &pos, &d));
        /* the length is the text's end: no NUL needed, none read past */
        pos = 0;
        CHECK(!ra_diskstats_next(text, 28, &pos, &d));
        pos = 0;
        CHECK(!ra_diskstats_next("", 0, &pos, &d));
}

/* ---- /proc/vmstat ------------------------------------------------------------ */

static void test_vmstat(void) {
        static const char text[] = "nr_free_pages 123\nworkingset_refault_anon 9\nworkingset_refault_file 490396\n"
                                   "nr_foll_pin_acquired 172652\nnr_foll_pin_released 172652\n"
                                   "pgmajfault 30106\npgsteal_kswapd 1\npgsteal_file 1317806\n";
        struct ra_host_counters h = { .majfaults = 99, .mem_some_us = 5, .io_some_us = 6 };

        CHECK_INT(4, (int) PARSE(ra_vmstat_parse, text, &h));
        CHECK_U64(30106, h.majfaults);
        CHECK_U64(490396, h.refault_file_pages);
        CHECK_U64(1317806, h.steal_file_pages);
        CHECK_U64(172652, h.pinned_pages);
        CHECK_U64(5, h.mem_some_us); /* PSI's are not vmstat's */
        CHECK_U64(6, h.io_some_us);
}

/* An old kernel's vmstat (no pins before 5.8, no _file before 5.9): 0. */
static void test_vmstat_missing_keys(void) {
        struct ra_host_counters h = { .pinned_pages = 7 };

        CHECK_INT(1, (int) PARSE(ra_vmstat_parse, "pgmajfault 5\nworkingset_refault 8\n", &h));
        CHECK_U64(5, h.majfaults);
        CHECK_U64(0, h.refault_file_pages);
        CHECK_U64(0, h.pinned_pages);
        /* the last of a key counts; a malformed one is no line */
        CHECK_INT(1, (int) PARSE(ra_vmstat_parse, "pgmajfault 5\npgmajfault 6\npgmajfault x\npgmajfault\n", &h));
        CHECK_U64(6, h.majfaults);
        CHECK_INT(0, (int) PARSE(ra_vmstat_parse, "pgmajfault -1\npgmajfaults 3\n", &h));
        CHECK_U64(0, h.majfaults);
}

/* ---- /proc/pressure ------------------------------------------------------------- */

static void test_psi(void) {
        uint64_t us = 0;

        CHECK_INT(0, PARSE(ra_psi_some_total_us,
                           "some avg10=5.52 avg60=32.29 avg300=35.12 total=239130760\n"
                           "full avg10=0.00 avg60=0.00 avg300=0.90 total=19066508\n",
                           &us));
        CHECK_U64(239130760, us);
        /* "full" first, as no kernel writes it: still some's */
        CHECK_INT(0, PARSE(ra_psi_some_total_us, "full total=1\nsome avg10=0.00 total=2\n", &us));
        CHECK_U64(2, us);
        /* /proc/pressure/cpu before 5.13 has no "full"; a some without total= is no total */
        CHECK_INT(-ENODATA, PARSE(ra_psi_some_total_us, "some avg10=0.00 avg60=0.00 avg300=0.00\n", &us));
        CHECK_INT(-ENODATA, PARSE(ra_psi_some_total_us, "full avg10=0.00 total=5\n", &us));
        CHECK_INT(-ENODATA, PARSE(ra_psi_some_total_us, "some total=-5\n", &us));
        CHECK_INT(-ENODATA, PARSE(ra_psi_some_total_us, "somewhat total=5\n", &us));
        CHECK_INT(-ENODATA, ra_psi_some_total_us("", 0, &us));
        CHECK_U64(2, us); /* untouched */
}

/* ---- /proc/PID/cgroup ------------------------------------------------------------- */

static void test_proc_cgroup(void) {
        static const char text[] = "9:name=systemd:/\n8:pids:/\n7:blkio:/\n"
                                   "4:memory:/process_api/a5c2d6a21618321f058f8488b4db547d\n"
                                   "2:cpu,cpuacct:/user.slice/a:b\n0::/\n";
        char path[64];

        CHECK_INT(0, PARSE(ra_proc_cgroup_path, text, "blkio", path, sizeof(path)));
        CHECK_STR("", path); /* the root */
        CHECK_INT(0, PARSE(ra_proc_cgroup_path, text, "memory", path, sizeof(path)));
        CHECK_STR("/process_api/a5c2d6a21618321f058f8488b4db547d", path);
        /* one of a list, and a path with a colon */
        CHECK_INT(0, PARSE(ra_proc_cgroup_path, text, "cpuacct", path, sizeof(path)));
        CHECK_STR("/user.slice/a:b", path);
        CHECK_INT(-ENOENT, PARSE(ra_proc_cgroup_path, text, "io", path, sizeof(path)));
        CHECK_INT(-ENOENT, PARSE(ra_proc_cgroup_path, text, "cpuac", path, sizeof(path)));
        CHECK_INT(-ENOENT, PARSE(ra_proc_cgroup_path, "7:blkio\n", "blkio", path, sizeof(path)));
        /* a NUL in the path: no C string names that cgroup (the fuzzer's find) */
        CHECK_INT(0, PARSE(ra_proc_cgroup_path, "7:blkio:/a\0b\n7:blkio:/c\n", "blkio", path, sizeof(path)));
        CHECK_STR("/c", path);
        /* a path that does not fit is not cut into another cgroup's */
        CHECK_INT(-ENAMETOOLONG, PARSE(ra_proc_cgroup_path, text, "memory", path, 45));
        CHECK_INT(0, PARSE(ra_proc_cgroup_path, text, "memory", path, 46));
}

/* ---- /proc/PID/stat ------------------------------------------------------------- */

static void test_proc_stat(void) {
        struct ra_proc_stat st;

        /* a process of this machine's, with 3 major faults */
        CHECK_INT(0, PARSE(ra_proc_stat_parse,
                           "6948 (cat) R 6944 6944 6084 0 -1 4194304 99 0 3 0 0 0 0 0 20 0 1 0 1274201\n", &st));
        CHECK_U64(3, st.majfaults);
        CHECK_INT(0, st.kernel_thread);
        /* kthreadd: PF_KTHREAD (0x00200000) in its flags */
        CHECK_INT(0, PARSE(ra_proc_stat_parse, "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 6\n",
                           &st));
        CHECK_U64(0, st.majfaults);
        CHECK_INT(1, st.kernel_thread);
        /* a name that looks like fields: only the last ')' ends it */
        CHECK_INT(0, PARSE(ra_proc_stat_parse, "7 (a) R 1 2 3 4 5 6 7 8 9\n) S 1 1 1 0 -1 0 5 0 42 0 0\n", &st));
        CHECK_U64(42, st.majfaults);
        /* cut short, no name, a field not a number */
        CHECK_INT(-EINVAL, PARSE(ra_proc_stat_parse, "7 (a) S 1 1 1 0 -1 0 5 0\n", &st));
        CHECK_INT(-EINVAL, PARSE(ra_proc_stat_parse, "7 a S 1 1 1 0 -1 0 5 0 42 0 0\n", &st));
        CHECK_INT(-EINVAL, PARSE(ra_proc_stat_parse, "7 (a) S 1 1 1 0 -1 0 5 0 4x2 0 0\n", &st));
        CHECK_INT(-EINVAL, PARSE(ra_proc_stat_parse, "7 (a) S 1 1 1 0 -1 0 5 0 18446744073709551616 0\n", &st));
}

/* ---- memory.stat, io.stat, blkio -------------------------------------------------- */

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
        CHECK_INT(0, ra_cgroup_mem_parse(v1_memory_stat, strlen(v1_memory_stat), &m));
        CHECK_U64(12, m.majfaults);
        CHECK_U64(830, m.refault_file_pages); /* its own, not total_ */
        CHECK(!m.have_steal); /* v1 has no pgsteal; pgpgout is not one */
}

static void test_memory_stat_v2(void) {
        struct ra_cgroup_mem m;
        CHECK_INT(0, ra_cgroup_mem_parse(v2_memory_stat, strlen(v2_memory_stat), &m));
        CHECK_U64(41, m.majfaults);
        CHECK_U64(2048, m.refault_file_pages);
        CHECK(m.have_steal);
        CHECK_U64(8192, m.steal_pages); /* pgsteal, not pgsteal_kswapd */
        CHECK_INT(-ENODATA, PARSE(ra_cgroup_mem_parse, "cache 1\nrss 2\n", &m));
}

static void test_io_stat_v2(void) {
        struct ra_cgroup_io io[4];
        size_t n = PARSE(ra_cgroup_io_parse_v2,
                         "7:0 rbytes=1048576 wbytes=0 rios=8 wios=0 dbytes=0 dios=0\n"
                         "8:16 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n",
                         io, 4);
        CHECK_INT(2, (int) n);
        CHECK_INT(7, (int) io[0].major);
        CHECK_U64(1048576, io[0].read_bytes);
        CHECK_U64(8, io[0].read_ios);
        CHECK_INT(16, (int) io[1].minor);
        CHECK_U64(4096, io[1].read_bytes);
        /* bounded: a third device does not fit in one */
        CHECK_INT(1, (int) PARSE(ra_cgroup_io_parse_v2, "7:0 rbytes=1\n7:1 rbytes=2\n", io, 1));
}

static void test_blkio_v1(void) {
        struct ra_cgroup_io io[4];
        static const char bytes[] = "7:3 Read 52428800\n7:3 Write 0\n7:3 Sync 52428800\n7:3 Async 0\n"
                                    "7:3 Discard 0\n7:3 Total 52428800\n7:4 Read 1024\nTotal 52429824\n";
        static const char ios[] = "7:3 Read 400\n7:3 Write 0\n7:4 Read 1\nTotal 401\n";
        size_t n = ra_cgroup_io_parse_v1(bytes, strlen(bytes), ios, strlen(ios), io, 4);
        CHECK_INT(2, (int) n);
        CHECK_U64(52428800, io[0].read_bytes);
        CHECK_U64(400, io[0].read_ios);
        CHECK_U64(1024, io[1].read_bytes);
        CHECK_INT(0, (int) ra_cgroup_io_parse_v1(LIT("Total 0\n"), NULL, 0, io, 4));
}

/* The bounds and the malformed: what no kernel writes is no number. */
static void test_cgroup_malformed(void) {
        struct ra_cgroup_mem m;
        struct ra_cgroup_io io[2];

        CHECK_INT(-ENODATA, PARSE(ra_cgroup_mem_parse, "pgmajfault -1\npgsteal 1x\n", &m));
        CHECK_INT(0, PARSE(ra_cgroup_mem_parse, "pgmajfault 18446744073709551615\n", &m));
        CHECK_U64(UINT64_MAX, m.majfaults);
        CHECK_INT(-ENODATA, PARSE(ra_cgroup_mem_parse, "pgmajfault 18446744073709551616\n", &m));
        /* a field that is not a number is left, the others read */
        CHECK_INT(1, (int) PARSE(ra_cgroup_io_parse_v2, "8:0 rbytes=x rios=3 rbytes=\n8:x rbytes=1\n", io, 2));
        CHECK_U64(0, io[0].read_bytes);
        CHECK_U64(3, io[0].read_ios);
        /* a later line of a device updates it */
        CHECK_INT(1, (int) PARSE(ra_cgroup_io_parse_v2, "8:0 rbytes=1\n8:0 rbytes=2\n", io, 2));
        CHECK_U64(2, io[0].read_bytes);
        CHECK_INT(0, (int) PARSE(ra_cgroup_io_parse_v2, "4294967296:0 rbytes=1\n", io, 2));
        CHECK_INT(0, (int) ra_cgroup_io_parse_v1(LIT("8:0 Read -1\n8:0 Read\n"), NULL, 0, io, 2));
        /* ios alone, and the bound shared by both files */
        CHECK_INT(2, (int) ra_cgroup_io_parse_v1(LIT("8:0 Read 10\n"), LIT("8:1 Read 2\n8:2 Read 3\n"), io, 2));
        CHECK_U64(10, io[0].read_bytes);
        CHECK_U64(2, io[1].read_ios);
}

/* ---- cgroup.controllers, cgroup.procs ---------------------------------------------- */

static void test_cgroup_controllers(void) {
        static const char text[] = "cpuset cpu io memory hugetlb pids rdma misc\n";

        CHECK(PARSE(ra_cgroup_controllers_has, text, "memory"));
        CHECK(PARSE(ra_cgroup_controllers_has, text, "io"));
        CHECK(PARSE(ra_cgroup_controllers_has, text, "misc"));
        CHECK(!PARSE(ra_cgroup_controllers_has, text, "blkio"));
        CHECK(!PARSE(ra_cgroup_controllers_has, text, "mem"));
        CHECK(!ra_cgroup_controllers_has(text, 19, "memory")); /* "cpuset cpu io memor" */
        CHECK(!ra_cgroup_controllers_has("", 0, "io"));
}

static void test_cgroup_procs(void) {
        unsigned pids[4];

        CHECK_INT(3, (int) PARSE(ra_cgroup_procs_parse, "1\n4242\n\n4294967295\n", pids, 4));
        CHECK_INT(1, (int) pids[0]);
        CHECK_INT(4242, (int) pids[1]);
        CHECK_U64(4294967295u, pids[2]);
        /* the first max lines that are not empty, a bad one among them */
        CHECK_INT(2, (int) PARSE(ra_cgroup_procs_parse, "\n1\n0\nx\n2\n3\n4\n5\n", pids, 4));
        CHECK_INT(1, (int) pids[0]);
        CHECK_INT(2, (int) pids[1]);
        CHECK_INT(0, (int) PARSE(ra_cgroup_procs_parse, "-1\n12 13\n4294967296\n", pids, 4));
        CHECK_INT(0, (int) PARSE(ra_cgroup_procs_parse, "1\n", pids, 0));
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_diskstats);
        RUN(test_diskstats_malformed);
        RUN(test_vmstat);
        RUN(test_vmstat_missing_keys);
        RUN(test_psi);
        RUN(test_proc_cgroup);
        RUN(test_proc_stat);
        RUN(test_memory_stat_v1);
        RUN(test_memory_stat_v2);
        RUN(test_io_stat_v2);
        RUN(test_blkio_v1);
        RUN(test_cgroup_malformed);
        RUN(test_cgroup_controllers);
        RUN(test_cgroup_procs);
        TEST_MAIN_END;
}
