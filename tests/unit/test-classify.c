/* SPDX-License-Identifier: MIT */
/*
 * ra_facts_classify: class and stripe geometry from raw numbers, including
 * the guard against a bogus io_opt. Pure, so facts are built by hand the way
 * gather would fill them from sysfs.
 */

#include "btrfs.h"
#include "classify.h"
#include "test-btrfs.h"
#include "facts.h"
#include "gather.h"
#include "test.h"

#define KIB_BYTES(n) ((uint64_t)(n) * 1024)
#define GIB_BYTES(n) ((uint64_t)(n) * 1024 * 1024 * 1024)

#define CHECK_CLASS(expected, f) CHECK_STR(ra_class_to_string(expected), ra_class_to_string((f)->class))

/* ---- the table: one block device ----------------------------------------- */

struct classify_case {
        const char *name;
        /* The device as gather would fill it from sysfs: a blank one of this
         * name and transport (1000 GiB, 512-byte blocks, io_min 512), then
         * what is set here (0, false and NULL leave the blank's value). */
        const char *dev;
        enum ra_transport transport;
        unsigned major;
        bool rotational, removable, optical;
        uint64_t size_bytes, physical_block_bytes, io_min_bytes, io_opt_bytes;
        const char *dm_target, *slaves;
        /* md: level, md/raid_disks, md/chunk_size (KiB), md/layout; io_opt
         * (KiB) as md sets it. io_min is the chunk (4096 without one) and
         * the physical block 4096. */
        const char *md_level;
        unsigned md_disks;
        uint64_t md_chunk_kb, md_io_opt_kb;
        unsigned md_layout;
        bool twice; /* classified twice: the same result */
        /* Expected, all of it: what is not written is 0, false or NULL. */
        enum ra_class class;
        unsigned data_disks;
        uint64_t chunk_bytes, stripe_bytes;
        const char *stripe_source;
        bool io_opt_ignored;
};

