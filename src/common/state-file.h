/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdio.h>

/* Small files that one writer at a time replaces whole: advise's record
 * (advise-record.c) and Tune=yes's states (advise-tune-file.c). */

/* path's text, NUL-terminated, read as a bounded regular file and never
 * through a link: a FIFO, a device node, a symlink or a file over max_bytes
 * (also one that grows while read) is an error (-EBADFD, -ELOOP, -EFBIG),
 * never a hang. -ENOENT when there is none. */
int ra_state_read(const char *path, size_t max_bytes, char **ret, size_t *ret_len);

/* flock(LOCK_EX) on lock_path, created 0644 with the directories above it
 * and never opened through a link: the descriptor whose close() releases
 * it, or -errno. */
int ra_state_lock(char *lock_path);

/* path replaced by what print writes: to a fresh file beside it
 * (path.XXXXXX, 0644, its directories made), flushed, then renamed over
 * path; on a failure the fresh file goes and path stays as it was. print
 * returns 0 or -errno. -ENAMETOOLONG when the fresh name does not fit. */
int ra_state_replace(const char *path, int (*print)(FILE *f, const void *data), const void *data);
