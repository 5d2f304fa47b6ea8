/* SPDX-License-Identifier: MIT */
/* The kernel's own read_ahead_kb (ra_kernel_value): one case per kernel
 * release that changed it, with the numbers blk_apply_bdi_limits() gives. */

#include "kernel-ra.h"
#include "test-btrfs.h"
#include "test.h"

struct release_case {
        const char *name;
        unsigned major, minor;
        bool rotational;
        uint64_t io_opt_bytes;
        uint64_t want_kb;
        enum ra_kernel_basis want_basis;
};

/* device(RA_KIND_BLOCK) on each release, rotational or not, with io_opt. */
static const struct release_case cases[] = {
        /* A rotational disk without io_opt: the default until 6.17 (6.15 made
         * the update never lower a value, it did not change the value). */
        { "hdd_6_1", 6, 1, true, 0, 128, RA_KERNEL_BASIS_DEFAULT },
        { "hdd_6_12", 6, 12, true, 0, 128, RA_KERNEL_BASIS_DEFAULT },
        { "hdd_6_15", 6, 15, true, 0, 128, RA_KERNEL_BASIS_DEFAULT },
        { "hdd_6_16", 6, 16, true, 0, 128, RA_KERNEL_BASIS_DEFAULT },
        { "hdd_6_17", 6, 17, true, 0, 2560, RA_KERNEL_BASIS_MAX_SECTORS },
        { "hdd_7_0", 7, 0, true, 0, 2560, RA_KERNEL_BASIS_MAX_SECTORS },
        /* An unknown release (0.0) is older than any rule. */
        { "hdd_unknown", 0, 0, true, 0, 128, RA_KERNEL_BASIS_DEFAULT },
        /* Not rotational: max_sectors never counts. */
        { "ssd_6_17", 6, 17, false, 0, 128, RA_KERNEL_BASIS_DEFAULT },
        /* md RAID5, 3 data disks of 512 KiB: 2 x 1536 KiB, on every release. */
        { "raid_6_1", 6, 1, false, 3 * 512 * 1024, 3072, RA_KERNEL_BASIS_IO_OPT },
        { "raid_6_17", 6, 17, true, 3 * 512 * 1024, 3072, RA_KERNEL_BASIS_IO_OPT },
        /* The bogus USB bridge: 65535 sectors, 2 x 32767.5 KiB floored to pages. */
        { "usb_bridge", 6, 12, true, 65535ULL * 512, 65532, RA_KERNEL_BASIS_IO_OPT },
        /* 2 x io_opt at or below 128 KiB: the default wins. */
        { "small_io_opt", 6, 12, false, 32768, 128, RA_KERNEL_BASIS_DEFAULT },
        { "io_opt_64k", 6, 17, true, 65536, 128, RA_KERNEL_BASIS_DEFAULT },
};

static void check_value(const struct ra_facts *f, uint64_t want_kb, enum ra_kernel_basis want_basis) {
        struct ra_kernel_value k;
        ra_kernel_value(f, &k);
        CHECK_U64(want_kb, k.kb);
        CHECK_INT(want_basis, k.basis);
}

/* A disk, or a network mount's bdi, on 6.18 with 4 KiB pages and
 * max_sectors_kb 1280, as in tests/umockdev/trees. */
static struct ra_facts device(enum ra_kind kind) {
        struct ra_facts f;
        ra_facts_init(&f);
        f.kind = kind;
        f.page_kb = 4;
        f.max_sectors_kb = 1280;
        f.kernel_major = 6;
        f.kernel_minor = 18;
        return f;
}

static void check_release(const void *arg) {
        const struct release_case *c = arg;
        struct ra_facts f = device(RA_KIND_BLOCK);
        f.kernel_major = c->major;
        f.kernel_minor = c->minor;
        f.rotational = c->rotational;
        f.io_opt_bytes = c->io_opt_bytes;
        check_value(&f, c->want_kb, c->want_basis);
}

static void test_network_mount(void) {
        /* An NFS bdi: bdi_init()'s default, whatever the queue facts say. */
        struct ra_facts f = device(RA_KIND_MOUNT);
        f.rotational = true;
        check_value(&f, 128, RA_KERNEL_BASIS_DEFAULT);
}

static void test_large_pages(void) {
        /* 64 KiB pages: 128 KiB is two pages; 2 x 100 KiB io_opt floors to 192. */
        struct ra_facts f = device(RA_KIND_BLOCK);
        f.page_kb = 64;
        f.io_opt_bytes = 100 * 1024;
        check_value(&f, 192, RA_KERNEL_BASIS_IO_OPT);
}

static void test_btrfs(void) {
        /* btrfs's bdi: max(4 MiB, 128 KiB x devices), on every release. */
        struct ra_facts f;
        btrfs_fs(&f, "raid0", 2, RA_CLASS_HDD);
        f.page_kb = 4;
        check_value(&f, 4096, RA_KERNEL_BASIS_BTRFS);
        ra_facts_done(&f);
        btrfs_fs(&f, "raid0", 40, RA_CLASS_HDD);
        f.page_kb = 4;
        check_value(&f, 5120, RA_KERNEL_BASIS_BTRFS);
        ra_facts_done(&f);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN_TABLE(cases, check_release);
        RUN(test_network_mount);
        RUN(test_large_pages);
        RUN(test_btrfs);
        TEST_MAIN_END;
}
