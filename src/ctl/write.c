/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "output.h"
#include "plan.h"
#include "size.h"
#include "write-read-ahead.h"
#include "write.h"

enum write_result carry_out_write(const char *verb, const struct ra_facts *f, enum ra_action action,
                                  uint64_t target_kb, const char *why) {
        char a[24], b[24], failure[160];
        uint64_t now_kb = 0;

        if (action == RA_ACTION_UNCHANGED) {
                fprintf_people(stdout, "%-10s %s, unchanged (%s)", f->name, ra_format_size_kb(target_kb, a), why);
                putchar('\n');
                return WRITE_OK;
        }
        if (action == RA_ACTION_DEFERRED) {
                /* Not a failure: udev's change event on resume writes it. */
                fprintf_people(stdout, "%-10s %s, deferred: %s", f->name, ra_format_size_kb(target_kb, a),
                               f->write_blocked);
                putchar('\n');
                return WRITE_OK;
        }
        int r = ra_write_read_ahead(f->attr_path, target_kb, &now_kb);
        if (r == -EACCES || r == -EPERM) {
                ctl_error(verb, "%s: permission denied: run as root", f->name);
                return WRITE_DENIED;
        }
        if (r < 0) {
                ra_write_failure_text(failure, sizeof(failure), target_kb, now_kb, r);
                ctl_error(verb, "%s: %s", f->name, failure);
                return WRITE_FAILED;
        }
        fprintf_people(stdout, "%-10s %s -> %s (%s)", f->name,
                       f->current_known ? ra_format_size_kb(f->current_kb, b) : "?", ra_format_size_kb(target_kb, a),
                       why);
        putchar('\n');
        return WRITE_OK;
}
