/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * Writes target_kb to a read_ahead_kb sysfs attribute, a disk's through its
 * bdi (never the device node: a write-close on a disk would make udev
 * synthesize a change event; nor queue/read_ahead_kb, whose write freezes
 * the queue on 6.14 to 6.18.2 and hangs on a multipath map with no path),
 * then reads it back. The kernel floors the value to whole pages, so the
 * caller passes a target already in whole pages and any other read-back is a
 * failure: -EIO with *ret_now_kb set to what the kernel holds.
 */
int ra_write_read_ahead(const char *attr_path, uint64_t target_kb, uint64_t *ret_now_kb);
