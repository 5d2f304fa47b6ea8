/* SPDX-License-Identifier: MIT */
/* mountstats: /proc/self/mountstats text in, one NFS mount's read counters
 * out. The NFSv4.2 mount's lines are the lab guest's (Debian 12,
 * 6.1.0-56-amd64) after bench/nfs-benefit's run at 128K and 10 ms; the NFSv3
 * mount, with a space in its mount point, is written in the same format. */

#include <errno.h>

#include "advise-mountstats.h"
#include "test.h"

static const char lab[] =
        "device rootfs mounted on / with fstype rootfs\n"
        "device proc mounted on /proc with fstype proc\n"
        "device 127.0.0.1:/srv/nfs/r1m mounted on /mnt/r1m with fstype nfs4 statvers=1.1\n"
        "\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,acregmax=60,acdirmin=30,"
        "acdirmax=60,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=127.0.0.1,local_lock=none\n"
        "\tage:\t31\n"
        "\timpl_id:\tname='',domain='',date='0,0'\n"
        "\tcaps:\tcaps=0x3ffbffff,wtmult=512,dtsize=1048576,bsize=0,namlen=255\n"
        "\tnfsv4:\tbm0=0xfdffbfff,bm1=0x40f9be3e,bm2=0x60800,acl=0x3,sessions,pnfs=not "
        "configured,lease_time=90,"
        "lease_expired=0\n"
        "\tsec:\tflavor=1,pseudoflavor=1\n"
        "\tevents:\t3 4 0 0 2 2 38 0 0 14777 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0\n"
        "\tbytes:\t30523392 0 0 0 30785536 0 7516 0\n"
        "\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
        "\txprt:\ttcp 805 1 1 0 0 251 251 0 251 0 2 0 9\n"
        "\tper-op statistics\n"
        "\t        NULL: 1 1 0 44 24 0 0 0 0\n"
        "\t        READ: 237 237 0 35076 30819664 122 4363 5003 0\n"
        "\t       WRITE: 0 0 0 0 0 0 0 0 0\n"
        "\t     READDIR: 1 1 0 208 1484 0 1 1 0\n"
        "\n"
        "device 127.0.0.1:/srv/nfs/v3 mounted on /mnt/v\\040three with fstype nfs statvers=1.1\n"
        "\topts:\trw,vers=3,rsize=1048576,wsize=1048576,namlen=255,hard,nolock,proto=tcp\n"
        "\tbytes:\t1048576 0 4194304 0 5242880 0 256 0\n"
        "\tper-op statistics\n"
        "\t        NULL: 1 1 0 44 24 0 0 0 0\n"
        "\t        READ: 6 7 1 720 5243600 0 90 97 0\n"
        "\n"
        "device tmpfs mounted on /srv/nfs with fstype tmpfs\n";

static void test_find_v4(void) {
        struct ra_nfs_read_counters c = {};
        CHECK_INT(1, ra_mountstats_find(lab, sizeof(lab) - 1, "/mnt/r1m", &c));
        CHECK_U64(30523392, c.normal_read_bytes);
        CHECK_U64(0, c.direct_read_bytes);
        CHECK_U64(30785536, c.server_read_bytes);
        CHECK_U64(237, c.read_ops);
        CHECK_U64(237, c.read_transmissions);
        CHECK_U64(0, c.read_timeouts);
        CHECK_U64(35076, c.read_bytes_sent);
        CHECK_U64(30819664, c.read_bytes_received);
        CHECK_U64(122, c.read_queue_ms);
        CHECK_U64(4363, c.read_rtt_ms);
        CHECK_U64(5003, c.read_execute_ms);
}

/* NFSv3 ("nfs"), a mount point with a space (\040), READDIR not READ. */
static void test_find_v3_escaped(void) {
        struct ra_nfs_read_counters c = {};
        CHECK_INT(1, ra_mountstats_find(lab, sizeof(lab) - 1, "/mnt/v three", &c));
        CHECK_U64(4194304, c.direct_read_bytes);
        CHECK_U64(6, c.read_ops);
        CHECK_U64(7, c.read_transmissions);
        CHECK_U64(1, c.read_timeouts);
        CHECK_U64(90, c.read_rtt_ms);
        CHECK_INT(0, ra_mountstats_find(lab, sizeof(lab) - 1, "/mnt/v\\040three", &c));
}

