/* SPDX-License-Identifier: MIT */
/*
 * ra_facts_classify: class and stripe geometry from raw numbers, including
 * the guard against a bogus io_opt. Pure, so facts are built by hand the way
 * gather would fill them from sysfs.
 */

#include "btrfs.h"
#include "test-btrfs.h"
#include "facts.h"
#include "gather.h"
#include "test.h"

#define KIB_BYTES(n) ((uint64_t)(n) * 1024)
#define GIB_BYTES(n) ((uint64_t)(n) * 1024 * 1024 * 1024)

static void blank(struct ra_facts *f, const char *name, enum ra_transport t)
{
        ra_facts_init(f);
        f->kind = RA_KIND_BLOCK;
        snprintf(f->name, sizeof(f->name), "%s", name);
        f->transport = t;
        f->size_bytes = GIB_BYTES(1000);
        f->page_kb = 4;
        f->mem_total_kb = 16777216;
        f->physical_block_bytes = 512;
        f->io_min_bytes = 512;
}

/* An md array as sysfs shows it: io_min = chunk, io_opt = stripe. */
static void md(struct ra_facts *f, const char *level, unsigned disks, uint64_t chunk_kb,
               uint64_t io_opt_kb)
{
        blank(f, "md0", RA_TRANSPORT_MD);
        f->major = 9;
        snprintf(f->md_level, sizeof(f->md_level), "%s", level);
        f->md_raid_disks = disks;
        f->chunk_bytes = KIB_BYTES(chunk_kb); /* md/chunk_size */
        f->physical_block_bytes = 4096;
        f->io_min_bytes = chunk_kb ? KIB_BYTES(chunk_kb) : 4096;
        f->io_opt_bytes = KIB_BYTES(io_opt_kb);
}

#define CHECK_CLASS(expected, f) CHECK_STR(ra_class_to_string(expected), ra_class_to_string((f)->class))

static void test_md_raid5(void)
{
        struct ra_facts f;

        md(&f, "raid5", 4, 512, 1536);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_INT(3, f.data_disks);
        CHECK_U64(KIB_BYTES(512), f.chunk_bytes);
        CHECK_U64(KIB_BYTES(1536), f.stripe_bytes);
        CHECK_STR("md", f.stripe_source);
        CHECK(!f.io_opt_ignored);
        ra_facts_done(&f);
}

static void test_md_raid6(void)
{
        struct ra_facts f;

        md(&f, "raid6", 6, 64, 256);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_INT(4, f.data_disks);
        CHECK_U64(KIB_BYTES(256), f.stripe_bytes);
        CHECK_STR("md", f.stripe_source);
        ra_facts_done(&f);
}

static void test_md_raid10(void)
{
        struct ra_facts f;

        /* 4 members, two near copies (md/layout 0x102, "n2"): 2 data disks. */
        md(&f, "raid10", 4, 512, 1024);
        f.md_layout = 0x102;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_INT(2, f.data_disks);
        CHECK_U64(KIB_BYTES(1024), f.stripe_bytes);
        ra_facts_done(&f);
}

static void test_md_raid10_far(void)
{
        struct ra_facts f;

        /* "f2" (md/layout 0x201): reads stripe over all 4 members like RAID0;
         * the kernel sets io_opt to 4 chunks (raid10_nr_stripes() divides by
         * near copies only). */
        md(&f, "raid10", 4, 512, 2048);
        f.md_layout = 0x201;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_INT(4, f.data_disks);
        CHECK_U64(KIB_BYTES(2048), f.stripe_bytes);
        ra_facts_done(&f);

        /* "n2" over 3 members: near copies do not divide the members, so the
         * kernel's io_opt is 3 chunks. */
        md(&f, "raid10", 3, 512, 1536);
        f.md_layout = 0x102;
        ra_facts_classify(&f);
        CHECK_INT(3, f.data_disks);
        CHECK_U64(KIB_BYTES(1536), f.stripe_bytes);
        ra_facts_done(&f);
}

static void test_md_raid0(void)
{
        struct ra_facts f;

        md(&f, "raid0", 3, 128, 384);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_INT(3, f.data_disks);
        CHECK_U64(KIB_BYTES(384), f.stripe_bytes);
        CHECK_STR("md", f.stripe_source);
        ra_facts_done(&f);
}

