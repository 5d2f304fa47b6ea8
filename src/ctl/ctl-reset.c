/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl reset [DEV...]: put back the read_ahead_kb the kernel itself
 * would choose, as if the agent had never run. The package's prerm runs it.
 * The kernel's value: ra_kernel_value() (src/core/kernel-ra.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "each-device.h"
#include "write.h"
#include "devices.h"
#include "gather.h"
#include "kernel-ra.h"
#include "output.h"
#include "plan.h"
#include "size.h"
#include "write-read-ahead.h"

/* Where the kernel's value comes from, for reset's parentheses. */
static const char *kernel_value_why(const struct ra_facts *f, const struct ra_kernel_value *k, char *why,
                                    size_t why_size) {
        char a[24];

        switch (k->basis) {
        case RA_KERNEL_BASIS_BTRFS:
                snprintf(why, why_size, "btrfs: max(4M, 128K x %u devices)", f->n_devices);
                break;
        case RA_KERNEL_BASIS_IO_OPT:
                snprintf(why, why_size, "2 x io_opt %s", ra_format_size_kb(f->io_opt_bytes / 1024, a));
                break;
        case RA_KERNEL_BASIS_MAX_SECTORS:
                snprintf(why, why_size, "rotational, no io_opt: 2 x max_sectors %s",
                         ra_format_size_kb(f->max_sectors_kb, a));
                break;
        case RA_KERNEL_BASIS_DEFAULT:
                snprintf(why, why_size,
                         f->kind == RA_KIND_MOUNT ? "kernel default for a network mount" : "kernel default");
                break;
        }
        return why;
}

static enum write_result reset_one(const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        char why[96];

        if (!f->attr_path) {
                /* cifs, ceph, 9p: their bdi is not named after the device, so
                 * the agent never set it either */
                fprintf_people(stdout, "%-10s nothing to reset (%s: no bdi of this name)", f->name,
                               ra_str(f->fstype));
                putchar('\n');
                return WRITE_OK;
        }
        struct ra_kernel_value k;
        ra_kernel_value(f, &k);
        return carry_out_write("reset", f, ra_action_for_target(f, k.kb), k.kb,
                               kernel_value_why(f, &k, why, sizeof(why)));
}

int verb_reset(struct ctl *ctl, int argc, char **argv) {
        return for_each_device(ctl, "reset", argc, argv, reset_one);
}