static void test_not_nfs_or_absent(void) {
        struct ra_nfs_read_counters c = { .read_ops = 42 };
        CHECK_INT(0, ra_mountstats_find(lab, sizeof(lab) - 1, "/srv/nfs", &c));
        CHECK_INT(0, ra_mountstats_find(lab, sizeof(lab) - 1, "/mnt", &c));
        CHECK_INT(0, ra_mountstats_find(lab, sizeof(lab) - 1, "/mnt/r1m/", &c));
        CHECK_INT(0, ra_mountstats_find("", 0, "/mnt/r1m", &c));
        CHECK_U64(42, c.read_ops); /* untouched */
}

/* The mount is there but a line is not what the kernel writes: no numbers
 * made up, and the caller is told. */
static void test_malformed(void) {
        static const char *const bad[] = {
                "device s:/e mounted on /m with fstype nfs4\n\tbytes:\t1 2 3\n\tREAD: 1 1 0 1 1 0 1 1 0\n",
                "device s:/e mounted on /m with fstype nfs4\n\tbytes:\t1 0 0 0 1 0 1 0\n\tREAD: 1 1 0 1 -1 "
                "0 1 1\n",
                "device s:/e mounted on /m with fstype nfs4\n\tbytes:\t18446744073709551616 0 0 0 1 0 1 0\n"
                "\tREAD: 1 1 0 1 1 0 1 1 0\n",
                "device s:/e mounted on /m with fstype nfs4\n\tbytes:\t1 0 0 0 1 0 1 0\n", /* no READ line */
        };
        struct ra_nfs_read_counters c = {};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                CHECK_INT(-EBADMSG, ra_mountstats_find(bad[i], strlen(bad[i]), "/m", &c));
        /* the largest 64-bit number is fine; no newline at the end too */
        const char *max =
                "device s:/e mounted on /m with fstype nfs4\n\tbytes:\t18446744073709551615 0 0 0 1 0 1 0\n"
                "\tREAD: 1 1 0 1 1 0 1 1";
        CHECK_INT(1, ra_mountstats_find(max, strlen(max), "/m", &c));
        CHECK_U64(UINT64_MAX, c.normal_read_bytes);
}

/* Only the mount's own lines: the next mount's READ line is not ours. */
static void test_stops_at_next_mount(void) {
        const char *t = "device s:/a mounted on /a with fstype nfs4\n\tbytes:\t1 0 0 0 1 0 1 0\n"
                        "device s:/b mounted on /b with fstype nfs4\n\tbytes:\t2 0 0 0 2 0 1 0\n"
                        "\tREAD: 9 9 0 1 1 0 1 1 0\n";
        struct ra_nfs_read_counters c = {};
        CHECK_INT(-EBADMSG, ra_mountstats_find(t, strlen(t), "/a", &c));
        CHECK_INT(1, ra_mountstats_find(t, strlen(t), "/b", &c));
        CHECK_U64(9, c.read_ops);
}

static void test_delta(void) {
        struct ra_nfs_read_counters before = { .server_read_bytes = 100, .read_ops = 5, .read_rtt_ms = 50 };
        struct ra_nfs_read_counters now = { .server_read_bytes = 300, .read_ops = 3, .read_rtt_ms = 80 };
        struct ra_nfs_read_counters d = ra_nfs_read_counters_delta(&now, &before);
        CHECK_U64(200, d.server_read_bytes);
        CHECK_U64(0, d.read_ops); /* went back: a new superblock */
        CHECK_U64(30, d.read_rtt_ms);
}

