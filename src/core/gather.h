/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>

#include "facts.h"

/*
 * Gathering facts: reads sysfs, udev properties and /proc, read-only, with
 * the file readers of fileio.h. The core's other I/O: btrfs.c (its sysfs),
 * mountinfo.c's and snapshot.c's reads of /proc/self/mountinfo, and
 * conf-files.c (the profiles); the decisions read none.
 */

/* Fills f for a whole-disk block device; classifies it. */
int ra_gather_block(struct udev_device *dev, struct ra_facts *f);

/* A udev property of dev, or NULL. */
typedef const char *(*ra_prop_fn)(struct udev_device *dev, const char *key);

/*
 * The same, but of the device's udev properties only the ones gather reads
 * itself and those named in keys (repeats allowed): one lookup each, where
 * the whole list costs libudev a sorted copy of every property. For the
 * agent, whose decision reads no more than its rules' Property= keys
 * (ra_profile_property_keys()); readahead-ctl shows them all. get looks a
 * property up (NULL: udev_device_get_property_value()).
 */
int ra_gather_block_keys(struct udev_device *dev, ra_prop_fn get, const char *const *keys, size_t n_keys,
                         struct ra_facts *f);

/*
 * Fills f for the network or FUSE filesystem behind an anonymous bdi ("0:53").
 * Returns -ENOENT while the mount is not in /proc/self/mountinfo yet,
 * -ENODEV when the bdi is gone, -EINVAL for a bdi that is not anonymous,
 * -EFBIG when mountinfo is too large to read.
 */
int ra_gather_bdi(const char *bdi_name, struct ra_facts *f);

/* /sys/class/bdi/NAME/read_ahead_kb as attr_path, and the value it holds;
 * -ENODEV when there is no such bdi. */
int ra_gather_bdi_current(const char *bdi_name, struct ra_facts *f);
/* f->current_kb read again from f->attr_path; f->current_known says
 * whether it could be (no attribute, or one gone: false). */
bool ra_gather_current_kb(struct ra_facts *f);

/* Host facts: page size and MemTotal. */
void ra_gather_host(struct ra_facts *f);

/* MemTotal from /proc/meminfo, in KiB. */
int ra_read_mem_total_kb(uint64_t *ret_kb);

/*
 * Fills f for a bdi the agent handles: anonymous ("0:53", network and FUSE
 * mounts, ra_gather_bdi()) or "btrfs-N" (ra_gather_btrfs()), with the same
 * return values.
 */
int ra_gather_named_bdi(struct udev *udev, const char *bdi_name, struct ra_facts *f);

/* Whether the agent handles bdi_name: "0:N" or "btrfs-N". */
bool ra_bdi_is_ours(const char *bdi_name);
