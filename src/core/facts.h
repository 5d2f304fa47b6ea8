/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Facts about one device or mount: everything decide() may look at.
 * Gathering them is I/O (gather.c, btrfs.c, mountinfo.c); using them is not
 * (classify.c, decide.c, plan.c).
 * Every size carries its unit in its name.
 */

enum ra_kind {
        RA_KIND_BLOCK,
        RA_KIND_MOUNT,
};

/* Ordered by precedence: the first that fits a device is its class. */
enum ra_class {
        RA_CLASS_UNKNOWN,
        RA_CLASS_MEMORY,    /* zram, brd, pmem: page cache would copy RAM */
        RA_CLASS_OPTICAL,   /* CD/DVD: the drive firmware reads ahead */
        RA_CLASS_RAID,      /* md, dm or hardware volume with a stripe */
        RA_CLASS_REMOVABLE, /* USB keys, SD cards */
        RA_CLASS_HDD,
        RA_CLASS_SSD,       /* includes NVMe */
        RA_CLASS_NFS,
        RA_CLASS_NETFS,     /* cifs, ceph, 9p, glusterfs, lustre, ... */
        RA_CLASS_FUSE,
        _RA_CLASS_MAX,
};

enum ra_transport {
        RA_TRANSPORT_UNKNOWN,
        RA_TRANSPORT_NVME,
        RA_TRANSPORT_ATA,
        RA_TRANSPORT_SCSI,
        RA_TRANSPORT_VIRTIO,
        RA_TRANSPORT_USB,
        RA_TRANSPORT_MMC,
        RA_TRANSPORT_LOOP,
        RA_TRANSPORT_MD,
        RA_TRANSPORT_DM,
        RA_TRANSPORT_ZRAM,
        RA_TRANSPORT_BRD,
        RA_TRANSPORT_PMEM,
        RA_TRANSPORT_XEN,
        RA_TRANSPORT_NETWORK,
        _RA_TRANSPORT_MAX,
};

#define RA_NAME_MAX 64
/* Only for configuration paths, which are checked against it; facts that a
 * device, a mount or a user supplies are sized to the data. */
#define RA_PATH_MAX 256

/*
 * Numbers beyond these are not facts but garbage (or an attack): they are
 * treated as unknown and named in ra_facts.invalid, never cut or wrapped.
 */
#define RA_IO_BYTES_MAX (UINT64_C(1) << 40)    /* chunk, io_min, io_opt, block: 1 TiB */
#define RA_RAID_DISKS_MAX 65535
#define RA_MEM_TOTAL_KB_MAX (UINT64_C(1) << 50) /* 1 EiB */

/* Facts that had a value the agent refused (out of range, not a number). */
enum ra_fact {
        RA_FACT_SIZE,
        RA_FACT_IO_MIN,
        RA_FACT_IO_OPT,
        RA_FACT_PHYSICAL_BLOCK,
        RA_FACT_CHUNK,
        RA_FACT_RAID_DISKS,
        RA_FACT_MD_LAYOUT,
        RA_FACT_MEM_TOTAL,
        RA_FACT_RSIZE,
        _RA_FACT_MAX,
};

#define RA_MEMBERS_MAX 16

/* A block device a filesystem lives on (btrfs), with its whole disk's class. */
struct ra_member {
        char name[32]; /* as /sys/fs/btrfs/<fsid>/devices/ names it: sda2, dm-0 */
        char disk[32]; /* the whole disk whose class it has: sda */
        enum ra_class class;
        enum ra_transport transport;
        bool rotational;
        bool removable;
        uint64_t size_bytes;  /* the member itself (a partition: its own size) */
        uint64_t stripe_bytes; /* the disk's trusted stripe, 0 if none */
        uint64_t chunk_bytes;
        unsigned data_disks;
};

struct ra_prop {
        const char *key;
        const char *value;
};

/* The strings struct ra_facts owns (see there), once as a type of their own
 * so that strings[] has their number. */
#define RA_FACTS_OWNED_STRINGS                                                \
        char *slaves;      /* md members or dm lower devices */               \
        char *mount_point; /* the first, when several share the superblock */ \
        char *fstype;                                                         \
        char *source;                                                         \
        char *server;                                                         \
        char *nfs_version;                                                    \
        char *attr_path; /* the read_ahead_kb attribute (a disk's: its bdi's); NULL: none settable */

struct ra_facts_owned_strings {
        RA_FACTS_OWNED_STRINGS
};

struct ra_facts {
        enum ra_kind kind;
        char name[RA_NAME_MAX]; /* kernel name (sda) or bdi name (0:53) */
        unsigned major, minor;

        enum ra_class class;
        enum ra_transport transport;
        bool rotational;
        bool removable;
        bool optical;
        /* The driver that makes it a virtual disk (virtio_blk, virtio_scsi,
         * xen's vbd, hv_storvsc, vmw_pvscsi): its rotational flag is the
         * hypervisor's default, not the medium's. NULL: not virtual. */
        const char *virtual_by;
        uint64_t size_bytes;