/* Issue 34: mountstats from the namespace of the mount table read. */
static void test_path(void) {
        char buf[64];

        CHECK_INT(0, ra_mountstats_path("/proc/1/mountinfo", buf, sizeof(buf)));
        CHECK_STR("/proc/1/mountstats", buf);
        CHECK_INT(0, ra_mountstats_path("/host/proc/1/mountinfo", buf, sizeof(buf)));
        CHECK_STR("/host/proc/1/mountstats", buf);
        CHECK_INT(0, ra_mountstats_path("/proc/self/mountinfo", buf, sizeof(buf)));
        CHECK_STR("/proc/self/mountstats", buf);
        /* a copy of a table elsewhere has no mountstats beside it */
        CHECK_INT(0, ra_mountstats_path("/tmp/mountinfo.txt", buf, sizeof(buf)));
        CHECK_STR("/proc/self/mountstats", buf);
        CHECK_INT(0, ra_mountstats_path(NULL, buf, sizeof(buf)));
        CHECK_STR("/proc/self/mountstats", buf);
        CHECK_INT(-ENAMETOOLONG, ra_mountstats_path("/proc/123456789/mountinfo", buf, 20));
}

/* Two NFS mounts stacked on /mnt/data (issue 34): the lower 0:53, then the
 * upper 0:54, which is what /mnt/data names; a tmpfs between them. */
static const char stacked_mountinfo[] =
        "22 1 253:1 / / rw - ext4 /dev/vda1 rw\n"
        "36 22 0:53 / /mnt/data rw,relatime - nfs4 srv:/lower rw,vers=4.2,rsize=1048576\n"
        "37 22 0:40 / /mnt/other rw - tmpfs tmpfs rw\n"
        "38 36 0:54 / /mnt/data rw,relatime - nfs4 srv:/upper rw,vers=4.2,rsize=1048576\n";
static const char stacked_mountstats[] =
        "device /dev/vda1 mounted on / with fstype ext4\n"
        "device srv:/lower mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
        "\tbytes:\t0 0 0 0 0 0 0 0\n"
        "\tper-op statistics\n"
        "\t        READ: 0 0 0 0 0 0 0 0 0\n"
        "no device mounted on /mnt/other with fstype tmpfs\n"
        "device srv:/upper mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
        "\tbytes:\t104857600 0 0 0 104857600 0 25600 0\n"
        "\tper-op statistics\n"
        "\t        READ: 100 100 0 9000 104870000 10 1000 1100 0\n";

static void test_stacked(void) {
        struct ra_nfs_read_counters c;

        CHECK_INT(1, ra_mountinfo_nth_at(stacked_mountinfo, sizeof(stacked_mountinfo) - 1, "/mnt/data", 0, 54));
        CHECK_INT(0, ra_mountinfo_nth_at(stacked_mountinfo, sizeof(stacked_mountinfo) - 1, "/mnt/data", 0, 53));
        CHECK_INT(-ENOENT,
                  ra_mountinfo_nth_at(stacked_mountinfo, sizeof(stacked_mountinfo) - 1, "/mnt/data", 0, 40));
        CHECK_INT(1, ra_mountstats_find_nth(stacked_mountstats, sizeof(stacked_mountstats) - 1, "/mnt/data", 1,
                                            &c));
        CHECK_U64(104857600, c.server_read_bytes);
        CHECK_U64(100, c.read_ops);
        CHECK_INT(1, ra_mountstats_find_nth(stacked_mountstats, sizeof(stacked_mountstats) - 1, "/mnt/data", 0,
                                            &c));
        CHECK_U64(0, c.server_read_bytes);
        CHECK_INT(0, ra_mountstats_find_nth(stacked_mountstats, sizeof(stacked_mountstats) - 1, "/mnt/data", 2,
                                            &c));
        /* the nth at a mount point counts every type: the tmpfs is not NFS */
        CHECK_INT(0, ra_mountstats_find_nth(stacked_mountstats, sizeof(stacked_mountstats) - 1, "/mnt/other", 0,
                                            &c));
        /* without the table, the first NFS one: the lower, as before */
        CHECK_INT(1, ra_mountstats_find(stacked_mountstats, sizeof(stacked_mountstats) - 1, "/mnt/data", &c));
        CHECK_U64(0, c.server_read_bytes);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_find_v4);
        RUN(test_find_v3_escaped);
        RUN(test_not_nfs_or_absent);
        RUN(test_malformed);
        RUN(test_stops_at_next_mount);
        RUN(test_delta);
        RUN(test_path);
        RUN(test_stacked);
        TEST_MAIN_END;
}