static const struct classify_case classify_cases[] = {
        /* ---- md: the stripe is md/chunk_size x the level's data disks ---- */
        { .name = "md raid5 over 4",
          .md_level = "raid5", .md_disks = 4, .md_chunk_kb = 512, .md_io_opt_kb = 1536,
          .class = RA_CLASS_RAID, .data_disks = 3, .chunk_bytes = KIB_BYTES(512),
          .stripe_bytes = KIB_BYTES(1536), .stripe_source = "md" },
        { .name = "md raid6 over 6",
          .md_level = "raid6", .md_disks = 6, .md_chunk_kb = 64, .md_io_opt_kb = 256,
          .class = RA_CLASS_RAID, .data_disks = 4, .chunk_bytes = KIB_BYTES(64),
          .stripe_bytes = KIB_BYTES(256), .stripe_source = "md" },
        /* 4 members, two near copies (md/layout 0x102, "n2"): 2 data disks. */
        { .name = "md raid10 n2 over 4",
          .md_level = "raid10", .md_disks = 4, .md_chunk_kb = 512, .md_io_opt_kb = 1024,
          .md_layout = 0x102,
          .class = RA_CLASS_RAID, .data_disks = 2, .chunk_bytes = KIB_BYTES(512),
          .stripe_bytes = KIB_BYTES(1024), .stripe_source = "md" },
        /* "f2" (md/layout 0x201): reads stripe over all 4 members like RAID0;
         * the kernel sets io_opt to 4 chunks (raid10_nr_stripes() divides by
         * near copies only). */
        { .name = "md raid10 f2 over 4",
          .md_level = "raid10", .md_disks = 4, .md_chunk_kb = 512, .md_io_opt_kb = 2048,
          .md_layout = 0x201,
          .class = RA_CLASS_RAID, .data_disks = 4, .chunk_bytes = KIB_BYTES(512),
          .stripe_bytes = KIB_BYTES(2048), .stripe_source = "md" },
        /* "n2" over 3 members: near copies do not divide the members, so the
         * kernel's io_opt is 3 chunks. */
        { .name = "md raid10 n2 over 3",
          .md_level = "raid10", .md_disks = 3, .md_chunk_kb = 512, .md_io_opt_kb = 1536,
          .md_layout = 0x102,
          .class = RA_CLASS_RAID, .data_disks = 3, .chunk_bytes = KIB_BYTES(512),
          .stripe_bytes = KIB_BYTES(1536), .stripe_source = "md" },
        { .name = "md raid0 over 3",
          .md_level = "raid0", .md_disks = 3, .md_chunk_kb = 128, .md_io_opt_kb = 384,
          .class = RA_CLASS_RAID, .data_disks = 3, .chunk_bytes = KIB_BYTES(128),
          .stripe_bytes = KIB_BYTES(384), .stripe_source = "md" },
        /* Mirrors have no chunk and no stripe. */
        { .name = "md raid1 over 2",
          .md_level = "raid1", .md_disks = 2,
          .class = RA_CLASS_RAID, .data_disks = 1 },
        { .name = "md raid5 classified twice",
          .md_level = "raid5", .md_disks = 4, .md_chunk_kb = 512, .md_io_opt_kb = 1536,
          .twice = true,
          .class = RA_CLASS_RAID, .data_disks = 3, .chunk_bytes = KIB_BYTES(512),
          .stripe_bytes = KIB_BYTES(1536), .stripe_source = "md" },

        /* ---- io_opt: a stripe only as 2 to 64 chunks larger than a block ---- */
        /* LVM on top of a RAID5: the stripe is inherited as io_opt. */
        { .name = "dm lvm on md raid5: io_opt trusted",
          .dev = "dm-0", .transport = RA_TRANSPORT_DM, .major = 253, .dm_target = "lvm",
          .slaves = "md0", .physical_block_bytes = 4096, .io_min_bytes = KIB_BYTES(512),
          .io_opt_bytes = KIB_BYTES(1536),
          .class = RA_CLASS_RAID, .data_disks = 3, .chunk_bytes = KIB_BYTES(512),
          .stripe_bytes = KIB_BYTES(1536), .stripe_source = "dm io_opt" },
        /* dm-crypt on an SSD: no stripe, the class follows the disk below. */
        { .name = "dm crypt without io_opt",
          .dev = "dm-1", .transport = RA_TRANSPORT_DM, .major = 253, .dm_target = "crypt",
          .physical_block_bytes = 4096, .io_min_bytes = 4096,
          .class = RA_CLASS_SSD },
        /* A RAID controller reporting a 256 KiB chunk and a 1 MiB stripe. */
        { .name = "hw raid: io_opt trusted",
          .dev = "sda", .transport = RA_TRANSPORT_SCSI, .rotational = true,
          .physical_block_bytes = 4096, .io_min_bytes = KIB_BYTES(256),
          .io_opt_bytes = KIB_BYTES(1024),
          .class = RA_CLASS_RAID, .data_disks = 4, .chunk_bytes = KIB_BYTES(256),
          .stripe_bytes = KIB_BYTES(1024), .stripe_source = "hw raid io_opt" },
        { .name = "hw raid: io_opt not a multiple of io_min",
          .dev = "sda", .transport = RA_TRANSPORT_SCSI, .rotational = true,
          .physical_block_bytes = 4096, .io_min_bytes = KIB_BYTES(256),
          .io_opt_bytes = KIB_BYTES(1000),
          .class = RA_CLASS_HDD, .io_opt_ignored = true },
        /* 65535 sectors of 512 bytes: would be a ~64 MiB "stripe". */
        { .name = "usb bridge: io_opt ignored",
          .dev = "sdb", .transport = RA_TRANSPORT_USB, .rotational = true,
          .physical_block_bytes = 512, .io_min_bytes = 512, .io_opt_bytes = 33553920,
          .class = RA_CLASS_HDD, .io_opt_ignored = true },
        /* A 4Kn disk: io_opt is a multiple of io_min, but io_min is just the
         * physical block, not a chunk. */
        { .name = "4Kn hdd: io_min is the physical block",
          .dev = "sdc", .transport = RA_TRANSPORT_ATA, .rotational = true,
          .physical_block_bytes = 4096, .io_min_bytes = 4096, .io_opt_bytes = KIB_BYTES(64),
          .class = RA_CLASS_HDD, .io_opt_ignored = true },
        { .name = "nvme: io_min is the physical block",
          .dev = "nvme0n1", .transport = RA_TRANSPORT_NVME,
          .physical_block_bytes = 4096, .io_min_bytes = 4096, .io_opt_bytes = KIB_BYTES(128),
          .class = RA_CLASS_SSD, .io_opt_ignored = true },
        /* An SSD behind a SCSI layer reporting 4 KiB io_min and io_opt over
         * 512-byte blocks: one "data disk" is no stripe. */
        { .name = "scsi ssd: io_opt equal to io_min",
          .dev = "sdf", .transport = RA_TRANSPORT_SCSI,
          .physical_block_bytes = 512, .io_min_bytes = 4096, .io_opt_bytes = 4096,
          .class = RA_CLASS_SSD, .io_opt_ignored = true },
        /* 8191 x 4 KiB: a multiple, but no controller has 8191 data disks. */
        { .name = "usb: absurd data disk count",
          .dev = "sdg", .transport = RA_TRANSPORT_USB, .rotational = true,
          .physical_block_bytes = 512, .io_min_bytes = 4096, .io_opt_bytes = 8191ULL * 4096,
          .class = RA_CLASS_HDD, .io_opt_ignored = true },

        /* ---- classes ---- */
        { .name = "optical",
          .dev = "sr0", .transport = RA_TRANSPORT_ATA, .optical = true, .removable = true,
          .rotational = true, .physical_block_bytes = 2048, .io_min_bytes = 2048,
          .class = RA_CLASS_OPTICAL },
        /* No io_opt at all: nothing ignored. */
        { .name = "plain disk: rotational ata",
          .dev = "sda", .transport = RA_TRANSPORT_ATA, .rotational = true,
          .class = RA_CLASS_HDD },
        { .name = "plain disk: non-rotational ata",
          .dev = "sdb", .transport = RA_TRANSPORT_ATA,
          .class = RA_CLASS_SSD },
        { .name = "plain disk: nvme",
          .dev = "nvme0n1", .transport = RA_TRANSPORT_NVME,
          .class = RA_CLASS_SSD },
        /* RAM-backed whatever their io_opt says; brd says rotational on old kernels. */
        { .name = "memory: zram",
          .dev = "zram0", .transport = RA_TRANSPORT_ZRAM,
          .physical_block_bytes = 4096, .io_min_bytes = 4096, .io_opt_bytes = 4096,
          .class = RA_CLASS_MEMORY, .io_opt_ignored = true },
        { .name = "memory: brd, rotational",
          .dev = "ram0", .transport = RA_TRANSPORT_BRD, .rotational = true,
          .physical_block_bytes = 4096, .io_min_bytes = 4096, .io_opt_bytes = 4096,
          .class = RA_CLASS_MEMORY, .io_opt_ignored = true },
        { .name = "memory: pmem",
          .dev = "pmem0", .transport = RA_TRANSPORT_PMEM,
          .physical_block_bytes = 4096, .io_min_bytes = 4096, .io_opt_bytes = 4096,
          .class = RA_CLASS_MEMORY, .io_opt_ignored = true },
        { .name = "removable: usb key",
          .dev = "sdd", .transport = RA_TRANSPORT_USB, .removable = true,
          .size_bytes = GIB_BYTES(32),
          .class = RA_CLASS_REMOVABLE },
        { .name = "removable: sd card",
          .dev = "mmcblk1", .transport = RA_TRANSPORT_MMC, .removable = true,
          .class = RA_CLASS_REMOVABLE },
        /* Removable wins over hdd: a card reader that says "rotational". */
        { .name = "removable: a card reader that says rotational",
          .dev = "sde", .transport = RA_TRANSPORT_USB, .removable = true, .rotational = true,
          .class = RA_CLASS_REMOVABLE },
};

