/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-tune.h"
#include "enum-name.h"
#include "fileio.h"
#include "size.h"
#include "text.h"

static const char *const action_names[_RA_TUNE_ACTION_MAX] = {
        [RA_TUNE_NONE] = "none",
        [RA_TUNE_HOLD] = "hold",
        [RA_TUNE_WRITE] = "write",
};

const char *ra_tune_action_to_string(enum ra_tune_action a) {
        return RA_ENUM_NAME(action_names, a);
}

static uint64_t min_u64(uint64_t a, uint64_t b) {
        return a < b ? a : b;
}

bool ra_tune_bounds_of(const struct ra_profile *p, const struct ra_decision *d, unsigned page_kb,
                       struct ra_tune_bounds *ret) {
        const struct ra_rule *r = d->rule;

        if (!r || !r->tune || d->keep || d->error < 0 || d->target_kb == 0)
                return false;
        uint64_t low = r->min_kb ? r->min_kb : p->minimum_kb;
        uint64_t high = r->max_kb ? r->max_kb : p->maximum_kb;
        if (p->maximum_kb)
                high = high ? min_u64(high, p->maximum_kb) : p->maximum_kb;
        if (d->memory_cap_kb)
                high = high ? min_u64(high, d->memory_cap_kb) : d->memory_cap_kb;
        if (d->device_cap_kb)
                high = high ? min_u64(high, d->device_cap_kb) : d->device_cap_kb;
        /* no bound at all: the largest value a profile may give */
        if (!high)
                high = UINT64_C(1) << 20;
        low = ra_round_to_pages_kb(low ? low : page_kb, page_kb);
        high = ra_round_to_pages_kb(high, page_kb);
        if (low > high)
                low = high;
        *ret = (struct ra_tune_bounds){ d->target_kb, low, high, page_kb };
        return true;
}

bool ra_tune_key(const struct ra_facts *f, char *buf, size_t size) {
        struct ra_stable_id id;
        int n;

        /* disks only today: NFS advice has no lower bound it can trust yet */
        if (f->kind != RA_KIND_BLOCK)
                return false;
        if (ra_find_stable_id(f, &id))
                n = snprintf(buf, size, "%s=%s", id.key, id.value);
        else if (f->size_bytes > 0)
                n = snprintf(buf, size, "name=%s,size=%llu", f->name, (unsigned long long) f->size_bytes);
        else
                return false;
        /* a name with a tab or a line break cannot be a key of the file */
        return n > 0 && (size_t) n < size && ra_text_is_clean_field(buf);
}

static uint64_t clamp(uint64_t kb, const struct ra_tune_bounds *b) {
        kb = ra_round_to_pages_kb(kb, b->page_kb);
        return kb < b->low_kb ? b->low_kb : kb > b->high_kb ? b->high_kb : kb;
}

uint64_t ra_tune_value(const struct ra_tune_state *s, const struct ra_tune_bounds *b) {
        if (!s || !s->tuned_kb || clamp(s->tuned_kb, b) != s->tuned_kb)
                return b->target_kb;
        return s->tuned_kb;
}

/* What a step on advice v is judged by (see enum ra_tune_measure). */
static enum ra_tune_measure measure_kind(const struct ra_advice *v) {
        if (v->kind == RA_ADVICE_NO_SIGNAL)
                return RA_TUNE_MEASURE_NONE;
        if (v->fault_share >= 0.5 && v->majfaults_per_s > 0)
                return RA_TUNE_MEASURE_FAULTS;
        return v->kind == RA_ADVICE_LOWER ? RA_TUNE_MEASURE_KEPT : RA_TUNE_MEASURE_READS;
}

/* That measure in the window of advice v. */
static double measure_in(const struct ra_advice *v, enum ra_tune_measure kind) {
        double kept = 1 - (v->refault_share < 1 ? v->refault_share : 1);
        switch (kind) {
        case RA_TUNE_MEASURE_FAULTS:
                return v->majfaults_per_s;
        case RA_TUNE_MEASURE_KEPT:
                return kept;
        default:
                return v->read_bytes_per_s * kept;
        }
}

