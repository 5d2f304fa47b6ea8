/* SPDX-License-Identifier: MIT */
/*
 * Tune=yes in the agent: at the end of each advise window (advise-agent.c),
 * each device whose deciding rule says Tune=yes takes the step the guard
 * rails allow (ra_tune_window(), advise-tune.h), written here and logged
 * with its evidence. The states are read and replaced under the file's
 * lock once a window, and only when some device tunes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "agent.h"
#include "fileio.h"
#include "journal.h"
#include "size.h"
#include "text.h"
#include "write-read-ahead.h"

/* The states could not be had: said once, until they can (a read-only
 * /var/lib, as in the DaemonSet today, would say it every window). */
static bool keep_failed;

void tune_pass_begin(struct tune_pass *t) {
        *t = (struct tune_pass){ .lock = -1 };
}

/* The states, once a window: false when they cannot be had (logged once). */
static bool tune_pass_load(const struct ra_config *config, struct tune_pass *t) {
        if (t->loaded)
                return t->states != NULL;
        t->loaded = true;
        if (!ra_tune_boot_id(t->boot_id, sizeof(t->boot_id)))
                snprintf(t->boot_id, sizeof(t->boot_id), "0"); /* every hand value is this boot's */
        t->lock = ra_tune_lock(config->root);
        int r = t->lock < 0 ? t->lock : ra_tune_states_load(config->root, &t->states, &t->n);
        /* a file we cannot read is replaced: tuning starts again */
        if (r < 0 && t->lock >= 0) {
                agent_log(LOG_WARNING, NULL, 0, "tune: cannot read %s/var/lib/readahead-agent/tune: %s; starting "
                          "from the profile's values", config->root, strerror(-r));
                r = 0;
        }
        if (r == 0 && !t->states)
                t->states = calloc(RA_TUNE_STATES_MAX, sizeof(*t->states));
        else if (r == 0) {
                struct ra_tune_state *grown = realloc(t->states, RA_TUNE_STATES_MAX * sizeof(*grown));
                if (grown)
                        t->states = grown;
                else
                        t->n = RA_TUNE_STATES_MAX; /* no room for new ones */
        }
        if (r < 0 || !t->states) {
                if (!keep_failed)
                        agent_log(LOG_WARNING, NULL, 0,
                                  "tune: cannot keep the tuning in %s/var/lib/readahead-agent: %s; nothing is "
                                  "tuned until it can", config->root, strerror(r < 0 ? -r : ENOMEM));
                free(t->states);
                t->states = NULL;
        }
        keep_failed = t->states == NULL;
        return t->states != NULL;
}

static void log_step(const struct ra_facts *f, uint64_t from_kb, uint64_t to_kb, const char *result, int level,
                     const char *why, int error) {
        char dev[RA_NAME_MAX + 24], tuned[48], prev[48], res[48], reason[RA_TUNE_REASON_MAX + 32];
        char n1[RA_U64_TEXT], n2[RA_U64_TEXT], a[24], b[24];

        ra_str_join(dev, sizeof(dev), "READAHEAD_DEVICE=", f->name, NULL);
        ra_str_join(tuned, sizeof(tuned), "READAHEAD_TUNED_KB=", ra_u64_text(n1, to_kb), NULL);
        ra_str_join(prev, sizeof(prev), "READAHEAD_PREVIOUS_KB=", ra_u64_text(n2, from_kb), NULL);
        ra_str_join(res, sizeof(res), "READAHEAD_RESULT=", result, NULL);
        ra_str_join(reason, sizeof(reason), "READAHEAD_REASON=", why, NULL);
        const char *fields[] = { dev, tuned, prev, res, reason };
        if (error < 0)
                agent_log(level, fields, 5, "%s: tune: could not set read_ahead_kb %s -> %s: %s", f->name,
                          ra_format_size_kb(from_kb, a), ra_format_size_kb(to_kb, b), strerror(-error));
        else if (strcmp(result, "tuned") == 0)
                agent_log(level, fields, 5,
                          "%s: tune: read_ahead_kb %s -> %s (Tune=yes): %s; readahead-ctl apply goes back to "
                          "the profile's value", f->name, ra_format_size_kb(from_kb, a),
                          ra_format_size_kb(to_kb, b), why);
        else
                agent_log(level, fields, 5, "%s: tune: read_ahead_kb %s kept: %s", f->name,
                          ra_format_size_kb(from_kb, a), why);
}

