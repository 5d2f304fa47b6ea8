/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The knee of a throughput curve measured by readahead-ctl calibrate: the
 * smallest read_ahead_kb within RA_KNEE_TOLERANCE of the best throughput.
 * Pure arithmetic over the samples, no I/O.
 */

#define RA_KNEE_TOLERANCE 0.10
#define RA_KNEE_ROUNDS_MAX 9
#define RA_KNEE_SIZES_MAX 32

struct ra_knee_point {
        uint64_t read_ahead_kb;
        double median, min, max; /* over the rounds, in the samples' unit */
};

struct ra_knee {
        size_t knee; /* index into the sizes */
        size_t best; /* the size with the highest median */
        /* Relative to the knee's median: what going from the size below up to
         * the knee gains (0 at the first size), and how much the rounds
         * disagree at the size below, the knee and the best. */
        double gain;
        double noise;
        bool confident; /* noise < gain (at the first size: noise < tolerance) */
        bool at_top;    /* the largest size is the knee and still gains */
        size_t round_knee[RA_KNEE_ROUNDS_MAX]; /* each round on its own */
};

/*
 * Median, minimum and maximum over the rounds for each size:
 * samples[size * n_rounds + round], each above 0. -EINVAL as below.
 */
int ra_knee_summarize(const uint64_t *sizes_kb, const double *samples, size_t n_sizes, size_t n_rounds,
                      struct ra_knee_point *points);

/*
 * samples[size * n_rounds + round] are throughputs (> 0) for sizes_kb in
 * increasing order. Fills points[n_sizes] and *ret. -EINVAL for no sizes, no
 * rounds, too many, sizes not increasing or a sample not above 0.
 */
int ra_knee_find(const uint64_t *sizes_kb, const double *samples, size_t n_sizes, size_t n_rounds,
                 struct ra_knee_point *points, struct ra_knee *ret);
