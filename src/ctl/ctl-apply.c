/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "ctl.h"
#include "devices.h"
#include "systemd.h"
#include "write.h"

enum write_result apply_device(const struct device *d) {
        const struct ra_facts *f = &d->facts;

        if (d->decide_error < 0) {
                printf("%-10s not changed: %s failed: %s\n", f->name, d->rule, d->decision.reason);
                return WRITE_FAILED;
        }
        if (d->decision.keep) {
                printf("%-10s left alone (%s)\n", f->name, d->decision.reason);
                return WRITE_OK;
        }
        enum write_result res = write_target("apply", f, d->decision.target_kb, d->rule);
        /* The work is done now: a failed wait for this mount is history. */
        if (res == WRITE_OK && f->kind == RA_KIND_MOUNT)
                (void) systemd_reset_failed_bdi_unit(f->name);
        return res;
}

int verb_apply(struct ctl *ctl, int argc, char **argv) {
        return for_each_device(ctl, "apply", argc, argv, apply_device);
}
