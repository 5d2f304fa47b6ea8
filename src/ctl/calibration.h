/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * One calibration of a block device, as `readahead-ctl calibrate` runs it:
 * each size of a plan set on the device and measured, read_ahead_kb put back
 * afterwards, and the knee found in the results. Messages go to stderr,
 * after "readahead-ctl calibrate: "; what the verb prints is ctl-calibrate.c's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "facts.h"
#include "knee.h"

#define STREAMS_MAX 16
/* Time shares of the three steps for one size: several streams need longer
 * to get past their first windows. */
#define ONE_STEP_SHARE 1.0
#define STREAMS_STEP_SHARE 2.0
#define FAULTS_STEP_SHARE 1.0
#define STEP_SHARES (ONE_STEP_SHARE + STREAMS_STEP_SHARE + FAULTS_STEP_SHARE)
/* The signal handler puts read_ahead_kb back through a copy of its path. */
#define RESTORE_PATH_MAX RA_PATH_MAX

enum step_kind {
        STEP_ONE_STREAM,
        STEP_STREAMS,
        STEP_FAULTS,
        _STEP_MAX,
};

/* What to measure, from calibrate's options (make_plan()). */
struct calibrate_plan {
        uint64_t sizes_kb[RA_KNEE_SIZES_MAX];
        size_t n_sizes;
        unsigned rounds;
        unsigned streams;
        double seconds;
        double step_seconds;
};

struct calibration {
        const struct ra_facts *f;
        char devnode[RA_NAME_MAX + 8];
        struct calibrate_plan plan;
        uint64_t before_kb;
        bool tty;
        double started;

        /* [size * rounds + round] */
        double one_mib_s[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];
        double streams_mib_s[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];
        double fault_ms[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];
        uint64_t faults[RA_KNEE_SIZES_MAX * RA_KNEE_ROUNDS_MAX];

        uint64_t slot_bytes;
        unsigned n_slots, next_slot;
        uint64_t seed;

        /* how the run ended */
        bool restored;  /* read_ahead_kb is before_kb again */
        int stopped_by; /* SIGINT, SIGTERM or SIGHUP; 0: none */

        /* results */
        struct ra_knee_point one[RA_KNEE_SIZES_MAX], multi[RA_KNEE_SIZES_MAX], fault[RA_KNEE_SIZES_MAX];
        struct ra_knee knee_one, knee_multi;
        const struct ra_knee *chosen;               /* the larger knee of the two */
        const struct ra_knee_point *chosen_points;
        uint64_t knee_kb; /* 0: no recommendation */
        char verdict[400];
};

/* Sets c up to measure f (a whole disk, its read_ahead_kb known) by plan,
 * and opens the device node once: failing now, not after minutes of
 * measuring. -errno, said on stderr. */
int calibration_init(struct calibration *c, const struct ra_facts *f, const struct calibrate_plan *plan);

/* Measures every size of the plan, then puts read_ahead_kb back to
 * c->before_kb, also when SIGINT, SIGTERM or SIGHUP stops it (a second one
 * puts it back from the handler and exits). Negative when the run failed or
 * was stopped; c->restored and c->stopped_by say how it ended. */
int calibration_measure(struct calibration *c);

/* The knee of the measured sizes: c->knee_kb (0: none the rounds agree on)
 * and c->verdict, the reason in words. */
void calibration_analyse(struct calibration *c);