static const char *measure_name(enum ra_tune_measure kind) {
        switch (kind) {
        case RA_TUNE_MEASURE_FAULTS:
                return "faults served a second";
        case RA_TUNE_MEASURE_KEPT:
                return "share of reads not thrown away";
        default:
                return "useful reads a second";
        }
}

/* A fresh start: what a step back taught stays. */
static void forget_tuning(struct ra_tune_state *s) {
        struct ra_tune_state fresh = { .avoid_kb = s->avoid_kb, .avoid_until = s->avoid_until };
        memcpy(fresh.key, s->key, sizeof(fresh.key));
        *s = fresh;
}

static unsigned changes_last_hour(const struct ra_tune_state *s, int64_t now) {
        unsigned n = 0;
        for (size_t i = 0; i < RA_TUNE_CHANGES_PER_HOUR; i++)
                n += s->recent[i] > 0 && s->recent[i] > now - 3600 && s->recent[i] <= now;
        return n;
}

/* The step to kb is taken: the state says so. */
static void step(struct ra_tune_state *s, uint64_t current_kb, uint64_t kb, int64_t now,
                 enum ra_tune_measure m, double measure, bool back, const char *reason) {
        size_t oldest = 0;
        for (size_t i = 1; i < RA_TUNE_CHANGES_PER_HOUR; i++)
                if (s->recent[i] < s->recent[oldest])
                        oldest = i;
        s->recent[oldest] = now;
        s->previous_kb = current_kb;
        s->tuned_kb = kb;
        s->direction = kb > current_kb ? 1 : -1;
        s->stepped_back = back;
        s->changed = now;
        s->windows = 0;
        s->measure = m;
        s->measure_before = measure;
        s->worse_windows = 0;
        snprintf(s->reason, sizeof(s->reason), "%s", reason);
}