void tune_target_of(const struct agent_options *o, const struct ra_config *config, const struct ra_facts *f,
                    struct tune_target *target) {
        struct ra_plan plan;

        *target = (struct tune_target){};
        ra_plan_device(&config->profile, f, NULL, 0, &plan);
        target->tunes = !o->dry_run && plan.action != RA_ACTION_NOT_SETTABLE &&
                        ra_tune_bounds_of(&config->profile, &plan.decision, f->page_kb ? f->page_kb : 4,
                                          &target->bounds) &&
                        ra_tune_key(f, target->key, sizeof(target->key));
}

bool tune_raised_here(const struct ra_config *config, struct tune_pass *t, const struct tune_target *target,
                      const struct ra_facts *f) {
        if (!target->tunes || !tune_pass_load(config, t))
                return false;
        const struct ra_tune_state *s = ra_tune_state_find(t->states, t->n, target->key);
        return s && s->direction > 0 && s->tuned_kb == f->current_kb;
}

void tune_device(const struct ra_config *config, struct tune_pass *t, const struct tune_target *target,
                 const struct ra_facts *f, const struct ra_advice *v, int64_t now) {
        char why[RA_TUNE_REASON_MAX + 200];
        uint64_t current_kb, kb = 0;

        if (!target->tunes)
                return;
        /* the value now, not the window's start's */
        if (ra_read_u64_file(f->attr_path, &current_kb) < 0 || !tune_pass_load(config, t))
                return;
        struct ra_tune_state *s = ra_tune_state_find(t->states, t->n, target->key);
        if (!s) {
                if (t->n >= RA_TUNE_STATES_MAX)
                        return;
                s = &t->states[t->n++];
                *s = (struct ra_tune_state){};
                snprintf(s->key, sizeof(s->key), "%s", target->key);
        }
        struct ra_tune_state before = *s;
        enum ra_tune_action action =
                ra_tune_window(s, &target->bounds, current_kb, v, now, t->boot_id, &kb, why, sizeof(why));
        if (memcmp(&before, s, sizeof(before)) != 0)
                t->changed = true;
        if (action == RA_TUNE_HOLD)
                /* someone else's value: said once, when it is found */
                log_step(f, current_kb, current_kb, "held", s->hand_kb && !before.hand_kb ? LOG_NOTICE : LOG_DEBUG,
                         why, 0);
        if (action != RA_TUNE_WRITE)
                return;
        uint64_t now_kb = 0;
        int r = ra_action_for_target(f, kb) == RA_ACTION_DEFERRED ? -EBUSY
                                                                   : ra_write_read_ahead(f->attr_path, kb, &now_kb);
        if (r < 0) {
                *s = before; /* not taken: the next window tries again */
                log_step(f, current_kb, kb, "failed", LOG_ERR, why, r);
                return;
        }
        log_step(f, current_kb, kb, "tuned", LOG_NOTICE, why, 0);
}

void tune_pass_end(const struct ra_config *config, struct tune_pass *t) {
        if (t->states && t->changed) {
                int r = ra_tune_states_save(config->root, t->states, t->n);
                if (r < 0)
                        agent_log(LOG_WARNING, NULL, 0,
                                  "tune: cannot keep the tuning in %s/var/lib/readahead-agent: %s", config->root,
                                  strerror(-r));
        }
        ra_tune_unlock(t->lock);
        free(t->states);
        tune_pass_begin(t);
}