        /* Queue limits as the kernel reports them. */
        uint64_t io_min_bytes;
        uint64_t io_opt_bytes;
        uint64_t physical_block_bytes;
        uint64_t max_sectors_kb; /* largest request; since 6.17 the io_opt of a rotational disk without one */

        /* Stripe geometry, when trustworthy (see classify.c). */
        uint64_t chunk_bytes;
        unsigned data_disks;
        uint64_t stripe_bytes;
        const char *stripe_source; /* "md", "dm io_opt", "hw raid io_opt" */
        bool io_opt_ignored;       /* io_opt present but not a stripe */
        bool io_opt_one_unit;      /* ignored as no wider than a block or io_min: no stripe, not bogus */

        /* md */
        char md_level[16];
        unsigned md_raid_disks;
        unsigned md_layout;

        /* dm */
        char dm_target[16]; /* "lvm", "crypt", "multipath", "dm" */

        /*
         * Strings a device, a mount or a user supplies: allocated to their
         * length (never cut), owned by the facts, NULL when unknown. Read
         * them through ra_str(); set them with ra_facts_set().
         * A new one is a line of RA_FACTS_OWNED_STRINGS above:
         * ra_facts_done() frees all of strings[].
         */
        union {
                struct {
                        RA_FACTS_OWNED_STRINGS
                };
                char *strings[sizeof(struct ra_facts_owned_strings) / sizeof(char *)];
        };

        /* mounts (kind == RA_KIND_MOUNT) */
        unsigned n_mount_points;
        uint64_t rsize_bytes;

        /* btrfs (fstype "btrfs", name "btrfs-N"): its members and data profile */
        char btrfs_fsid[40];
        char data_profile[16]; /* single, dup, raid0, raid1, raid1c3, raid1c4, raid10, raid5, raid6 */
        struct ra_member members[RA_MEMBERS_MAX];
        unsigned n_members;      /* stored in members[], at most RA_MEMBERS_MAX */
        unsigned n_devices;      /* every device of the filesystem, also those not stored */

        /* host */
        uint64_t mem_total_kb;
        unsigned page_kb;
        unsigned kernel_major, kernel_minor; /* 0.0 when unknown */

        /* Why not to write read_ahead_kb now: a suspended dm device or a
         * multipath map with no usable path gets its queue limits (which
         * recompute readahead) again when it resumes, and the change event
         * of the resume writes it. The bdi write itself freezes no queue;
         * queue/read_ahead_kb did, on 6.14 to 6.18.2. NULL: write now. */
        const char *write_blocked;

        /* The value the kernel holds now (current_known false if unreadable). */
        uint64_t current_kb;
        bool current_known;

        /* Bit mask of enum ra_fact: values refused as garbage, now unknown. */
        unsigned invalid;

        /* udev properties, for Property= rules; each key and value in one
         * allocation, as many as the device has. */
        struct ra_prop *props;
        size_t n_props, n_props_allocated;
};

const char *ra_class_to_string(enum ra_class c);
/* "block" or "mount", from the table that ra_kind_from_string() reads. */
const char *ra_kind_to_string(enum ra_kind k);
/* The kind named s, or -EINVAL. */
int ra_kind_from_string(const char *s);
const char *ra_fact_to_string(enum ra_fact fact);

/* NULL reads as "": unknown strings print and match as empty. */
static inline const char *ra_str(const char *s) {
        return s ? s : "";
}

/* Replaces *dst with a copy of src (NULL: unknown). -ENOMEM leaves *dst. */
int ra_facts_set(char **dst, const char *src);
/* The same for n bytes of src. */
int ra_facts_set_n(char **dst, const char *src, size_t n);
const char *ra_transport_to_string(enum ra_transport t);

void ra_facts_init(struct ra_facts *f);
void ra_facts_done(struct ra_facts *f);
/* Copies key and value; returns -ENOMEM only. */
int ra_facts_add_prop(struct ra_facts *f, const char *key, const char *value);
const char *ra_facts_get_prop(const struct ra_facts *f, const char *key);

#define RA_STABLE_ID_MAX 100

struct ra_stable_id {
        const char *key; /* ID_WWN, ID_SERIAL, MD_UUID or DM_UUID; MountPoint */
        const char *value;
        const char *server; /* an NFS mount's server; NULL for a disk */
};

/* What a rule can pick this device by on every boot: ID_WWN, else ID_SERIAL
 * (both from the drive), else the array's or the mapping's own UUID for md
 * and dm; an NFS mount by its server and mount point, which a remount keeps
 * (its bdi's number is new each time). Only values a profile line carries
 * unchanged. */
bool ra_find_stable_id(const struct ra_facts *f, struct ra_stable_id *ret);
