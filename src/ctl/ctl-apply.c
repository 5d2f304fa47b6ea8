/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>

#include "ctl.h"
#include "size.h"
#include "devices.h"
#include "output.h"
#include "systemd.h"
#include "each-device.h"
#include "write.h"

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
        enum write_result res = carry_out_write("apply", f, plan->action, plan->decision.target_kb, plan->rule);
        /* The work is done now: a failed wait for this mount is history. */
        if (res == WRITE_OK && f->kind == RA_KIND_MOUNT)
                (void) systemd_reset_failed_bdi_unit(f->name);
        return res;
}

/* The configuration's errors come last, where whoever ran apply looks. The
 * exit status stays that of the writes, for the scripts that run apply
 * (setup.sh under set -e); 'check' is the test of the configuration. */
int verb_apply(struct ctl *ctl, int argc, char **argv) {
        int r = for_each_device(ctl, "apply", argc, argv, apply_device);
        fflush(stdout);
        ctl_config_errors(ctl->config, "apply");
        return r;
}