static void test_md_raid1(void)
{
        struct ra_facts f;

        /* Mirrors have no chunk and no stripe. */
        md(&f, "raid1", 2, 0, 0);
        ra_facts_classify(&f);
        CHECK_U64(0, f.stripe_bytes);
        CHECK(!f.io_opt_ignored);
        ra_facts_done(&f);
}

static void test_dm_io_opt_trusted(void)
{
        struct ra_facts f;

        /* LVM on top of a RAID5: the stripe is inherited as io_opt. */
        blank(&f, "dm-0", RA_TRANSPORT_DM);
        f.major = 253;
        snprintf(f.dm_target, sizeof(f.dm_target), "lvm");
        ra_facts_set(&f.slaves, "md0");
        f.physical_block_bytes = 4096;
        f.io_min_bytes = KIB_BYTES(512);
        f.io_opt_bytes = KIB_BYTES(1536);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_U64(KIB_BYTES(1536), f.stripe_bytes);
        CHECK_STR("dm io_opt", f.stripe_source);
        CHECK(!f.io_opt_ignored);
        ra_facts_done(&f);
}

static void test_dm_without_io_opt(void)
{
        struct ra_facts f;

        /* dm-crypt on an SSD: no stripe, the class follows the disk below. */
        blank(&f, "dm-1", RA_TRANSPORT_DM);
        f.major = 253;
        snprintf(f.dm_target, sizeof(f.dm_target), "crypt");
        f.rotational = false;
        f.physical_block_bytes = 4096;
        f.io_min_bytes = 4096;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_SSD, &f);
        CHECK_U64(0, f.stripe_bytes);
        CHECK(!f.io_opt_ignored);
        ra_facts_done(&f);
}

static void test_hw_raid_io_opt_trusted(void)
{
        struct ra_facts f;

        /* A RAID controller reporting a 256 KiB chunk and a 1 MiB stripe. */
        blank(&f, "sda", RA_TRANSPORT_SCSI);
        f.rotational = true;
        f.physical_block_bytes = 4096;
        f.io_min_bytes = KIB_BYTES(256);
        f.io_opt_bytes = KIB_BYTES(1024);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_U64(KIB_BYTES(1024), f.stripe_bytes);
        CHECK_U64(KIB_BYTES(256), f.chunk_bytes);
        CHECK_INT(4, f.data_disks);
        CHECK_STR("hw raid io_opt", f.stripe_source);
        CHECK(!f.io_opt_ignored);
        ra_facts_done(&f);
}

static void test_hw_raid_io_opt_not_a_multiple(void)
{
        struct ra_facts f;

        blank(&f, "sda", RA_TRANSPORT_SCSI);
        f.rotational = true;
        f.physical_block_bytes = 4096;
        f.io_min_bytes = KIB_BYTES(256);
        f.io_opt_bytes = KIB_BYTES(1000);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_HDD, &f);
        CHECK_U64(0, f.stripe_bytes);
        CHECK(f.io_opt_ignored);
        ra_facts_done(&f);
}

static void test_usb_bridge_io_opt_ignored(void)
{
        struct ra_facts f;

        /* 65535 sectors of 512 bytes: would be a ~64 MiB "stripe". */
        blank(&f, "sdb", RA_TRANSPORT_USB);
        f.rotational = true;
        f.removable = false;
        f.physical_block_bytes = 512;
        f.io_min_bytes = 512;
        f.io_opt_bytes = 33553920;
        ra_facts_classify(&f);
        CHECK(f.io_opt_ignored);
        CHECK_U64(0, f.stripe_bytes);
        CHECK_U64(0, f.chunk_bytes);
        CHECK_INT(0, f.data_disks);
        CHECK_CLASS(RA_CLASS_HDD, &f);
        ra_facts_done(&f);
}

