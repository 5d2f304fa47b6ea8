/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>

#include "ctl.h"
#include "size.h"
#include "devices.h"
#include "systemd.h"
#include "write.h"

enum write_result apply_device(const struct device *d) {
        const struct ra_facts *f = &d->facts;

        if (!f->attr_path) {
                /* cifs, ceph, 9p, erofs from a file: a bdi "<fstype>-N" that
                 * nothing links to this mount. Not a failure of apply:
                 * nothing can set it. */
                char a[24];
                const bool wants = !d->decision.keep && d->decide_error == 0;
                printf("%-10s not settable: ", f->name);
                if (wants)
                        printf("%s wants %s, but ", d->rule, ra_format_size_kb(d->decision.target_kb, a));
                printf("a %s mount's read_ahead_kb cannot be set (its bdi is not named after it)\n",
                       ra_str(f->fstype));
                return WRITE_OK;
        }
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
