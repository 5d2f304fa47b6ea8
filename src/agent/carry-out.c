/* SPDX-License-Identifier: MIT */
/* Carrying out a plan in the agent: the write, the journal, READAHEAD_*. */
#include <inttypes.h>
#include <stdio.h>
#include <syslog.h>

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

        snprintf(dev, sizeof(dev), "READAHEAD_DEVICE=%s", f->name);
        snprintf(target, sizeof(target), "READAHEAD_TARGET_KB=%" PRIu64, d->target_kb);
        snprintf(prev, sizeof(prev), "READAHEAD_PREVIOUS_KB=%" PRIu64, f->current_kb);
        snprintf(rulef, sizeof(rulef), "READAHEAD_RULE=%s", plan->rule);
        snprintf(res, sizeof(res), "READAHEAD_RESULT=%s", result);
        snprintf(reason, sizeof(reason), "READAHEAD_REASON=%s", d->reason);
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

bool plan_changes_value(const struct ra_plan *plan) {
        return plan->action == RA_ACTION_WRITE || plan->action == RA_ACTION_DEFERRED;
}

void carry_out_plan(const struct agent_options *o, const struct ra_facts *facts, const struct ra_plan *plan) {
        const struct ra_decision *d = &plan->decision;
        const char *result;
        uint64_t now_kb = 0;

        printf("READAHEAD_CLASS=%s\n", ra_class_to_string(facts->class));
        if (facts->current_known)
                printf("READAHEAD_PREVIOUS_KB=%" PRIu64 "\n", facts->current_kb);
        if (plan->rule[0]) {
                /* udev imports each line as a property: a newline in a file
                 * name must not start another one. */
                printf("READAHEAD_RULE=");
                ra_fputs_people(stdout, plan->rule);
                printf("\n");
        }

        switch (plan->action) {
        case RA_ACTION_FAIL:
                result = "failed";
                /* d->reason names the file and line of the Size= that failed. */
                agent_log(LOG_ERR, NULL, 0, "%s: rule %s failed: %s; read_ahead_kb left at %" PRIu64, facts->name,
                          plan->rule, d->reason, facts->current_kb);
                break;
        case RA_ACTION_KEEP:
                result = "left-alone";
                break;
        case RA_ACTION_NOT_SETTABLE: /* the agent handles no such bdi: nothing to print */
                result = ra_action_to_string(plan->action);
                break;
        default:
                printf("READAHEAD_TARGET_KB=%" PRIu64 "\n", d->target_kb);
                if (o->dry_run)
                        result = "dry-run";
                else if (plan->action == RA_ACTION_UNCHANGED)
                        result = "unchanged";
                else if (plan->action == RA_ACTION_DEFERRED) {
                        result = "deferred";
                        agent_log(LOG_INFO, NULL, 0,
                                  "%s: not writing read_ahead_kb %" PRIu64 " now: %s; the next change event will",
                                  facts->name, d->target_kb, d->deferred);
                } else {
                        int r = ra_write_read_ahead(facts->attr_path, d->target_kb, &now_kb);
                        result = r < 0 ? "failed" : "written";
                        log_result(o, facts, plan, result, now_kb, r);
                }
        }
        printf("READAHEAD_RESULT=%s\n", result);
}
