/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "enum-name.h"
#include "plan.h"
#include "text.h"

static const char *const action_names[_RA_ACTION_MAX] = {
        [RA_ACTION_NOT_SETTABLE] = "not-settable",
        [RA_ACTION_FAIL] = "failed",
        [RA_ACTION_KEEP] = "left-alone",
        [RA_ACTION_UNCHANGED] = "unchanged",
        [RA_ACTION_DEFERRED] = "deferred",
        [RA_ACTION_WRITE] = "write",
};

const char *ra_action_to_string(enum ra_action a) {
        return RA_ENUM_NAME(action_names, a);
}

enum ra_action ra_action_for_target(const struct ra_facts *f, uint64_t target_kb) {
        if (!f->attr_path)
                return RA_ACTION_NOT_SETTABLE;
        if (f->current_known && f->current_kb == target_kb)
                return RA_ACTION_UNCHANGED; /* the common change event: nothing to write or log */
        if (f->write_blocked)
                return RA_ACTION_DEFERRED;
        return RA_ACTION_WRITE;
}

void ra_plan_device(const struct ra_profile *p, const struct ra_facts *f, struct ra_rule_trace *trace,
                    size_t trace_size, struct ra_plan *ret) {
        struct ra_plan plan = {};

        plan.error = ra_decide(p, f, &plan.decision, trace, trace_size);
        plan.profile_kb = plan.decision.target_kb;
        if (plan.decision.rule)
                ra_str_join(plan.rule, sizeof(plan.rule), plan.decision.rule->file, ":",
                            plan.decision.rule->section, NULL);
        if (!f->attr_path)
                plan.action = RA_ACTION_NOT_SETTABLE;
        else if (plan.error < 0)
                plan.action = RA_ACTION_FAIL;
        else if (plan.decision.keep)
                plan.action = RA_ACTION_KEEP;
        else
                plan.action = ra_action_for_target(f, plan.decision.target_kb);
        *ret = plan;
}

bool ra_plan_has_target(const struct ra_plan *plan) {
        return !plan->decision.keep && plan->error == 0;
}

void ra_write_failure_text(char *buf, size_t size, uint64_t target_kb, uint64_t now_kb, int error) {
        if (error == -EIO)
                snprintf(buf, size, "wrote read_ahead_kb %" PRIu64 " but the kernel holds %" PRIu64, target_kb,
                         now_kb);
        else
                snprintf(buf, size, "could not set read_ahead_kb to %" PRIu64 ": %s", target_kb,
                         strerror(-error));
}
