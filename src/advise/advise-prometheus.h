/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "advise-record.h"

/*
 * advise's gauges in the Prometheus text exposition format, from the
 * records (advise-record.h): what `advise --format=prometheus` prints and
 * `status --format=prometheus` adds. One gauge a line of the table, each
 * labelled device, kind and class; readahead-ctl --list-gauges prints the
 * table and the `tables` test (tests/tables) finds every name in
 * readahead-ctl(8) and README.md.
 */
enum ra_advice_gauge {
        RA_ADVICE_GAUGE_ADVICE,    /* 1 raise, 0 keep, -1 lower */
        RA_ADVICE_GAUGE_SUGGESTED, /* bytes */
        RA_ADVICE_GAUGE_MADE,      /* seconds since the epoch */
        _RA_ADVICE_GAUGE_MAX,
};

struct ra_advice_gauge_info {
        const char *name, *help;
};

extern const struct ra_advice_gauge_info ra_advice_gauges[_RA_ADVICE_GAUGE_MAX];

/* Every gauge of the table with its HELP and TYPE lines, and one line a
 * record. */
void ra_advice_prometheus(FILE *out, const struct ra_advice_record *r, size_t n);
