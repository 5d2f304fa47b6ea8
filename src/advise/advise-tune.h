/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise-suggest.h"
#include "decide.h"
#include "facts.h"
#include "plan.h"

/*
 * Tune=yes: the agent (--watch --advise-sec=N) moves the read_ahead_kb of a
 * device whose rule says so by each window's advice. Pure: the state of one
 * device, the window's advice and the value the kernel holds in, the step
 * (or why none) out; the agent writes, logs and keeps the states
 * (advise-tune-file.c). The guard rails, in the order they are tried:
 *
 *  - a value someone else wrote (by hand, another tool) is kept until the
 *    next boot or until `readahead-ctl apply` puts the profile's back;
 *  - a step that made the workload's own measure worse by RA_TUNE_WORSE
 *    in RA_TUNE_WORSE_WINDOWS windows running, from the 2nd to the
 *    RA_TUNE_JUDGE_WINDOWS-th after it, is taken back, once (the first
 *    window still reads files opened before the step);
 *  - one step a window, the advice's (at most a factor of 4), within
 *    [Minimum, Maximum] of the rule (else the profile's) and the memory and
 *    small-device caps;
 *  - no further lower of readahead thrown away in the first window after
 *    one (its refaults still count what the larger value read), and later
 *    only on RA_TUNE_THRASH_AGAIN_SHARE_MIN of refaults;
 *  - no step against the last one within RA_TUNE_JUDGE_WINDOWS windows, and
 *    none back to a value a step back left within the hour;
 *  - no raise within RA_TUNE_RAISE_AFTER_THRASH_SEC after a lower of
 *    readahead thrown away, and then only on raise advice in
 *    RA_TUNE_RAISE_AFTER_THRASH_WINDOWS windows running;
 *  - at most RA_TUNE_CHANGES_PER_HOUR changes an hour.
 */
#define RA_TUNE_JUDGE_WINDOWS    3
#define RA_TUNE_WORSE            0.10
/* One window's noise is no evidence: the trixie guest's random faults at
 * 64K, the sweep's best, were served 12% slower than at 256K in one window
 * of each of two runs, and as fast in the next. */
#define RA_TUNE_WORSE_WINDOWS    2
#define RA_TUNE_CHANGES_PER_HOUR 4
/* After a lower of readahead thrown away, another one needs this share of
 * refaults, twice the advice's: the lab's 32 streams in 48 MiB refaulted
 * 12% at 640K in the trixie guest and 14% at 1280K here, both within 10%
 * of the sweep's best (1M), and a second lower on the 12% (640K -> 160K)
 * read a third as fast; the first lower, from 2560K, saw 14-52%. */
#define RA_TUNE_THRASH_AGAIN_SHARE_MIN 0.20
/* A raise after a lower of readahead thrown away is how a loop oscillates:
 * the refaults that lowered come back at the larger value. Windows without
 * refaults are not enough: the lab's 32 streams in 48 MiB, lowered 2560K
 * -> 640K, were raised to 1280K, where they refault 14%, on one such
 * window, and again on two running (CI, twice in one run), while 640K
 * read as fast as the sweep's best (0.97-1.01 of 1M). What fills a
 * memory cgroup changes over hours, not windows: the hour of the other
 * rails. */
#define RA_TUNE_RAISE_AFTER_THRASH_SEC     3600
#define RA_TUNE_RAISE_AFTER_THRASH_WINDOWS 2
#define RA_TUNE_KEY_MAX          (RA_STABLE_ID_MAX * 2 + 16)
#define RA_TUNE_REASON_MAX       200

/* What a step is judged by: for random page faults, the faults served a
 * second; for a lower of readahead thrown away, the share of reads not
 * refaulted (the bytes a second would favour the larger value, whose waste
 * they count); else the bytes read a second that were not refaulted. */
enum ra_tune_measure {
        RA_TUNE_MEASURE_NONE,
        RA_TUNE_MEASURE_READS,
        RA_TUNE_MEASURE_FAULTS,
        RA_TUNE_MEASURE_KEPT,
        _RA_TUNE_MEASURE_MAX,
};

/* One device's tuning, kept across windows and restarts. */
struct ra_tune_state {
        char key[RA_TUNE_KEY_MAX]; /* ra_tune_key() */
        uint64_t tuned_kb;         /* what the agent last wrote; 0: nothing yet */
        uint64_t previous_kb;      /* the value before it */
        int direction;             /* of that step: 1 up, -1 down; 0 none */
        bool stepped_back;         /* that step took the one before back */
        int64_t changed;           /* when, seconds since the epoch */
        unsigned windows;          /* windows since */
        enum ra_tune_measure measure;
        double measure_before; /* in the window that led to it */
        unsigned worse_windows; /* judged windows running in which it was worse */
        unsigned raise_windows; /* windows running whose advice was raise (at most RA_TUNE_JUDGE_WINDOWS) */
        int64_t recent[RA_TUNE_CHANGES_PER_HOUR]; /* the last changes' times, 0: none */
        uint64_t avoid_kb;     /* a value a step back left: not again before avoid_until */
        int64_t avoid_until;
        uint64_t hand_kb;                         /* a value someone else wrote, kept; 0: none */
        char boot_id[40];                         /* the boot hand_kb was seen in */
        char reason[RA_TUNE_REASON_MAX];          /* why the last step */
};

