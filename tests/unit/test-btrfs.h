/* SPDX-License-Identifier: MIT */
#pragma once

/* A btrfs filesystem's facts as ra_gather_btrfs() fills them, by hand. */

#include <stdio.h>

#include "facts.h"

/* n devices of one class (ATA, 500 GiB partitions sda1, sdb1, ...), mounted
 * on /srv/pool of a 16 GiB host; not classified yet. */
static inline void btrfs_fs(struct ra_facts *f, const char *profile, unsigned n, enum ra_class member_class) {
        ra_facts_init(f);
        f->kind = RA_KIND_MOUNT;
        snprintf(f->name, sizeof(f->name), "btrfs-1");
        (void) ra_facts_set(&f->fstype, "btrfs");
        snprintf(f->btrfs_fsid, sizeof(f->btrfs_fsid), "0a1b2c3d-0000-4000-8000-000000000001");
        snprintf(f->data_profile, sizeof(f->data_profile), "%s", profile);
        (void) ra_facts_set(&f->mount_point, "/srv/pool");
        f->n_mount_points = 1;
        f->mem_total_kb = 16777216;
        f->current_kb = 4096;
        f->current_known = true;
        f->size_bytes = (uint64_t) n * 500 * 1024 * 1024 * 1024;
        f->n_devices = n;
        f->n_members = n < RA_MEMBERS_MAX ? n : RA_MEMBERS_MAX;
        for (unsigned i = 0; i < f->n_members; i++) {
                struct ra_member *m = &f->members[i];
                snprintf(m->name, sizeof(m->name), "sd%c1", 'a' + i);
                snprintf(m->disk, sizeof(m->disk), "sd%c", 'a' + i);
                m->class = member_class;
                m->transport = RA_TRANSPORT_ATA;
                m->rotational = member_class == RA_CLASS_HDD;
                m->size_bytes = (uint64_t) 500 * 1024 * 1024 * 1024;
        }
}
