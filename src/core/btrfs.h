/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "facts.h"
#include "mountinfo.h"

/*
 * btrfs gives each filesystem its own bdi, "btrfs-N", and file reads use it,
 * not the disks'. /sys/fs/btrfs/<fsid>/ links the filesystem to that bdi
 * (bdi), lists its member block devices (devices/, devinfo/) and the data
 * profiles in use (allocation/data/<profile>/). The mount is found in
 * mountinfo by its source, which names one member.
 */

/* btrfs's stripe length (BTRFS_STRIPE_LEN): each device's share of a stripe. */
#define RA_BTRFS_STRIPE_LEN_BYTES (UINT64_C(64) * 1024)

/* "btrfs-12": true. */
bool ra_bdi_is_btrfs(const char *bdi_name);

/*
 * Data-bearing devices of one full stripe for a data profile over n_devices:
 * raid0 n, raid10 n/2 (two copies), raid5 n-1, raid6 n-2; 0 for profiles that
 * do not stripe (single, dup, raid1, raid1c3, raid1c4) or unknown ones.
 */
unsigned ra_btrfs_data_disks(const char *profile, unsigned n_devices);

/* What btrfs itself sets at mount: max(4 MiB, 128 KiB x devices), in KiB. */
uint64_t ra_btrfs_kernel_ra_kb(unsigned n_devices);

/*
 * Pure: class, transport, rotational, removable and stripe of a btrfs
 * filesystem from its members and data profile. A striped data profile is
 * class raid with stripe 64 KiB x data-bearing devices; otherwise the class
 * is the first, in precedence order, that any member has, and a single member
 * lends its own stripe (btrfs on an md RAID5).
 */
void ra_btrfs_classify(struct ra_facts *f);

/*
 * Pure: whether a mountinfo source ("/dev/sda2", "/dev/mapper/root") names a
 * member, by its kernel name or, under /dev/mapper, by its dm name.
 */
bool ra_btrfs_source_names(const char *source, const char *member, const char *dm_name);

/*
 * Fills f for the btrfs filesystem behind bdi "btrfs-N": members (with
 * their disks' classes, through udev), data profile, total size, mount.
 * Returns -EINVAL for another bdi name, -ENODEV when the bdi is gone, and
 * -ENOENT while the filesystem is not linked to it or not in mountinfo yet
 * (the bdi is added early in mount(2)).
 */
int ra_gather_btrfs(struct udev *udev, const char *bdi_name, struct ra_facts *f);

/* The bdi name ("btrfs-3") of the btrfs filesystem mounted as m. */
int ra_btrfs_bdi_of_mount(const struct ra_mount *m, char *bdi, size_t size);
