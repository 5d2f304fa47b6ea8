/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "decide.h"
#include "facts.h"

/*
 * One device's decision and what follows from it, in one pure step: the agent
 * and readahead-ctl both call ra_plan_device() once per device and only carry
 * out and display the action. Order matters: a mount nothing can set is
 * reported as such whatever the rule says, a failed rule writes nothing.
 */
enum ra_action {
        RA_ACTION_NOT_SETTABLE, /* no attribute holds this mount's value (attr_path NULL) */
        RA_ACTION_FAIL,         /* the deciding rule failed: write nothing */
        RA_ACTION_KEEP,         /* the profile leaves the kernel's value alone */
        RA_ACTION_UNCHANGED,    /* the kernel holds the target already */
        RA_ACTION_DEFERRED,     /* writing could block now (facts.write_blocked) */
        RA_ACTION_WRITE,
        _RA_ACTION_MAX,
};

struct ra_plan {
        struct ra_decision decision;
        int error; /* ra_decide()'s: < 0 when the deciding rule failed */
        enum ra_action action;
        char rule[RA_PATH_MAX + 80]; /* "file:section" of the deciding rule, "" for none */
        /* Tune=yes: the agent's tuned value replaced the rule's
         * (decision.target_kb; ra_tune_plan() in src/advise) */
        uint64_t profile_kb; /* what the rule gives: apply goes back to it */
        bool tuned;
};

/* Decides for f (with a trace when trace_size > 0) and picks the action. */
void ra_plan_device(const struct ra_profile *p, const struct ra_facts *f, struct ra_rule_trace *trace,
                    size_t trace_size, struct ra_plan *ret);

/*
 * The action for writing target_kb (whole pages) to f: not settable,
 * unchanged, deferred or write. Also for targets that are not a profile's
 * (readahead-ctl reset writes the kernel's own value).
 */
enum ra_action ra_action_for_target(const struct ra_facts *f, uint64_t target_kb);

/* Whether the plan has a target at all (neither kept nor failed). */
bool ra_plan_has_target(const struct ra_plan *plan);

const char *ra_action_to_string(enum ra_action a);

/*
 * What a failed write of target_kb means, for a message after the device's
 * name: error is ra_write_read_ahead()'s, now_kb what it read back.
 */
void ra_write_failure_text(char *buf, size_t size, uint64_t target_kb, uint64_t now_kb, int error);
