/* SPDX-License-Identifier: MIT */
/* Which mechanism explains a current value other than the target: one case
 * per cause, with the numbers this kernel and its peers produce. */

#include <string.h>

#include "drift.h"
#include "test-btrfs.h"
#include "test.h"

/* A rotational loop device on 6.18: max_sectors_kb 1280, no io_opt. */
static struct ra_facts loop_disk(uint64_t current_kb) {
        struct ra_facts f;
        ra_facts_init(&f);
        f.kind = RA_KIND_BLOCK;
        f.class = RA_CLASS_HDD;
        f.rotational = true;
        f.max_sectors_kb = 1280;
        f.page_kb = 4;
        f.kernel_major = 6;
        f.kernel_minor = 18;
        f.current_kb = current_kb;
        f.current_known = true;
        return f;
}

static struct ra_facts nfs_mount(uint64_t current_kb) {
        struct ra_facts f;
        ra_facts_init(&f);
        f.kind = RA_KIND_MOUNT;
        f.class = RA_CLASS_NFS;
        f.fstype = (char *) "nfs4"; /* a literal: these facts are never ra_facts_done() */
        f.page_kb = 4;
        f.current_kb = current_kb;
        f.current_known = true;
        return f;
}

static void check_cause(const struct ra_facts *f, uint64_t target_kb, uint64_t nfsrahead_kb,
                        enum ra_drift_cause want, uint64_t want_kb) {
        struct ra_drift d;
        ra_drift_explain(f, target_kb, nfsrahead_kb, &d);
        CHECK_STR(ra_drift_cause_to_string(want), ra_drift_cause_to_string(d.cause));
        CHECK_U64(want_kb, d.explained_kb);
        CHECK(d.cause == RA_DRIFT_NONE || d.why[0] != 0);
}

static void test_no_drift(void) {
        struct ra_facts f = loop_disk(512);
        check_cause(&f, 512, 0, RA_DRIFT_NONE, 0);
        /* 1234 is written as 1232: the same value in whole pages. */
        f = loop_disk(1232);
        check_cause(&f, 1234, 0, RA_DRIFT_NONE, 0);
        /* Nothing to compare: unreadable current, or no target (left alone). */
        f = loop_disk(2560);
        f.current_known = false;
        check_cause(&f, 512, 0, RA_DRIFT_NONE, 0);
        f = loop_disk(2560);
        check_cause(&f, 0, 0, RA_DRIFT_NONE, 0);
}

static void test_max_sectors(void) {
        /* 6.17+: 2 x max_sectors_kb for a rotational disk without io_opt. */
        struct ra_facts f = loop_disk(2560);
        check_cause(&f, 512, 0, RA_DRIFT_MAX_SECTORS, 2560);
        f.kernel_minor = 17;
        check_cause(&f, 512, 0, RA_DRIFT_MAX_SECTORS, 2560);
        /* Before 6.17 the kernel did not do this: something else did. */
        f.kernel_minor = 16;
        check_cause(&f, 512, 0, RA_DRIFT_OTHER, 0);
        /* Not rotational: not this mechanism. */
        f = loop_disk(2560);
        f.rotational = false;
        check_cause(&f, 512, 0, RA_DRIFT_OTHER, 0);
}

static void test_io_opt(void) {
        /* md RAID5, 4 disks of 512 KiB chunks: io_opt 1.5 MiB -> 3072 KiB. */
        struct ra_facts f = loop_disk(3072);
        f.io_opt_bytes = 3 * 512 * 1024;
        check_cause(&f, 1024, 0, RA_DRIFT_IO_OPT, 3072);
        /* The bogus USB bridge: 65535 sectors -> 2 x 32767.5 KiB in pages. */
        f = loop_disk(65532);
        f.io_opt_bytes = 65535ULL * 512;
        check_cause(&f, 512, 0, RA_DRIFT_IO_OPT, 65532);
        /* With io_opt known, 2 x max_sectors is not the kernel's formula. */
        f = loop_disk(2560);
        f.io_opt_bytes = 65536;
        check_cause(&f, 512, 0, RA_DRIFT_OTHER, 0);
}

static void test_kernel_default(void) {
        struct ra_facts f = loop_disk(128);
        f.rotational = false;
        check_cause(&f, 512, 0, RA_DRIFT_KERNEL_DEFAULT, 128);
        /* An NFS mount without nfs-common's rule: the kernel's own 128 KiB. */
        f = nfs_mount(128);
        check_cause(&f, 4096, 0, RA_DRIFT_KERNEL_DEFAULT, 128);
}

static void test_nfsrahead(void) {
        /* nfs-common installed, no configuration: its fixed 128 KiB. */
        struct ra_facts f = nfs_mount(128);
        check_cause(&f, 4096, 128, RA_DRIFT_NFSRAHEAD, 128);
        /* [nfsrahead] nfs4=15000: written as 15000, read back in pages. */
        f = nfs_mount(15000);
        check_cause(&f, 4096, 15000, RA_DRIFT_NFSRAHEAD, 15000);
        /* Another value than nfsrahead's: someone else. */
        f = nfs_mount(2048);
        check_cause(&f, 4096, 128, RA_DRIFT_OTHER, 0);
}

static void test_fuse_init(void) {
        struct ra_facts f;
        ra_facts_init(&f);
        f.kind = RA_KIND_MOUNT;
        f.class = RA_CLASS_FUSE;
        f.page_kb = 4;
        f.current_kb = 64;
        f.current_known = true;
        /* The daemon offered 64 KiB in FUSE_INIT: the bdi was lowered. */
        check_cause(&f, 1024, 0, RA_DRIFT_FUSE_INIT, 64);
        /* FUSE_INIT only lowers: a higher value came from elsewhere. */
        f.current_kb = 4096;
        check_cause(&f, 1024, 0, RA_DRIFT_OTHER, 0);
}

static void test_btrfs(void) {
        struct ra_facts f;

        /* btrfs's own value at mount: 4096 for up to 32 devices, 128 K each above */
        btrfs_fs(&f, "raid0", 2, RA_CLASS_SSD);
        check_cause(&f, 512, 0, RA_DRIFT_BTRFS, 4096);
        ra_facts_done(&f);
        btrfs_fs(&f, "raid0", 40, RA_CLASS_SSD);
        f.current_kb = 5120;
        check_cause(&f, 512, 0, RA_DRIFT_BTRFS, 5120);
        f.current_kb = 4096;
        check_cause(&f, 512, 0, RA_DRIFT_OTHER, 0);
        f.current_kb = 128;
        check_cause(&f, 512, 0, RA_DRIFT_KERNEL_DEFAULT, 128);
        ra_facts_done(&f);
}

static void test_other(void) {
        struct ra_facts f = loop_disk(4096);
        check_cause(&f, 512, 0, RA_DRIFT_OTHER, 0);
        f = loop_disk(4);
        check_cause(&f, 512, 0, RA_DRIFT_OTHER, 0);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_no_drift);
        RUN(test_max_sectors);
        RUN(test_io_opt);
        RUN(test_kernel_default);
        RUN(test_nfsrahead);
        RUN(test_fuse_init);
        RUN(test_other);
        RUN(test_btrfs);
        TEST_MAIN_END;
}