static void build(struct ra_facts *f, const struct classify_case *c) {
        ra_facts_init(f);
        f->kind = RA_KIND_BLOCK;
        snprintf(f->name, sizeof(f->name), "%s", c->md_level ? "md0" : c->dev);
        f->transport = c->md_level ? RA_TRANSPORT_MD : c->transport;
        f->size_bytes = GIB_BYTES(1000);
        f->page_kb = 4;
        f->mem_total_kb = 16777216;
        f->physical_block_bytes = 512;
        f->io_min_bytes = 512;
        if (c->md_level) {
                /* As sysfs shows an md array: io_min = chunk, io_opt = stripe. */
                f->major = 9;
                snprintf(f->md_level, sizeof(f->md_level), "%s", c->md_level);
                f->md_raid_disks = c->md_disks;
                f->md_layout = c->md_layout;
                f->chunk_bytes = KIB_BYTES(c->md_chunk_kb); /* md/chunk_size */
                f->physical_block_bytes = 4096;
                f->io_min_bytes = c->md_chunk_kb ? KIB_BYTES(c->md_chunk_kb) : 4096;
                f->io_opt_bytes = KIB_BYTES(c->md_io_opt_kb);
        }
        if (c->major)
                f->major = c->major;
        f->rotational = c->rotational;
        f->removable = c->removable;
        f->optical = c->optical;
        if (c->size_bytes)
                f->size_bytes = c->size_bytes;
        if (c->physical_block_bytes)
                f->physical_block_bytes = c->physical_block_bytes;
        if (c->io_min_bytes)
                f->io_min_bytes = c->io_min_bytes;
        if (c->io_opt_bytes)
                f->io_opt_bytes = c->io_opt_bytes;
        if (c->dm_target)
                snprintf(f->dm_target, sizeof(f->dm_target), "%s", c->dm_target);
        if (c->slaves)
                ra_facts_set(&f->slaves, c->slaves);
}

