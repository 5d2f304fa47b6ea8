/* SPDX-License-Identifier: MIT */
/* Carrying out a plan in the agent: the write, the journal, READAHEAD_*. */
#include <inttypes.h>
#include <stdio.h>
#include <syslog.h>

#include "advise-tune.h"
#include "agent.h"
#include "drift.h"
#include "journal.h"
#include "text.h"
#include "write-read-ahead.h"

static void log_result(const struct agent_options *o, const struct ra_facts *f, const struct ra_plan *plan,
                       const char *result, uint64_t now_kb, int error) {
        const struct ra_decision *d = &plan->decision;
        char dev[RA_NAME_MAX + 24], target[48], prev[48], rulef[RA_PATH_MAX + 80], res[48], reason[240],
                failure[160], drift[300] = "", drift_field[320];
        size_t n_fields = 6;

        char target_text[RA_U64_TEXT], prev_text[RA_U64_TEXT];

        /* Joined, not printf'd: this runs on every write. */
        ra_str_join(dev, sizeof(dev), "READAHEAD_DEVICE=", f->name, NULL);
        ra_str_join(target, sizeof(target), "READAHEAD_TARGET_KB=", ra_u64_text(target_text, d->target_kb), NULL);
        ra_str_join(prev, sizeof(prev), "READAHEAD_PREVIOUS_KB=", ra_u64_text(prev_text, f->current_kb), NULL);
        ra_str_join(rulef, sizeof(rulef), "READAHEAD_RULE=", plan->rule, NULL);
        ra_str_join(res, sizeof(res), "READAHEAD_RESULT=", result, NULL);
        ra_str_join(reason, sizeof(reason), "READAHEAD_REASON=", d->reason, NULL);
        const char *fields[] = { dev, target, prev, rulef, res, reason, drift_field };
        if (o->recheck) {
                /* --watch's periodic check: the value was ours, something changed it. */
                struct ra_drift cause;
                ra_drift_explain(f, d->target_kb, 0, &cause);
                snprintf(drift, sizeof(drift), "; drifted: %s", cause.why);
                snprintf(drift_field, sizeof(drift_field), "READAHEAD_DRIFT=%s",
                         ra_drift_cause_to_string(cause.cause));
                n_fields++;
        }
        if (error < 0) {
                ra_write_failure_text(failure, sizeof(failure), d->target_kb, now_kb, error);
                agent_log(LOG_ERR, fields, n_fields, "%s: %s%s", f->name, failure, drift);
        } else
                agent_log(LOG_INFO, fields, n_fields, "%s: read_ahead_kb %" PRIu64 " -> %" PRIu64 " (%s; %s)%s",
                          f->name, f->current_kb, d->target_kb, plan->rule, d->reason, drift);
}

void agent_plan(const struct ra_config *config, const struct ra_facts *facts, struct ra_plan *ret) {
        ra_plan_device(&config->profile, facts, NULL, 0, ret);
        (void) ra_tune_plan(ret, &config->profile, facts, config->root, NULL, 0, NULL);
}

bool plan_changes_value(const struct ra_plan *plan) {
        return plan->action == RA_ACTION_WRITE || plan->action == RA_ACTION_DEFERRED;
}

/* The outcome's fields: every outcome is logged with them, so that an event
 * that wrote nothing says why (journalctl READAHEAD_DEVICE=sda). */
struct outcome_fields {
        char dev[RA_NAME_MAX + 24], res[48];
        const char *list[2];
};

static const char *const *outcome_fields(struct outcome_fields *of, const struct ra_facts *f, const char *result) {
        ra_str_join(of->dev, sizeof(of->dev), "READAHEAD_DEVICE=", f->name, NULL);
        ra_str_join(of->res, sizeof(of->res), "READAHEAD_RESULT=", result, NULL);
        of->list[0] = of->dev;
        of->list[1] = of->res;
        return of->list;
}

/* KEY=value on stdout, for udev (fputs only: each other stdio function
 * costs the event its first binding). */
static void put_line(const char *key, const char *value) {
        fputs(key, stdout);
        fputs(value, stdout);
        fputs("\n", stdout);
}

void carry_out_plan(const struct agent_options *o, const struct ra_facts *facts, const struct ra_plan *plan) {
        const struct ra_decision *d = &plan->decision;
        struct outcome_fields of;
        const char *result;
        uint64_t now_kb = 0;
        /* --watch's periodic check and its pass on a mount change log what
         * they change, not every value that is still right (each device,
         * every time). */
        bool quiet = o->quiet;

        char number[RA_U64_TEXT];

        /* fputs, not printf: these lines are printed on every event. */
        put_line("READAHEAD_CLASS=", ra_class_to_string(facts->class));
        if (facts->current_known)
                put_line("READAHEAD_PREVIOUS_KB=", ra_u64_text(number, facts->current_kb));
        if (plan->rule[0]) {
                /* udev imports each line as a property: a newline in a file
                 * name must not start another one. */
                fputs("READAHEAD_RULE=", stdout);
                ra_fputs_people(stdout, plan->rule);
                fputs("\n", stdout);
        }

        switch (plan->action) {
        case RA_ACTION_FAIL:
                result = "failed";
                /* d->reason names the file and line of the Size= that failed. */
                agent_log(LOG_ERR, outcome_fields(&of, facts, result), 2,
                          "%s: rule %s failed: %s; read_ahead_kb left at %" PRIu64, facts->name, plan->rule,
                          d->reason, facts->current_kb);
                break;
        case RA_ACTION_KEEP:
                result = "left-alone";
                if (!quiet)
                        agent_log(LOG_DEBUG, outcome_fields(&of, facts, result), 2,
                                  "%s: read_ahead_kb left alone (%s; %s)", facts->name, plan->rule, d->reason);
                break;
        case RA_ACTION_NOT_SETTABLE: /* the agent handles no such bdi: nothing to print */
                result = ra_action_to_string(plan->action);
                if (!quiet)
                        agent_log(LOG_DEBUG, outcome_fields(&of, facts, result), 2,
                                  "%s: no read_ahead_kb the agent sets, nothing written", facts->name);
                break;
        default:
                put_line("READAHEAD_TARGET_KB=", ra_u64_text(number, d->target_kb));
                if (o->dry_run) {
                        result = "dry-run";
                        agent_log(LOG_DEBUG, outcome_fields(&of, facts, result), 2,
                                  "%s: dry run, read_ahead_kb %" PRIu64 " not written (%s; %s)", facts->name,
                                  d->target_kb, plan->rule, d->reason);
                } else if (plan->action == RA_ACTION_UNCHANGED) {
                        result = "unchanged";
                        if (!quiet)
                                agent_log(LOG_DEBUG, outcome_fields(&of, facts, result), 2,
                                          "%s: read_ahead_kb already %" PRIu64 " (%s; %s)", facts->name,
                                          d->target_kb, plan->rule, d->reason);
                } else if (plan->action == RA_ACTION_DEFERRED) {
                        result = "deferred";
                        agent_log(LOG_INFO, outcome_fields(&of, facts, result), 2,
                                  "%s: not writing read_ahead_kb %" PRIu64 " now: %s; the next change event will",
                                  facts->name, d->target_kb, d->deferred);
                } else {
                        int r = ra_write_read_ahead(facts->attr_path, d->target_kb, &now_kb);
                        result = r < 0 ? "failed" : "written";
                        log_result(o, facts, plan, result, now_kb, r);
                }
        }
        put_line("READAHEAD_RESULT=", result);
}
