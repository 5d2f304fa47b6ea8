/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/*
 * The --metrics-file, written so that nobody who can write its directory (a
 * hostPath shared with node_exporter) can turn the agent's writes against
 * another file: the gauges go to a fresh name in the target's directory,
 * created with O_CREAT|O_EXCL|O_NOFOLLOW (a name planted there, a symbolic
 * link or a FIFO, is never opened), and are renamed over the target only
 * while the target is a regular file or absent. Every name is taken relative
 * to the directory opened once, so the temporary and the target stay in the
 * same directory whatever is renamed meanwhile.
 */

struct metrics_file {
        int dir_fd;      /* the target's directory; -1: closed */
        int fd;          /* the temporary, open for writing; -1: none */
        const char *base; /* the target's name in that directory (points into the path) */
        char tmp[272];   /* the temporary's name in that directory */
        mode_t target_mode; /* with -EEXIST: what the target is */
};

/* The agent's own gauge, appended after readahead-ctl's output. */
#define METRICS_LAST_SUCCESS_GAUGE "readahead_metrics_last_success_timestamp_seconds"

/* Opens path's directory and creates the temporary. 0, or a negative errno
 * with nothing left behind (of *ret, only target_mode is set): -EEXIST when
 * the target exists and is not a regular file (target_mode says what it
 * is), -EISDIR when path ends in a slash. */
int metrics_file_open(const char *path, struct metrics_file *ret);

/* Appends the last-success gauge (realtime_sec: now) to the temporary. */
int metrics_file_append_success(struct metrics_file *m, uint64_t realtime_sec);

/* Renames the temporary over the target, if the target is still a regular
 * file or absent (-EEXIST otherwise), and closes. On failure the temporary
 * is removed as by metrics_file_abort(). */
int metrics_file_commit(struct metrics_file *m);

/* Removes the temporary and closes; safe on a closed metrics_file. */
void metrics_file_abort(struct metrics_file *m);

/* "a directory", "a symbolic link", "a FIFO", ...: what a refused target is. */
const char *metrics_file_mode_name(mode_t mode);
