/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include "advise-tune.h"
#include "ctl.h"
#include "size.h"
#include "devices.h"
#include "output.h"
#include "systemd.h"
#include "each-device.h"
#include "write.h"

/* The tuned devices apply put back, whose states verb_apply() forgets. */
static struct {
        char (*keys)[RA_TUNE_KEY_MAX];
        size_t n;
} untuned;

static void untune_later(const struct ra_facts *f) {
        if (!untuned.keys && !(untuned.keys = calloc(RA_TUNE_STATES_MAX, sizeof(*untuned.keys))))
                return;
        if (untuned.n < RA_TUNE_STATES_MAX && ra_tune_key(f, untuned.keys[untuned.n], sizeof(untuned.keys[0])))
                untuned.n++;
}

enum write_result apply_device(const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        const struct ra_plan *plan = &d->plan;
        char a[24];

        switch (plan->action) {
        case RA_ACTION_NOT_SETTABLE:
                /* cifs, ceph, 9p, erofs from a file: a bdi "<fstype>-N" that
                 * nothing links to this mount. Not a failure of apply:
                 * nothing can set it. */
                fprintf_people(stdout, "%-10s not settable: ", f->name);
                if (ra_plan_has_target(plan))
                        fprintf_people(stdout, "%s wants %s, but ", plan->rule,
                                       ra_format_size_kb(plan->decision.target_kb, a));
                fprintf_people(stdout, "a %s mount's read_ahead_kb cannot be set (its bdi is not named after it)",
                               ra_str(f->fstype));
                putchar('\n');
                return WRITE_OK;
        case RA_ACTION_FAIL:
                fprintf_people(stdout, "%-10s not changed: %s failed: %s", f->name, plan->rule,
                               plan->decision.reason);
                putchar('\n');
                return WRITE_FAILED;
        case RA_ACTION_KEEP:
                fprintf_people(stdout, "%-10s left alone (%s)", f->name, plan->decision.reason);
                putchar('\n');
                return WRITE_OK;
        default:
                break;
        }
        /* apply goes back to the profile's value; verb_apply() then has the
         * agent forget the device's tuning (Tune=yes), which starts again
         * from there */
        uint64_t kb = plan->tuned ? plan->profile_kb : plan->decision.target_kb;
        enum ra_action action = plan->tuned ? ra_action_for_target(f, kb) : plan->action;
        enum write_result res = carry_out_write("apply", f, action, kb, plan->rule);
        /* The work is done now: a failed wait for this mount is history. */
        if (res == WRITE_OK && f->kind == RA_KIND_MOUNT)
                (void) systemd_reset_failed_bdi_unit(f->name);
        if (res == WRITE_OK && plan->tuned)
                untune_later(f);
        return res;
}

/* The configuration's errors come last, where whoever ran apply looks. The
 * exit status stays that of the writes, for the scripts that run apply
 * (setup.sh under set -e); 'check' is the test of the configuration. */
int verb_apply(struct ctl *ctl, int argc, char **argv) {
        int r = for_each_device(ctl, "apply", argc, argv, apply_device);
        if (untuned.n > 0) {
                const char **keys = calloc(untuned.n, sizeof(*keys));
                for (size_t i = 0; keys && i < untuned.n; i++)
                        keys[i] = untuned.keys[i];
                int e = keys ? ra_tune_states_forget(ctl->config->root, keys, untuned.n) : -ENOMEM;
                if (e < 0)
                        ctl_error("apply", "cannot forget the agent's tuning in %s/var/lib/readahead-agent: %s",
                                  ctl->config->root, strerror(-e));
                free(keys);
        }
        free(untuned.keys);
        fflush(stdout);
        ctl_config_errors(ctl->config, "apply");
        return r;
}
