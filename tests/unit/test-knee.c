/* SPDX-License-Identifier: MIT */
/* The knee of a calibrate curve: measured dd curves, noise, edges. */

#include <math.h>

#include "knee.h"
#include "test.h"

/* 125 IOPS / 100 MiB/s (Wu's HDD, 8 ms a request), dd bs=4k, three rounds
 * around these measured numbers: 15.0, 29.8, 60.2, 107.5, 98.0, 106.4 MiB/s. */
static const uint64_t hdd_sizes_kb[] = { 128, 256, 512, 1024, 2048, 4096 };
static const double hdd_rounds[] = {
        15.0, 15.4, 14.8,    /* 128K */
        29.8, 30.5, 29.1,    /* 256K */
        60.2, 61.0, 58.9,    /* 512K */
        107.5, 101.2, 104.0, /* 1M */
        98.0, 100.5, 99.1,   /* 2M */
        106.4, 99.0, 101.7,  /* 4M */
};

static void test_hdd_seed(void) {
        struct ra_knee_point p[6];
        struct ra_knee k;

        REQUIRE(ra_knee_find(hdd_sizes_kb, hdd_rounds, 6, 3, p, &k) == 0);
        CHECK_U64(1024, p[k.knee].read_ahead_kb);
        CHECK_U64(1024, p[k.best].read_ahead_kb); /* medians 104.0, 99.1, 101.7 */
        CHECK(k.confident);
        CHECK(!k.at_top);
        /* medians: 60.2 at 512K, 104.0 at 1M: the step gains 42% */
        CHECK(fabs(p[2].median - 60.2) < 1e-9);
        CHECK(fabs(p[3].median - 104.0) < 1e-9);
        CHECK(fabs(k.gain - (104.0 - 60.2) / 104.0) < 1e-9);
        CHECK_U64(3, k.round_knee[0]);
        CHECK_U64(3, k.round_knee[1]);
        CHECK_U64(3, k.round_knee[2]);
}

/* 2000 IOPS / 200 MiB/s: 62.9, 124.2, 213.9, 215.1 MiB/s at 32K..256K. */
static void test_ssd_seed(void) {
        static const uint64_t sizes[] = { 16, 32, 64, 128, 256, 512 };
        static const double rounds[] = {
                31.4, 31.6, //
                62.9, 63.3, //
                124.2, 121.8, //
                213.9, 209.0, //
                215.1, 212.4, //
                214.0, 216.2, //
        };
        struct ra_knee_point p[6];
        struct ra_knee k;

        REQUIRE(ra_knee_find(sizes, rounds, 6, 2, p, &k) == 0);
        CHECK_U64(128, p[k.knee].read_ahead_kb);
        CHECK(k.confident);
        /* two rounds: the median is the mean of both */
        CHECK(fabs(p[3].median - 211.45) < 1e-9);
}

/* Rounds that disagree more than the step the knee rests on: no answer. */
static void test_noisy_rounds_refuse(void) {
        static const uint64_t sizes[] = { 128, 256, 512, 1024 };
        static const double rounds[] = {
                50, 80, 62,   //
                70, 95, 60,   //
                90, 100, 70,  //
                100, 98, 101, //
        };
        struct ra_knee_point p[4];
        struct ra_knee k;

        REQUIRE(ra_knee_find(sizes, rounds, 4, 3, p, &k) == 0);
        /* medians 62, 70, 90, 100: knee 512K (90 >= 0.9 * 100), gain 22%,
         * but 512K's rounds span 70..100, 30% of 90 */
        CHECK_U64(512, p[k.knee].read_ahead_kb);
        CHECK(!k.confident);
        CHECK(k.noise > k.gain);
}

/* A device that does not care: the first size is the knee, if quiet. */
static void test_flat(void) {
        static const uint64_t sizes[] = { 16, 32, 64 };
        static const double quiet[] = { 500, 505, 498, 502, 501, 499 };
        static const double loud[] = { 450, 530, 498, 502, 501, 499 };
        struct ra_knee_point p[3];
        struct ra_knee k;

        REQUIRE(ra_knee_find(sizes, quiet, 3, 2, p, &k) == 0);
        CHECK_U64(0, k.knee);
        CHECK(k.gain == 0);
        CHECK(k.confident);
        REQUIRE(ra_knee_find(sizes, loud, 3, 2, p, &k) == 0);
        CHECK_U64(0, k.knee);
        CHECK(!k.confident); /* 450..530 is 16% of 490 */
}

/* Still doubling at the largest size: the knee may lie beyond the range. */
static void test_rising_at_top(void) {
        static const uint64_t sizes[] = { 64, 128, 256 };
        static const double rounds[] = { 10, 20, 40 };
        struct ra_knee_point p[3];
        struct ra_knee k;

        REQUIRE(ra_knee_find(sizes, rounds, 3, 1, p, &k) == 0);
        CHECK_U64(2, k.knee);
        CHECK(k.at_top);
        CHECK(k.confident); /* one round: no spread */
}

static void test_invalid(void) {
        static const uint64_t sizes[] = { 64, 64 };
        static const uint64_t ok_sizes[] = { 64, 128 };
        static const double rounds[] = { 10, 20 };
        static const double zero[] = { 10, 0 };
        struct ra_knee_point p[2];
        struct ra_knee k = { .knee = 77 };

        CHECK_INT(-EINVAL, ra_knee_find(sizes, rounds, 2, 1, p, &k));
        CHECK_INT(-EINVAL, ra_knee_find(ok_sizes, zero, 2, 1, p, &k));
        CHECK_INT(-EINVAL, ra_knee_find(ok_sizes, rounds, 0, 1, p, &k));
        CHECK_INT(-EINVAL, ra_knee_find(ok_sizes, rounds, 2, 0, p, &k));
        CHECK_INT(-EINVAL, ra_knee_find(ok_sizes, rounds, 1, RA_KNEE_ROUNDS_MAX + 1, p, &k));
        double nan_sample[] = { 10, NAN };
        CHECK_INT(-EINVAL, ra_knee_find(ok_sizes, nan_sample, 2, 1, p, &k));
        CHECK_U64(77, k.knee); /* untouched on failure */
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_hdd_seed);
        RUN(test_ssd_seed);
        RUN(test_noisy_rounds_refuse);
        RUN(test_flat);
        RUN(test_rising_at_top);
        RUN(test_invalid);
        TEST_MAIN_END;
}
