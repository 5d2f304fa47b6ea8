/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
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
        if (!f->attr_path) {
                /* cifs, ceph, 9p: their bdi is not named after the mount.
                 * Not a failure of apply: nothing can set it. */
                printf("%-10s %s wants %" PRIu64 "K, but a %s mount's read_ahead_kb cannot be set (no bdi %s)\n",
                       f->name, d->rule, d->decision.target_kb, ra_str(f->fstype), f->name);
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