/* What the device may be tuned within. */
struct ra_tune_bounds {
        uint64_t target_kb; /* the profile's value: what apply writes */
        uint64_t low_kb, high_kb;
        unsigned page_kb;
};

/* The bounds of a device whose deciding rule says Tune=yes: the rule's
 * Minimum= and Maximum= (else the profile's), the profile's Maximum, the
 * caps in force; false when the plan has no target or its rule does not
 * tune. */
bool ra_tune_bounds_of(const struct ra_profile *p, const struct ra_decision *d, unsigned page_kb,
                       struct ra_tune_bounds *ret);

/* The key a disk's state is kept by: its stable id (ra_find_stable_id()),
 * else its name and size (a loop device's, this boot's). false when it has
 * neither, and for mounts: only disks are tuned today. */
bool ra_tune_key(const struct ra_facts *f, char *buf, size_t size);

enum ra_tune_action {
        RA_TUNE_NONE,  /* nothing to do: keep, no signal, at a bound */
        RA_TUNE_HOLD,  /* a step the guard rails do not allow now (why says which) */
        RA_TUNE_WRITE, /* write *ret_kb */
        _RA_TUNE_ACTION_MAX,
};

/* The most a file keeps, and its size: 4096 lines of at most ~600 bytes. */
#define RA_TUNE_STATES_MAX       4096
#define RA_TUNE_STATE_BYTES_MAX  (4 * 1024 * 1024)

/* ROOT/var/lib/readahead-agent/tune: one line per device tuned, read and
 * replaced under flock(ROOT/var/lib/readahead-agent/tune.lock). Load and
 * save hold the lock from ra_tune_lock() to ra_tune_unlock(). A line that
 * does not parse, or whose numbers are out of bounds, is skipped; a file
 * that is not a regular file, or larger than the bound, is refused
 * (-EINVAL, -EFBIG): the agent then starts from nothing. */
int ra_tune_lock(const char *root);
void ra_tune_unlock(int fd);
int ra_tune_states_load(const char *root, struct ra_tune_state **ret, size_t *ret_n);
int ra_tune_states_save(const char *root, const struct ra_tune_state *s, size_t n);
/* One line of the file, parsed (the line without its newline, changed in
 * place); false when it is not one the agent writes. (tune-state) */
bool ra_tune_state_parse(char *line, struct ra_tune_state *ret);
/* The states without those of keys (apply's devices), saved under the lock. */
int ra_tune_states_forget(const char *root, const char *const *keys, size_t n_keys);
/* The state of key in s, NULL for none. */
struct ra_tune_state *ra_tune_state_find(struct ra_tune_state *s, size_t n, const char *key);

/* One window: the state s is moved on (a write counts as done: the caller
 * takes it back with the state it saved when the write fails). current_kb
 * is what the kernel holds, v the window's advice, boot_id this boot's.
 * why: what the log says of a hold or a write. */
enum ra_tune_action ra_tune_window(struct ra_tune_state *s, const struct ra_tune_bounds *b, uint64_t current_kb,
                                   const struct ra_advice *v, int64_t now, const char *boot_id, uint64_t *ret_kb,
                                   char *why, size_t why_size);

/* The value the agent gives a device on an event or `apply` from --watch:
 * the tuned one while it is in bounds, else the profile's. */
uint64_t ra_tune_value(const struct ra_tune_state *s, const struct ra_tune_bounds *b);

/* A plan whose rule says Tune=yes, with a tuned value in bounds kept for f
 * (in states, or, with states NULL, in ROOT's file), or a value someone
 * else wrote this boot that f still holds: its target becomes that value, its action that of writing it, plan->tuned true, and
 * *ret_state (when not NULL) the state. Returns whether it did. The
 * profile's value stays in plan->profile_kb. A plan of another rule costs
 * nothing: the file is read only for a rule that tunes. */
bool ra_tune_plan(struct ra_plan *plan, const struct ra_profile *p, const struct ra_facts *f, const char *root,
                  const struct ra_tune_state *states, size_t n, struct ra_tune_state *ret_state);

/* This boot's id (/proc/sys/kernel/random/boot_id): a value someone else
 * wrote is kept until it changes. */
bool ra_tune_boot_id(char *buf, size_t size);

const char *ra_tune_action_to_string(enum ra_tune_action a);
