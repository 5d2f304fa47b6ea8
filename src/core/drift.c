/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "drift.h"
#include "enum-name.h"
#include "kernel-ra.h"

static const char *const cause_names[_RA_DRIFT_MAX] = {
        [RA_DRIFT_NONE] = "none",
        [RA_DRIFT_KERNEL_DEFAULT] = "kernel-default",
        [RA_DRIFT_IO_OPT] = "io-opt",
        [RA_DRIFT_MAX_SECTORS] = "max-sectors",
        [RA_DRIFT_FUSE_INIT] = "fuse-init",
        [RA_DRIFT_NFSRAHEAD] = "nfsrahead",
        [RA_DRIFT_BTRFS] = "btrfs-mount",
        [RA_DRIFT_OTHER] = "other",
};

const char *ra_drift_cause_to_string(enum ra_drift_cause c) {
        return RA_ENUM_NAME(cause_names, c);
}

static void set(struct ra_drift *d, enum ra_drift_cause cause, uint64_t kb, const char *why) {
        d->cause = cause;
        d->explained_kb = kb;
        snprintf(d->why, sizeof(d->why), "%s", why);
}

void ra_drift_explain(const struct ra_facts *f, uint64_t target_kb, uint64_t nfsrahead_kb,
                      struct ra_drift *ret) {
        struct ra_drift d = { .cause = RA_DRIFT_NONE };
        const unsigned page_kb = f->page_kb ? f->page_kb : 4;
        char why[200];

        if (!f->current_known || target_kb == 0 ||
            ra_round_to_pages_kb(target_kb, page_kb) == f->current_kb) {
                *ret = d;
                return;
        }
        const uint64_t cur = f->current_kb;

        struct ra_kernel_value k;
        ra_kernel_value(f, &k);

        if (f->kind == RA_KIND_BLOCK) {
                if (cur == k.kb && k.basis == RA_KERNEL_BASIS_IO_OPT) {
                        snprintf(why, sizeof(why),
                                 "2 x io_opt (%" PRIu64 " bytes): the kernel's value after a queue-limits update "
                                 "(attach, resume, rescan, a queue attribute written)",
                                 f->io_opt_bytes);
                        set(&d, RA_DRIFT_IO_OPT, k.kb, why);
                } else if (cur == k.kb && k.basis == RA_KERNEL_BASIS_MAX_SECTORS) {
                        snprintf(why, sizeof(why),
                                 "2 x max_sectors_kb (%" PRIu64 "): since Linux 6.17 a rotational disk without "
                                 "io_opt gets this on every queue-limits update (attach, resume, rescan, "
                                 "a queue attribute written)",
                                 f->max_sectors_kb);
                        set(&d, RA_DRIFT_MAX_SECTORS, k.kb, why);
                }
        } else if (cur == k.kb && k.basis == RA_KERNEL_BASIS_BTRFS) {
                snprintf(why, sizeof(why),
                         "btrfs's own value, set at mount: max(4 MiB, 128 KiB x %u devices); the agent "
                         "did not run for this mount, or it was reset",
                         f->n_devices);
                set(&d, RA_DRIFT_BTRFS, cur, why);
        } else if (f->class == RA_CLASS_FUSE && cur < target_kb) {
                set(&d, RA_DRIFT_FUSE_INIT, cur,
                    "the FUSE daemon's FUSE_INIT answer: the kernel lowers the bdi to its max_readahead");
        } else if (f->class == RA_CLASS_NFS && nfsrahead_kb > 0 &&
                   cur == ra_round_to_pages_kb(nfsrahead_kb, page_kb)) {
                snprintf(why, sizeof(why),
                         "nfsrahead (nfs-common's 99-nfs.rules) writes its fixed %" PRIu64 " KiB for %s",
                         nfsrahead_kb, f->fstype && f->fstype[0] ? f->fstype : "nfs");
                set(&d, RA_DRIFT_NFSRAHEAD, nfsrahead_kb, why);
        }

        if (d.cause == RA_DRIFT_NONE) {
                if (cur == RA_KERNEL_DEFAULT_KB)
                        set(&d, RA_DRIFT_KERNEL_DEFAULT, RA_KERNEL_DEFAULT_KB,
                            "the kernel's default (128 KiB, VM_READAHEAD_PAGES)");
                else
                        set(&d, RA_DRIFT_OTHER, 0,
                            "set by something else: a write by hand, another tool or udev rule");
        }
        *ret = d;
}