enum ra_tune_action ra_tune_window(struct ra_tune_state *s, const struct ra_tune_bounds *b, uint64_t current_kb,
                                   const struct ra_advice *v, int64_t now, const char *boot_id, uint64_t *ret_kb,
                                   char *why, size_t why_size) {
        char x[24], y[24];

        why[0] = 0;
        /* Someone else's value stands until the next boot, or until apply
         * puts the profile's back (then tuning starts again from there). */
        if (s->hand_kb && (strcmp(s->boot_id, boot_id) != 0 || current_kb != s->hand_kb))
                forget_tuning(s); /* a new boot, or the value is gone: tuning starts again */
        if (s->hand_kb) {
                snprintf(why, why_size, "%s was written by someone else: kept until the next boot or "
                         "readahead-ctl apply", ra_format_size_kb(current_kb, x));
                return RA_TUNE_HOLD;
        }
        uint64_t expected = s->tuned_kb ? s->tuned_kb : b->target_kb;
        if (current_kb == b->target_kb && expected != b->target_kb)
                forget_tuning(s); /* apply, or an event, gave the profile's value again */
        else if (current_kb != expected) {
                forget_tuning(s);
                s->hand_kb = current_kb;
                snprintf(s->boot_id, sizeof(s->boot_id), "%s", boot_id);
                snprintf(why, why_size, "%s was written by someone else (%s expected): kept until the next "
                         "boot or readahead-ctl apply", ra_format_size_kb(current_kb, x),
                         ra_format_size_kb(expected, y));
                return RA_TUNE_HOLD;
        }
        if (s->direction)
                s->windows++;
        if (v->kind != RA_ADVICE_RAISE)
                s->raise_windows = 0;
        else if (s->raise_windows < RA_TUNE_JUDGE_WINDOWS)
                s->raise_windows++;

        /* The last step made things worse: back, once. Not judged in the
         * first window after it: the kernel copies read_ahead_kb into a
         * file at open, so that window still reads files opened before. */
        double measure = v->kind != RA_ADVICE_NO_SIGNAL ? measure_in(v, s->measure) : 0;
        bool judged = s->direction && !s->stepped_back && s->windows >= 2 && s->windows <= RA_TUNE_JUDGE_WINDOWS &&
                      s->measure != RA_TUNE_MEASURE_NONE && v->kind != RA_ADVICE_NO_SIGNAL;
        if (judged)
                s->worse_windows = measure < s->measure_before * (1 - RA_TUNE_WORSE) ? s->worse_windows + 1 : 0;
        if (judged && s->worse_windows >= RA_TUNE_WORSE_WINDOWS && s->previous_kb &&
            clamp(s->previous_kb, b) == s->previous_kb) {
                if (changes_last_hour(s, now) >= RA_TUNE_CHANGES_PER_HOUR) {
                        snprintf(why, why_size, "the step to %s made things worse, but %u changes in the last "
                                 "hour are the most", ra_format_size_kb(current_kb, x), RA_TUNE_CHANGES_PER_HOUR);
                        return RA_TUNE_HOLD;
                }
                char reason[RA_TUNE_REASON_MAX];
                snprintf(reason, sizeof(reason), "the step to %s made the %s worse (%.3g, was %.3g): back to %s",
                         ra_format_size_kb(current_kb, x), measure_name(s->measure), measure, s->measure_before,
                         ra_format_size_kb(s->previous_kb, y));
                *ret_kb = s->previous_kb;
                s->avoid_kb = current_kb;
                s->avoid_until = now + 3600;
                step(s, current_kb, s->previous_kb, now, s->measure, measure, true, reason);
                snprintf(why, why_size, "%s", reason);
                return RA_TUNE_WRITE;
        }

        if (v->kind != RA_ADVICE_RAISE && v->kind != RA_ADVICE_LOWER)
                return RA_TUNE_NONE;
        uint64_t want = clamp(v->suggested_kb, b);
        if (want == current_kb) {
                snprintf(why, why_size, "%s to %s, but %s is the bound", ra_advice_to_string(v->kind),
                         ra_format_size_kb(v->suggested_kb, x), ra_format_size_kb(current_kb, y));
                return RA_TUNE_NONE;
        }
        int direction = want > current_kb ? 1 : -1;
        /* Refaults come late: in the first window after a lower of
         * readahead thrown away they still count what the larger value
         * read (the lab's 32 streams in 48 MiB: 25-52% refaults in the
         * window after 2560K -> 640K; a lower on them to 160K read a third
         * as fast as 640K). */
        bool thrash_again = s->direction < 0 && s->measure == RA_TUNE_MEASURE_KEPT && direction < 0 &&
                            measure_kind(v) == RA_TUNE_MEASURE_KEPT;
        if (thrash_again && s->windows < 2) {
                snprintf(why, why_size, "%s to %s held: the refaults of the first window after a lower still "
                         "come from what the larger value read", ra_advice_to_string(v->kind),
                         ra_format_size_kb(want, x));
                return RA_TUNE_HOLD;
        }
        if (thrash_again && v->refault_share < RA_TUNE_THRASH_AGAIN_SHARE_MIN) {
                snprintf(why, why_size, "%s to %s held: after a lower of readahead thrown away, %.0f%% of "
                         "refaults is too few for another (%.0f%%)", ra_advice_to_string(v->kind),
                         ra_format_size_kb(want, x), v->refault_share * 100, RA_TUNE_THRASH_AGAIN_SHARE_MIN * 100);
                return RA_TUNE_HOLD;
        }
        if (s->direction && direction != s->direction && s->windows < RA_TUNE_JUDGE_WINDOWS) {
                snprintf(why, why_size, "%s to %s held: the last step went the other way %u window%s ago",
                         ra_advice_to_string(v->kind), ra_format_size_kb(want, x), s->windows,
                         s->windows == 1 ? "" : "s");
                return RA_TUNE_HOLD;
        }
        bool after_thrash = direction > 0 && s->direction < 0 && s->measure == RA_TUNE_MEASURE_KEPT;
        if (after_thrash && now < s->changed + RA_TUNE_RAISE_AFTER_THRASH_SEC) {
                snprintf(why, why_size, "%s to %s held: %s threw readahead away and was lowered %lld s ago; "
                         "a raise waits %d minutes after such a lower", ra_advice_to_string(v->kind),
                         ra_format_size_kb(want, x), ra_format_size_kb(s->previous_kb, y),
                         (long long) (now - s->changed), RA_TUNE_RAISE_AFTER_THRASH_SEC / 60);
                return RA_TUNE_HOLD;
        }
        if (after_thrash && s->raise_windows < RA_TUNE_RAISE_AFTER_THRASH_WINDOWS) {
                snprintf(why, why_size, "%s to %s held: after a lower of readahead thrown away, a raise needs "
                         "that advice in %u windows running", ra_advice_to_string(v->kind),
                         ra_format_size_kb(want, x), RA_TUNE_RAISE_AFTER_THRASH_WINDOWS);
                return RA_TUNE_HOLD;
        }
        if (want == s->avoid_kb && now < s->avoid_until) {
                snprintf(why, why_size, "%s to %s held: a step there made things worse within the hour",
                         ra_advice_to_string(v->kind), ra_format_size_kb(want, x));
                return RA_TUNE_HOLD;
        }
        if (changes_last_hour(s, now) >= RA_TUNE_CHANGES_PER_HOUR) {
                snprintf(why, why_size, "%s to %s held: %u changes in the last hour are the most",
                         ra_advice_to_string(v->kind), ra_format_size_kb(want, x), RA_TUNE_CHANGES_PER_HOUR);
                return RA_TUNE_HOLD;
        }
        *ret_kb = want;
        enum ra_tune_measure kind = measure_kind(v);
        step(s, current_kb, want, now, kind, measure_in(v, kind), false, v->reason);
        snprintf(why, why_size, "%s", v->reason);
        return RA_TUNE_WRITE;
}