static void test_io_min_equal_to_physical_block(void)
{
        struct ra_facts f;

        /* A 4Kn disk: io_opt is a multiple of io_min, but io_min is just the
         * physical block, not a chunk. */
        blank(&f, "sdc", RA_TRANSPORT_ATA);
        f.rotational = true;
        f.physical_block_bytes = 4096;
        f.io_min_bytes = 4096;
        f.io_opt_bytes = KIB_BYTES(64);
        ra_facts_classify(&f);
        CHECK(f.io_opt_ignored);
        CHECK_U64(0, f.stripe_bytes);
        CHECK_CLASS(RA_CLASS_HDD, &f);
        ra_facts_done(&f);

        blank(&f, "nvme0n1", RA_TRANSPORT_NVME);
        f.physical_block_bytes = 4096;
        f.io_min_bytes = 4096;
        f.io_opt_bytes = KIB_BYTES(128);
        ra_facts_classify(&f);
        CHECK(f.io_opt_ignored);
        CHECK_U64(0, f.stripe_bytes);
        CHECK_CLASS(RA_CLASS_SSD, &f);
        ra_facts_done(&f);
}

static void test_io_opt_equal_to_io_min(void)
{
        struct ra_facts f;

        /* An SSD behind a SCSI layer reporting 4 KiB io_min and io_opt over
         * 512-byte blocks: one "data disk" is no stripe. */
        blank(&f, "sdf", RA_TRANSPORT_SCSI);
        f.rotational = false;
        f.physical_block_bytes = 512;
        f.io_min_bytes = 4096;
        f.io_opt_bytes = 4096;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_SSD, &f);
        CHECK_U64(0, f.stripe_bytes);
        ra_facts_done(&f);
}

static void test_absurd_data_disk_count(void)
{
        struct ra_facts f;

        /* 8191 x 4 KiB: a multiple, but no controller has 8191 data disks. */
        blank(&f, "sdg", RA_TRANSPORT_USB);
        f.rotational = true;
        f.physical_block_bytes = 512;
        f.io_min_bytes = 4096;
        f.io_opt_bytes = 8191ULL * 4096;
        ra_facts_classify(&f);
        CHECK(f.io_opt_ignored);
        CHECK_U64(0, f.stripe_bytes);
        CHECK_CLASS(RA_CLASS_HDD, &f);
        ra_facts_done(&f);
}

static void test_optical(void)
{
        struct ra_facts f;

        blank(&f, "sr0", RA_TRANSPORT_ATA);
        f.optical = true;
        f.removable = true;
        f.rotational = true;
        f.physical_block_bytes = 2048;
        f.io_min_bytes = 2048;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_OPTICAL, &f);
        ra_facts_done(&f);
}

static void test_mounts(void)
{
        static const struct {
                const char *fstype;
                enum ra_class class;
        } cases[] = {
                { "nfs", RA_CLASS_NFS },        { "nfs4", RA_CLASS_NFS },
                { "cifs", RA_CLASS_NETFS },     { "ceph", RA_CLASS_NETFS },
                { "9p", RA_CLASS_NETFS },       { "fuse.sshfs", RA_CLASS_FUSE },
                { "fuseblk", RA_CLASS_FUSE },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct ra_facts f;

                ra_facts_init(&f);
                f.kind = RA_KIND_MOUNT;
                snprintf(f.name, sizeof(f.name), "0:%zu", 50 + i);
                ra_facts_set(&f.fstype, cases[i].fstype);
                ra_facts_classify(&f);
                CHECK_CLASS(cases[i].class, &f);
                ra_facts_done(&f);
        }
}

static void test_plain_disks(void)
{
        struct ra_facts f;

        blank(&f, "sda", RA_TRANSPORT_ATA);
        f.rotational = true;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_HDD, &f);
        CHECK(!f.io_opt_ignored); /* no io_opt at all: nothing ignored */
        CHECK_U64(0, f.stripe_bytes);
        ra_facts_done(&f);

        blank(&f, "sdb", RA_TRANSPORT_ATA);
        f.rotational = false;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_SSD, &f);
        ra_facts_done(&f);

        blank(&f, "nvme0n1", RA_TRANSPORT_NVME);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_SSD, &f);
        ra_facts_done(&f);
}

static void test_memory_transports(void)
{
        static const enum ra_transport t[] = { RA_TRANSPORT_ZRAM, RA_TRANSPORT_BRD, RA_TRANSPORT_PMEM };
        static const char *const names[] = { "zram0", "ram0", "pmem0" };

        for (size_t i = 0; i < 3; i++) {
                struct ra_facts f;

                blank(&f, names[i], t[i]);
                f.rotational = i == 1; /* brd says rotational on old kernels */
                f.physical_block_bytes = 4096;
                f.io_min_bytes = 4096;
                f.io_opt_bytes = 4096;
                ra_facts_classify(&f);
                CHECK_CLASS(RA_CLASS_MEMORY, &f);
                CHECK_U64(0, f.stripe_bytes);
                ra_facts_done(&f);
        }
}

