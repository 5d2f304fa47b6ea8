/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "facts.h"

/*
 * What the last `readahead-ctl advise` concluded per device, kept for
 * `status --format=prometheus` so that a fleet sees where the profile does
 * not fit without status having to observe anything itself. One file,
 * ROOT/run/readahead-agent/advice: /run, because an advice is about this
 * boot's devices and workload only. One line per device, tab-separated:
 * name, kind, class, advice (1 raise, 0 keep, -1 lower), suggested KiB,
 * when it was made (seconds since the epoch), and held KiB (see held_kb;
 * lines without it are read as 0). A device with no signal has no line.
 */
struct advice_record {
        char name[RA_NAME_MAX];
        char kind[8];   /* block, mount */
        char class[16]; /* as status labels it */
        int gauge;
        uint64_t suggested_kb;
        int64_t made;
        /* A value advise lowered to and holds (no raise back to where it
         * lowered from), 0 for none: set by a lower, kept by the keeps
         * that follow it at that value. */
        uint64_t held_kb;
};

#define ADVICE_RECORDS_MAX 4096
/* A longer file is refused: 4096 lines of at most ~100 bytes fit. */
#define ADVICE_RECORD_BYTES_MAX (1024 * 1024)

/* Replaces the records of the devices `watched` (this run's) by r, keeps the
 * others': under flock(ROOT/run/readahead-agent/advice.lock), written to a
 * temporary file of this run's own, then renamed. -ENAMETOOLONG under a
 * refused root. */
int advice_records_save(const struct ra_config *c, const struct advice_record *r, size_t n,
                        const char *const *watched, size_t n_watched);
/* The records of the file; none (0, *ret_n 0) when there is no file. The
 * file must be a regular file (no symlink, FIFO or device) of at most
 * ADVICE_RECORD_BYTES_MAX. Malformed lines (a kind or class we do not
 * write, a name that is not clean UTF-8) are skipped; of two lines for one
 * device the later counts. */
int advice_records_load(const char *root, struct advice_record **ret, size_t *ret_n);

/* readahead_advice, readahead_advice_suggested_bytes and
 * readahead_advice_timestamp_seconds, labelled device, kind and class. */
void advice_prometheus(FILE *out, const struct advice_record *r, size_t n);
