/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "knee.h"

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

static double median_of(const double *v, size_t n) {
        double sorted[RA_KNEE_ROUNDS_MAX];
        memcpy(sorted, v, n * sizeof(*v));
        qsort(sorted, n, sizeof(*sorted), cmp_double);
        return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* The smallest index whose value is within the tolerance of the largest. */
static size_t knee_of(const double *values, size_t n, size_t stride, size_t *ret_best) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
                if (values[i * stride] > values[best * stride])
                        best = i;
        if (ret_best)
                *ret_best = best;
        for (size_t i = 0; i < n; i++)
                if (values[i * stride] >= (1 - RA_KNEE_TOLERANCE) * values[best * stride])
                        return i;
        return best;
}

int ra_knee_summarize(const uint64_t *sizes_kb, const double *samples, size_t n_sizes, size_t n_rounds,
                      struct ra_knee_point *points) {
        if (n_sizes == 0 || n_rounds == 0 || n_sizes > RA_KNEE_SIZES_MAX || n_rounds > RA_KNEE_ROUNDS_MAX)
                return -EINVAL;
        for (size_t i = 0; i < n_sizes; i++) {
                if (i > 0 && sizes_kb[i] <= sizes_kb[i - 1])
                        return -EINVAL;
                for (size_t k = 0; k < n_rounds; k++)
                        if (!(samples[i * n_rounds + k] > 0)) /* also NaN */
                                return -EINVAL;
        }
        for (size_t i = 0; i < n_sizes; i++) {
                const double *s = &samples[i * n_rounds];
                struct ra_knee_point *p = &points[i];
                p->read_ahead_kb = sizes_kb[i];
                p->min = p->max = s[0];
                for (size_t k = 1; k < n_rounds; k++) {
                        if (s[k] < p->min)
                                p->min = s[k];
                        if (s[k] > p->max)
                                p->max = s[k];
                }
                p->median = median_of(s, n_rounds);
        }
        return 0;
}

int ra_knee_find(const uint64_t *sizes_kb, const double *samples, size_t n_sizes, size_t n_rounds,
                 struct ra_knee_point *points, struct ra_knee *ret) {
        double medians[RA_KNEE_SIZES_MAX];
        int r = ra_knee_summarize(sizes_kb, samples, n_sizes, n_rounds, points);

        if (r < 0)
                return r;
        for (size_t i = 0; i < n_sizes; i++)
                medians[i] = points[i].median;

        struct ra_knee k = {};
        k.knee = knee_of(medians, n_sizes, 1, &k.best);
        for (size_t round = 0; round < n_rounds; round++)
                k.round_knee[round] = knee_of(samples + round, n_sizes, n_rounds, NULL);

        /* The knee stands if the rounds agree better than the step it rests
         * on: the gain from the size below. At the first size nothing is
         * below, so the rounds must agree within the tolerance itself. */
        const struct ra_knee_point *at = &points[k.knee], *best = &points[k.best];
        double range = at->max - at->min;
        if (best->max - best->min > range)
                range = best->max - best->min;
        if (k.knee > 0) {
                const struct ra_knee_point *below = &points[k.knee - 1];
                if (below->max - below->min > range)
                        range = below->max - below->min;
                k.gain = (at->median - below->median) / at->median;
        }
        k.noise = range / at->median;
        k.confident = k.knee > 0 ? k.noise < k.gain : k.noise < RA_KNEE_TOLERANCE;
        k.at_top = n_sizes > 1 && k.knee == n_sizes - 1 && k.gain >= RA_KNEE_TOLERANCE;
        *ret = k;
        return 0;
}