static void test_removable(void)
{
        struct ra_facts f;

        blank(&f, "sdd", RA_TRANSPORT_USB);
        f.removable = true;
        f.size_bytes = GIB_BYTES(32);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_REMOVABLE, &f);
        ra_facts_done(&f);

        blank(&f, "mmcblk1", RA_TRANSPORT_MMC);
        f.removable = true;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_REMOVABLE, &f);
        ra_facts_done(&f);

        /* Removable wins over hdd: a card reader that says "rotational". */
        blank(&f, "sde", RA_TRANSPORT_USB);
        f.removable = true;
        f.rotational = true;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_REMOVABLE, &f);
        ra_facts_done(&f);
}

static void test_classify_twice(void)
{
        struct ra_facts f;

        md(&f, "raid5", 4, 512, 1536);
        ra_facts_classify(&f);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_INT(3, f.data_disks);
        CHECK_U64(KIB_BYTES(1536), f.stripe_bytes);
        ra_facts_done(&f);
}

static void test_strings(void)
{
        CHECK_STR("hdd", ra_class_to_string(RA_CLASS_HDD));
        CHECK_STR("ssd", ra_class_to_string(RA_CLASS_SSD));
        CHECK_STR("raid", ra_class_to_string(RA_CLASS_RAID));
        CHECK_STR("removable", ra_class_to_string(RA_CLASS_REMOVABLE));
        CHECK_STR("memory", ra_class_to_string(RA_CLASS_MEMORY));
        CHECK_STR("optical", ra_class_to_string(RA_CLASS_OPTICAL));
        CHECK_STR("nfs", ra_class_to_string(RA_CLASS_NFS));
        CHECK_STR("netfs", ra_class_to_string(RA_CLASS_NETFS));
        CHECK_STR("fuse", ra_class_to_string(RA_CLASS_FUSE));
        CHECK_STR("ata", ra_transport_to_string(RA_TRANSPORT_ATA));
        CHECK_STR("nvme", ra_transport_to_string(RA_TRANSPORT_NVME));
        CHECK_STR("usb", ra_transport_to_string(RA_TRANSPORT_USB));
        CHECK_STR("md", ra_transport_to_string(RA_TRANSPORT_MD));
        CHECK_STR("dm", ra_transport_to_string(RA_TRANSPORT_DM));
}

static void test_props(void)
{
        struct ra_facts f;
        char key[32], value[32];
        int r = 0, i;

        ra_facts_init(&f);
        CHECK(ra_facts_get_prop(&f, "ID_BUS") == NULL);
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_BUS", "usb"));
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_MODEL", "Cruzer_Blade"));
        CHECK_STR("usb", ra_facts_get_prop(&f, "ID_BUS"));
        CHECK_STR("Cruzer_Blade", ra_facts_get_prop(&f, "ID_MODEL"));
        CHECK(ra_facts_get_prop(&f, "ID_BU") == NULL);
        CHECK_INT(2, f.n_props);

        /* Copies, not references. */
        strcpy(key, "ID_SERIAL");
        strcpy(value, "ABC");
        CHECK_INT(0, ra_facts_add_prop(&f, key, value));
        strcpy(key, "XXXXXXXXX");
        strcpy(value, "XYZ");
        CHECK_STR("ABC", ra_facts_get_prop(&f, "ID_SERIAL"));

        /* As many as a device has, each as long as it is: a rule on the
         * last one of 300 (16 KiB of values before it) still sees it whole. */
        char long_value[200];
        memset(long_value, 'v', sizeof(long_value) - 1);
        long_value[sizeof(long_value) - 1] = 0;
        for (i = 0; i < 300; i++) {
                snprintf(key, sizeof(key), "K%d", i);
                r = ra_facts_add_prop(&f, key, long_value);
                if (r < 0)
                        break;
        }
        CHECK_INT(0, r);
        CHECK_INT(0, ra_facts_add_prop(&f, "ID_WWN", "0x5000c500a1b2c3d4"));
        CHECK_INT(304, f.n_props);
        CHECK_STR("0x5000c500a1b2c3d4", ra_facts_get_prop(&f, "ID_WWN"));
        CHECK_STR(long_value, ra_facts_get_prop(&f, "K299"));
        CHECK_STR("usb", ra_facts_get_prop(&f, "ID_BUS"));
        ra_facts_done(&f);

        /* done on an initialised, empty struct is fine. */
        ra_facts_init(&f);
        ra_facts_done(&f);
}

