/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "btrfs.h"
#include "classify.h"

/* A stripe wider than this many data disks is not a stripe but a bogus
 * io_opt (USB bridges report 65535 sectors). */
#define MAX_DATA_DISKS 64

static unsigned md_data_disks(const struct ra_facts *f) {
        unsigned n = f->md_raid_disks;

        if (strcmp(f->md_level, "raid0") == 0)
                return n;
        if (strcmp(f->md_level, "raid1") == 0)
                return n > 0 ? 1 : 0;
        if (strcmp(f->md_level, "raid4") == 0 || strcmp(f->md_level, "raid5") == 0)
                return n > 1 ? n - 1 : 0;
        if (strcmp(f->md_level, "raid6") == 0)
                return n > 2 ? n - 2 : 0;
        if (strcmp(f->md_level, "raid10") == 0) {
                /* md/layout keeps the near copies in bits 0-7. Like the
                 * kernel's io_opt, only near copies that divide the members
                 * shrink the stripe; far and offset copies read like RAID0. */
                unsigned near = f->md_layout & 0xff, far = (f->md_layout >> 8) & 0xff;
                if (f->md_layout >> 17 || near == 0 || far == 0 || near * far > n)
                        return 0; /* a layout md itself would refuse: no stripe */
                return n % near == 0 ? n / near : n;
        }
        return 0; /* linear, multipath, container: no stripe */
}

static void classify_stripe(struct ra_facts *f) {
        f->stripe_bytes = 0;
        f->stripe_source = NULL;
        f->io_opt_ignored = false;
        f->io_opt_one_unit = false;

        if (f->transport == RA_TRANSPORT_MD) {
                f->data_disks = md_data_disks(f);
                if (f->chunk_bytes > 0 && f->data_disks > 0) {
                        f->stripe_bytes = f->chunk_bytes * f->data_disks;
                        f->stripe_source = "md";
                }
                return;
        }

        if (f->io_opt_bytes == 0)
                return;

        /*
         * A hardware RAID controller reports its chunk as io_min and its
         * stripe as io_opt; dm (LVM, crypt) stacks the limits of what lies
         * below, so there they are the md or hardware RAID underneath. Either
         * way, a real stripe is two or more chunks, each larger than a block;
         * a USB bridge's 65535 sectors (inherited by dm-crypt on top) is not.
         */
        if (f->io_min_bytes > f->physical_block_bytes && f->io_min_bytes > 0 &&
            f->io_opt_bytes % f->io_min_bytes == 0 && f->io_opt_bytes / f->io_min_bytes >= 2 &&
            f->io_opt_bytes / f->io_min_bytes <= MAX_DATA_DISKS) {
                f->chunk_bytes = f->io_min_bytes;
                f->data_disks = (unsigned) (f->io_opt_bytes / f->io_min_bytes);
                f->stripe_bytes = f->io_opt_bytes;
                f->stripe_source = f->transport == RA_TRANSPORT_DM ? "dm io_opt" : "hw raid io_opt";
                return;
        }
        f->io_opt_ignored = true;
        /* QEMU's NVMe reports its 512-byte block, zram its 4096-byte page:
         * one unit of I/O, which says there is no stripe. */
        f->io_opt_one_unit = f->io_opt_bytes <= f->physical_block_bytes || f->io_opt_bytes <= f->io_min_bytes;
}

static enum ra_class classify_mount(const struct ra_facts *f) {
        static const char *const netfs[] = { "cifs", "smb3", "smbfs", "ceph", "9p", "glusterfs",
                                             "lustre", "afs", "ncpfs", "orangefs", "beegfs", NULL };

        const char *fstype = ra_str(f->fstype);

        if (strcmp(fstype, "nfs") == 0 || strcmp(fstype, "nfs4") == 0)
                return RA_CLASS_NFS;
        if (strcmp(fstype, "fuse") == 0 || strncmp(fstype, "fuse.", 5) == 0 ||
            strcmp(fstype, "fuseblk") == 0)
                return RA_CLASS_FUSE;
        for (const char *const *n = netfs; *n; n++)
                if (strcmp(fstype, *n) == 0)
                        return RA_CLASS_NETFS;
        return RA_CLASS_UNKNOWN;
}

void ra_facts_classify(struct ra_facts *f) {
        if (f->kind == RA_KIND_MOUNT && strcmp(ra_str(f->fstype), "btrfs") == 0) {
                ra_btrfs_classify(f);
                return;
        }
        if (f->kind == RA_KIND_MOUNT) {
                f->class = classify_mount(f);
                return;
        }

        classify_stripe(f);

        switch (f->transport) {
        case RA_TRANSPORT_ZRAM:
        case RA_TRANSPORT_BRD:
        case RA_TRANSPORT_PMEM:
                f->class = RA_CLASS_MEMORY;
                return;
        default:
                break;
        }
        if (f->optical)
                f->class = RA_CLASS_OPTICAL;
        else if (f->stripe_bytes > 0 ||
                 (f->transport == RA_TRANSPORT_MD && strncmp(f->md_level, "raid", 4) == 0))
                f->class = RA_CLASS_RAID;
        else if (f->removable)
                f->class = RA_CLASS_REMOVABLE;
        else if (f->rotational)
                f->class = RA_CLASS_HDD;
        else
                f->class = RA_CLASS_SSD;
}
