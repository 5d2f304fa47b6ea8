/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "facts.h"

/*
 * What the last `readahead-ctl advise` concluded per device, kept for
 * `status --format=prometheus` so that a fleet sees where the profile does
 * not fit without status having to observe anything itself. One file,
 * ROOT/run/readahead-agent/advice: /run, because an advice is about this
 * boot's devices and workload only. One line per device, tab-separated:
 * name, kind, class, advice (1 raise, 0 keep, -1 lower), suggested KiB, and
 * when it was made (seconds since the epoch). A device with no signal has
 * no line.
 */
struct advice_record {
        char name[RA_NAME_MAX];
        char kind[8];   /* block, mount */
        char class[16]; /* as status labels it */
        int gauge;
        uint64_t suggested_kb;
        int64_t made;
};

#define ADVICE_RECORDS_MAX 4096

/* Replaces the file (written aside, then renamed). */
int advice_records_save(const char *root, const struct advice_record *r, size_t n);
/* The records of the file; none (0, *ret_n 0) when there is no file.
 * Malformed lines are skipped. */
int advice_records_load(const char *root, struct advice_record **ret, size_t *ret_n);

/* readahead_advice, readahead_advice_suggested_bytes and
 * readahead_advice_timestamp_seconds, labelled device, kind and class. */
void advice_prometheus(FILE *out, const struct advice_record *r, size_t n);