/* ---- btrfs ------------------------------------------------------------------- */

static void test_btrfs_data_disks(void)
{
        CHECK_INT(8, ra_btrfs_data_disks("raid0", 8));
        CHECK_INT(4, ra_btrfs_data_disks("raid10", 8));
        CHECK_INT(2, ra_btrfs_data_disks("raid10", 5)); /* pairs only */
        CHECK_INT(3, ra_btrfs_data_disks("raid5", 4));
        CHECK_INT(6, ra_btrfs_data_disks("raid6", 8));
        CHECK_INT(0, ra_btrfs_data_disks("raid6", 2));
        CHECK_INT(0, ra_btrfs_data_disks("raid5", 0));
        CHECK_INT(0, ra_btrfs_data_disks("raid1", 2));
        CHECK_INT(0, ra_btrfs_data_disks("raid1c3", 3));
        CHECK_INT(0, ra_btrfs_data_disks("dup", 1));
        CHECK_INT(0, ra_btrfs_data_disks("single", 4));
        CHECK_INT(0, ra_btrfs_data_disks("", 4));
        CHECK_INT(0, ra_btrfs_data_disks("raid7", 4));
}

static void test_btrfs_kernel_value(void)
{
        /* fs/btrfs/disk-io.c: max(4 MiB, 128 KiB x devices) */
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(1));
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(2));
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(32));
        CHECK_U64(4224, ra_btrfs_kernel_ra_kb(33));
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(0));
}

static void test_btrfs_bdi_names(void)
{
        CHECK(ra_bdi_is_btrfs("btrfs-1"));
        CHECK(ra_bdi_is_btrfs("btrfs-1234567890"));
        CHECK(!ra_bdi_is_btrfs("btrfs-12345678901")); /* longer than any counter */
        CHECK(!ra_bdi_is_btrfs("btrfs-"));
        CHECK(!ra_bdi_is_btrfs("btrfs-1a"));
        CHECK(!ra_bdi_is_btrfs("btrfs"));
        CHECK(!ra_bdi_is_btrfs("erofs-2"));
        CHECK(!ra_bdi_is_btrfs("0:53"));
        CHECK(!ra_bdi_is_btrfs(""));
        CHECK(ra_bdi_is_ours("btrfs-3"));
        CHECK(ra_bdi_is_ours("0:53"));
        CHECK(ra_bdi_is_ours("0:53-fuseblk"));
        CHECK(!ra_bdi_is_ours("7:0"));
        CHECK(!ra_bdi_is_ours("cifs-1"));
        CHECK(!ra_bdi_is_ours("erofs-2"));
}

static void test_btrfs_source_names(void)
{
        CHECK(ra_btrfs_source_names("/dev/sda2", "sda2", ""));
        CHECK(ra_btrfs_source_names("/dev/dm-0", "dm-0", "root"));
        CHECK(ra_btrfs_source_names("/dev/mapper/root", "dm-0", "root"));
        CHECK(!ra_btrfs_source_names("/dev/mapper/root", "dm-0", "home"));
        CHECK(!ra_btrfs_source_names("/dev/mapper/root", "dm-0", NULL));
        CHECK(!ra_btrfs_source_names("/dev/sda2", "sda", ""));
        CHECK(!ra_btrfs_source_names("/dev/sda", "sda2", ""));
        CHECK(!ra_btrfs_source_names("", "", ""));
}

static void test_btrfs_raid10_eight(void)
{
        struct ra_facts f;

        btrfs_fs(&f, "raid10", 8, RA_CLASS_SSD);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_INT(RA_TRANSPORT_ATA, f.transport);
        CHECK_INT(4, f.data_disks);
        CHECK_U64(KIB_BYTES(64), f.chunk_bytes);
        CHECK_U64(KIB_BYTES(256), f.stripe_bytes);
        CHECK_STR("btrfs", f.stripe_source);
        CHECK(!f.rotational);
        ra_facts_done(&f);
}

