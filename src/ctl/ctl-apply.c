/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "ctl.h"
#include "devices.h"
#include "size.h"
#include "systemd.h"

/* Returns true on success or when there was nothing to do. */
static bool apply_one(const struct device *d) {
        const struct ra_facts *f = &d->facts;
        char a[24], b[24];
        uint64_t now_kb = 0;

        if (d->decide_error < 0) {
                printf("%-10s not changed: %s failed: %s\n", f->name, d->rule, d->decision.reason);
                return false;
        }
        if (d->decision.keep) {
                printf("%-10s left alone (%s)\n", f->name, d->decision.reason);
                return true;
        }
        if (f->current_known && f->current_kb == d->decision.target_kb) {
                printf("%-10s %s, unchanged\n", f->name, ra_format_size_kb(d->decision.target_kb, a));
                return true;
        }

        int r = ra_write_read_ahead(f->attr_path, d->decision.target_kb, &now_kb);
        if (r == -EACCES || r == -EPERM) {
                fprintf(stderr, "readahead-ctl apply: %s: permission denied: run as root\n", f->name);
                return false;
        }
        if (r == -EIO) {
                fprintf(stderr, "readahead-ctl apply: %s: wrote %" PRIu64 " but the kernel holds %" PRIu64 "\n",
                        f->name, d->decision.target_kb, now_kb);
                return false;
        }
        if (r < 0) {
                fprintf(stderr, "readahead-ctl apply: %s: cannot write %s: %s\n", f->name, f->attr_path,
                        strerror(-r));
                return false;
        }
        /* The work is done now: a failed wait for this mount is history. */
        if (f->kind == RA_KIND_MOUNT)
                (void) systemd_reset_failed_bdi_unit(f->name);
        printf("%-10s %s -> %s (%s)\n", f->name,
               f->current_known ? ra_format_size_kb(f->current_kb, b) : "?",
               ra_format_size_kb(d->decision.target_kb, a), d->rule);
        return true;
}

int verb_apply(struct ctl *ctl, int argc, char **argv) {
        bool ok = true;

        if (argc == 0) {
                struct device *list = NULL;
                size_t n = 0;
                int r = devices_enumerate(ctl->udev, ctl->config, &list, &n);
                if (r < 0) {
                        fprintf(stderr, "readahead-ctl apply: cannot list block devices: %s\n", strerror(-r));
                        return EXIT_FAILURE_;
                }
                for (size_t i = 0; i < n; i++)
                        ok = apply_one(&list[i]) && ok;
                devices_free(list, n);
        } else
                for (int i = 0; i < argc; i++) {
                        struct device d;
                        int r = device_find(ctl->udev, ctl->config, argv[i], &d);
                        if (r < 0) {
                                fprintf(stderr, "readahead-ctl apply: %s: %s\n", argv[i],
                                        r == -ENOTBLK ? "not a whole disk"
                                        : r == -ENOENT ? "no mount at that path"
                                                       : "no such block device or network mount");
                                ok = false;
                                continue;
                        }
                        ok = apply_one(&d) && ok;
                        device_done(&d);
                }
        return ok ? EXIT_OK : EXIT_FAILURE_;
}