static void run_classify_case(const void *arg) {
        const struct classify_case *c = arg;
        struct ra_facts f;

        build(&f, c);
        ra_facts_classify(&f);
        if (c->twice)
                ra_facts_classify(&f);
        CHECK_CLASS(c->class, &f);
        CHECK_INT(c->data_disks, f.data_disks);
        CHECK_U64(c->chunk_bytes, f.chunk_bytes);
        CHECK_U64(c->stripe_bytes, f.stripe_bytes);
        CHECK_STR(c->stripe_source ? c->stripe_source : "(none)",
                  f.stripe_source ? f.stripe_source : "(none)");
        CHECK_INT(c->io_opt_ignored, f.io_opt_ignored);
        ra_facts_done(&f);
}

/* ---- cases of their own --------------------------------------------------- */

static void test_mounts(void) {
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

static void test_strings(void) {
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

/* One table both ways: every kind's name reads back as that kind. */
static void test_kind_names(void) {
        CHECK_STR("block", ra_kind_to_string(RA_KIND_BLOCK));
        CHECK_STR("mount", ra_kind_to_string(RA_KIND_MOUNT));
        CHECK_INT(RA_KIND_BLOCK, ra_kind_from_string("block"));
        CHECK_INT(RA_KIND_MOUNT, ra_kind_from_string("mount"));
        CHECK_INT(-EINVAL, ra_kind_from_string("Block"));
        CHECK_INT(-EINVAL, ra_kind_from_string(""));
        CHECK_INT(-EINVAL, ra_kind_from_string("unknown"));
}

/* ra_facts_done() frees every owned string, the named ones included: a
 * string fact added to the struct is freed without another line. */
static void test_owned_strings(void) {
        struct ra_facts f;
        const size_t n = sizeof(f.strings) / sizeof(f.strings[0]);

        ra_facts_init(&f);
        for (size_t i = 0; i < n; i++)
                CHECK_INT(0, ra_facts_set(&f.strings[i], "x"));
        CHECK_STR("x", f.attr_path);
        CHECK_STR("x", f.slaves);
        ra_facts_done(&f);
        for (size_t i = 0; i < n; i++)
                CHECK(f.strings[i] == NULL);
}

static void test_props(void) {
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

static void test_btrfs_data_disks(void) {
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

static void test_btrfs_kernel_value(void) {
        /* fs/btrfs/disk-io.c: max(4 MiB, 128 KiB x devices) */
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(1));
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(2));
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(32));
        CHECK_U64(4224, ra_btrfs_kernel_ra_kb(33));
        CHECK_U64(4096, ra_btrfs_kernel_ra_kb(0));
}

static void test_btrfs_bdi_names(void) {
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

static void test_btrfs_source_names(void) {
        CHECK(ra_btrfs_source_names("/dev/sda2", "sda2", ""));
        CHECK(ra_btrfs_source_names("/dev/dm-0", "dm-0", "root"));
        CHECK(ra_btrfs_source_names("/dev/mapper/root", "dm-0", "root"));
        CHECK(!ra_btrfs_source_names("/dev/mapper/root", "dm-0", "home"));
        CHECK(!ra_btrfs_source_names("/dev/mapper/root", "dm-0", NULL));
        CHECK(!ra_btrfs_source_names("/dev/sda2", "sda", ""));
        CHECK(!ra_btrfs_source_names("/dev/sda", "sda2", ""));
        CHECK(!ra_btrfs_source_names("", "", ""));
}

static void test_btrfs_raid10_eight(void) {
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

static void test_btrfs_not_striped_has_members_class(void) {
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

static void test_btrfs_on_md_raid5(void) {
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

static void test_btrfs_many_devices(void) {
        struct ra_facts f;

        /* More devices than are stored: the stripe counts them all. */
        btrfs_fs(&f, "raid0", 20, RA_CLASS_HDD);
        CHECK_INT(RA_MEMBERS_MAX, f.n_members);
        ra_facts_classify(&f);
        CHECK_INT(20, f.data_disks);
        CHECK_U64(KIB_BYTES(1280), f.stripe_bytes);
        ra_facts_done(&f);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN_TABLE(classify_cases, run_classify_case);
        RUN(test_mounts);
        RUN(test_strings);
        RUN(test_kind_names);
        RUN(test_owned_strings);
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
