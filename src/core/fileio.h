/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Reading files: sysfs attributes, /proc, whole files. Read-only and silent,
 * negative errno on failure. The core's gathering reads through these, and so
 * does write-read-ahead.c to read a value back.
 */

/* Reads a small sysfs attribute as a string, without the trailing newline. */
int ra_read_string_file(const char *path, char *buf, size_t size);

/* A decimal number of digits only (no sign, space or anything after them):
 * -EINVAL otherwise, -ERANGE above UINT64_MAX. */
int ra_parse_u64(const char *s, uint64_t *ret);

/* Reads a small sysfs attribute as an unsigned number. */
int ra_read_u64_file(const char *path, uint64_t *ret);

/* The last path element of a sysfs symlink's target ("btrfs-1" for a
 * btrfs file system's bdi link, "block" for a device's subsystem link), cut
 * to size - 1 bytes; -EINVAL for a target with no '/', which sysfs never
 * makes. */
int ra_read_link_basename(const char *path, char *buf, size_t size);

/* A file whole, NUL-terminated; -EFBIG when longer than max_bytes. */
int ra_read_whole_file(const char *path, size_t max_bytes, char **ret, size_t *ret_len);
/* The same from an open file (not closed). */
int ra_read_whole_fd(int fd, size_t max_bytes, char **ret, size_t *ret_len);
