/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Facts about one device or mount: everything decide() may look at.
 * Gathering them is I/O (facts-*.c); using them is not (decide.c).
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
#define RA_PATH_MAX 256
#define RA_PROPS_MAX 96

struct ra_prop {
        const char *key;
        const char *value;
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
        uint64_t size_bytes;

        /* Queue limits as the kernel reports them. */
        uint64_t io_min_bytes;
        uint64_t io_opt_bytes;
        uint64_t physical_block_bytes;
        uint64_t max_sectors_kb; /* largest request; since 6.17 the io_opt of a rotational disk without one */

        /* Stripe geometry, when trustworthy (see facts-block.c). */
        uint64_t chunk_bytes;
        unsigned data_disks;
        uint64_t stripe_bytes;
        const char *stripe_source; /* "md", "dm io_opt", "hw raid io_opt" */
        bool io_opt_ignored;       /* io_opt present but not a stripe */

        /* md */
        char md_level[16];
        unsigned md_raid_disks;
        unsigned md_layout;

        /* dm */
        char dm_target[16]; /* "lvm", "crypt", "multipath", "dm" */
        char slaves[RA_PATH_MAX]; /* md members or dm lower devices */

        /* mounts (kind == RA_KIND_MOUNT) */
        char mount_point[RA_PATH_MAX]; /* the first, when several share the superblock */
        unsigned n_mount_points;
        char fstype[32];
        char source[RA_PATH_MAX];
        char server[RA_PATH_MAX];
        uint64_t rsize_bytes;
        char nfs_version[8];

        /* host */
        uint64_t mem_total_kb;
        unsigned page_kb;
        unsigned kernel_major, kernel_minor; /* 0.0 when unknown */

        /* Why writing read_ahead_kb could block right now: the write freezes
         * the queue, and a suspended dm device or a multipath map with no
         * usable path would hold it (and the udev worker). NULL: safe. */
        const char *write_blocked;

        /* The read_ahead_kb attribute, and the value the kernel holds now
         * (current_known false if unreadable). */
        char attr_path[RA_PATH_MAX];
        uint64_t current_kb;
        bool current_known;

        /* udev properties, for Property= rules; strings owned by props_buf. */
        struct ra_prop props[RA_PROPS_MAX];
        size_t n_props;
        char *props_buf;
        size_t props_buf_used, props_buf_size;
};

const char *ra_class_to_string(enum ra_class c);
const char *ra_transport_to_string(enum ra_transport t);

void ra_facts_init(struct ra_facts *f);
void ra_facts_done(struct ra_facts *f);
/* Copies key and value; returns -ENOMEM or -E2BIG when the table is full. */
int ra_facts_add_prop(struct ra_facts *f, const char *key, const char *value);
const char *ra_facts_get_prop(const struct ra_facts *f, const char *key);