bool ra_tune_plan(struct ra_plan *plan, const struct ra_profile *p, const struct ra_facts *f, const char *root,
                  const struct ra_tune_state *states, size_t n, struct ra_tune_state *ret_state) {
        struct ra_tune_bounds b;
        struct ra_tune_state *loaded = NULL;
        char key[RA_TUNE_KEY_MAX];
        bool tuned = false;

        plan->profile_kb = plan->decision.target_kb;
        if (plan->action == RA_ACTION_NOT_SETTABLE || !ra_tune_bounds_of(p, &plan->decision, f->page_kb ?: 4, &b) ||
            !ra_tune_key(f, key, sizeof(key)))
                return false;
        if (!states && ra_tune_states_load(root, &loaded, &n) == 0)
                states = loaded;
        for (size_t i = 0; states && i < n && !tuned; i++) {
                char x[24], boot_id[40];
                if (strcmp(states[i].key, key) != 0)
                        continue;
                /* someone else's value, this boot: kept, as the agent's window keeps it */
                bool hand = states[i].hand_kb && states[i].hand_kb == f->current_kb &&
                            ra_tune_boot_id(boot_id, sizeof(boot_id)) && strcmp(boot_id, states[i].boot_id) == 0;
                uint64_t kb = hand ? states[i].hand_kb : ra_tune_value(&states[i], &b);
                if (kb == b.target_kb)
                        break;
                plan->decision.target_kb = kb;
                plan->action = ra_action_for_target(f, kb);
                plan->tuned = tuned = true;
                snprintf(plan->decision.reason, sizeof(plan->decision.reason),
                         hand ? "written by someone else, kept (Tune=yes); the rule gives %s"
                              : "tuned by the agent (Tune=yes); the rule gives %s",
                         ra_format_size_kb(plan->profile_kb, x));
                if (ret_state)
                        *ret_state = states[i];
        }
        free(loaded);
        return tuned;
}

bool ra_tune_boot_id(char *buf, size_t size) {
        return ra_read_string_file("/proc/sys/kernel/random/boot_id", buf, size) >= 0 && buf[0];
}