static void test_btrfs_not_striped_has_members_class(void)
{
        struct ra_facts f;

        /* Mirrors read each stream from one device: the members' class. */
        btrfs_fs(&f, "raid1", 2, RA_CLASS_HDD);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_HDD, &f);
        CHECK_U64(0, f.stripe_bytes);
        CHECK(f.rotational);
        ra_facts_done(&f);

        /* Mixed: the first class in precedence order, like a device's. */
        btrfs_fs(&f, "single", 3, RA_CLASS_SSD);
        f.members[1].class = RA_CLASS_REMOVABLE;
        f.members[1].transport = RA_TRANSPORT_USB;
        f.members[2].class = RA_CLASS_HDD;
        f.members[2].rotational = true;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_REMOVABLE, &f);
        CHECK_INT(RA_TRANSPORT_UNKNOWN, f.transport);
        CHECK(f.rotational);
        ra_facts_done(&f);

        /* Members whose class is unknown (gone) do not count. */
        btrfs_fs(&f, "single", 2, RA_CLASS_SSD);
        f.members[0].class = RA_CLASS_UNKNOWN;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_SSD, &f);
        ra_facts_done(&f);

        /* raid0 over one device does not stripe. */
        btrfs_fs(&f, "raid0", 1, RA_CLASS_SSD);
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_SSD, &f);
        CHECK_U64(0, f.stripe_bytes);
        ra_facts_done(&f);
}

static void test_btrfs_on_md_raid5(void)
{
        struct ra_facts f;

        /* One member that is itself striped lends its stripe. */
        btrfs_fs(&f, "single", 1, RA_CLASS_RAID);
        f.members[0].stripe_bytes = KIB_BYTES(1536);
        f.members[0].chunk_bytes = KIB_BYTES(512);
        f.members[0].data_disks = 3;
        ra_facts_classify(&f);
        CHECK_CLASS(RA_CLASS_RAID, &f);
        CHECK_U64(KIB_BYTES(1536), f.stripe_bytes);
        CHECK_U64(KIB_BYTES(512), f.chunk_bytes);
        CHECK_STR("member", f.stripe_source);
        ra_facts_done(&f);
}

static void test_btrfs_many_devices(void)
{
        struct ra_facts f;

        /* More devices than are stored: the stripe counts them all. */
        btrfs_fs(&f, "raid0", 20, RA_CLASS_HDD);
        CHECK_INT(RA_MEMBERS_MAX, f.n_members);
        ra_facts_classify(&f);
        CHECK_INT(20, f.data_disks);
        CHECK_U64(KIB_BYTES(1280), f.stripe_bytes);
        ra_facts_done(&f);
}

int main(void)
{
        TEST_MAIN_BEGIN;
        RUN(test_md_raid5);
        RUN(test_md_raid6);
        RUN(test_md_raid10);
        RUN(test_md_raid10_far);
        RUN(test_md_raid0);
        RUN(test_md_raid1);
        RUN(test_dm_io_opt_trusted);
        RUN(test_dm_without_io_opt);
        RUN(test_hw_raid_io_opt_trusted);
        RUN(test_hw_raid_io_opt_not_a_multiple);
        RUN(test_usb_bridge_io_opt_ignored);
        RUN(test_io_min_equal_to_physical_block);
        RUN(test_io_opt_equal_to_io_min);
        RUN(test_absurd_data_disk_count);
        RUN(test_optical);
        RUN(test_mounts);
        RUN(test_plain_disks);
        RUN(test_memory_transports);
        RUN(test_removable);
        RUN(test_classify_twice);
        RUN(test_strings);
        RUN(test_props);
        RUN(test_btrfs_data_disks);
        RUN(test_btrfs_kernel_value);
        RUN(test_btrfs_bdi_names);
        RUN(test_btrfs_source_names);
        RUN(test_btrfs_raid10_eight);
        RUN(test_btrfs_not_striped_has_members_class);
        RUN(test_btrfs_on_md_raid5);
        RUN(test_btrfs_many_devices);
        TEST_MAIN_END;
}
