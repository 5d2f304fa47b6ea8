/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise-suggest.h"
#include "config.h"
#include "facts.h"

/*
 * The record: what the last `readahead-ctl advise` concluded per device,
 * kept for `status --format=prometheus` (advise-prometheus.h prints it) so
 * that a fleet sees where the profile does not fit without status having to
 * observe anything itself, and for the next advise (no raise back to where
 * the last one lowered from). One file, ROOT/run/readahead-agent/advice:
 * /run, because an advice is about this boot's devices and workload only.
 * One line per device, tab-separated:
 * name, kind, class, advice (1 raise, 0 keep, -1 lower), suggested KiB,
 * when it was made (seconds since the epoch), held KiB (see held_kb) and
 * the rate before a raise (see raise_base_kib_s); lines without the last
 * ones read them as 0. A device with no signal has no line.
 */
struct ra_advice_record {
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
        /* The device's read rate while it read, KiB/s, before the raise to
         * suggested_kb: set by a raise, kept by the keeps that follow it at
         * that value, 0 for none. The next advice weighs its rate against
         * it. */
        uint64_t raise_base_kib_s;
};

#define RA_ADVICE_RECORDS_MAX 4096
/* A longer file is refused: 4096 lines of at most ~100 bytes fit. */
#define RA_ADVICE_RECORD_BYTES_MAX (1024 * 1024)

/* Replaces the records of the devices `watched` (this run's) by r, keeps the
 * others': under flock(ROOT/run/readahead-agent/advice.lock), written to a
 * temporary file of this run's own, then renamed. -ENAMETOOLONG under a
 * refused root. */
int ra_advice_records_save(const struct ra_config *c, const struct ra_advice_record *r, size_t n,
                           const char *const *watched, size_t n_watched);
/* The records of the file; none (0, *ret_n 0) when there is no file. The
 * file must be a regular file (no symlink, FIFO or device) of at most
 * RA_ADVICE_RECORD_BYTES_MAX. Malformed lines (a kind or class we do not
 * write, a name that is not clean UTF-8) are skipped; of two lines for one
 * device the later counts. */
int ra_advice_records_load(const char *root, struct ra_advice_record **ret, size_t *ret_n);

/* The record of one device's advice made at `now` (its kind "block" or
 * "mount", its class as status labels it): false for no signal, which has
 * none. held: the device holds a value the last advice lowered it
 * to (ra_advice_records_held()), which a keep goes on holding. */
bool ra_advice_record_of(const struct ra_facts *f, const struct ra_advice *a, bool held, int64_t now,
                         struct ra_advice_record *ret);
/* Whether the records say the last advice lowered f to the value it holds. */
bool ra_advice_records_held(const struct ra_advice_record *r, size_t n, const struct ra_facts *f);
/* The rate (KiB/s) f read before the raise that brought it to the value it
 * holds, or 0: its record's raise_base_kib_s when f is at the record's
 * suggested value. */
uint64_t ra_advice_records_raised_from(const struct ra_advice_record *r, size_t n, const struct ra_facts *f);
