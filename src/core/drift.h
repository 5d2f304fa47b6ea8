/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "facts.h"
#include "kernel-ra.h" /* RA_KERNEL_DEFAULT_KB */

/*
 * Where a value other than ours comes from. Pure: the facts (queue limits,
 * class, kernel version) and what nfsrahead would write are all it needs.
 * Values are compared in whole pages, as the kernel stores them.
 */
enum ra_drift_cause {
        RA_DRIFT_NONE,           /* current is the target, or either is unknown */
        RA_DRIFT_KERNEL_DEFAULT, /* 128 KiB, VM_READAHEAD_PAGES */
        RA_DRIFT_IO_OPT,         /* 2 x io_opt: a queue-limits update (6.15+: never lowers) */
        RA_DRIFT_MAX_SECTORS,    /* 2 x max_sectors: a rotational disk without io_opt, 6.17+ */
        RA_DRIFT_FUSE_INIT,      /* the FUSE daemon's max_readahead in its FUSE_INIT answer */
        RA_DRIFT_NFSRAHEAD,      /* nfs-common's nfsrahead, one fixed value per fstype */
        RA_DRIFT_BTRFS,          /* btrfs's own value at mount: max(4 MiB, 128 KiB x devices) */
        RA_DRIFT_OTHER,          /* a write by hand, another tool or rule */
        _RA_DRIFT_MAX,
};

struct ra_drift {
        enum ra_drift_cause cause;
        uint64_t explained_kb; /* the value the cause gives (0 for none/other) */
        char why[200];
};

/*
 * nfsrahead_kb: what nfsrahead writes for this mount's fstype (its
 * configuration, 128 without one), 0 when nfsrahead is not installed.
 */
void ra_drift_explain(const struct ra_facts *f, uint64_t target_kb, uint64_t nfsrahead_kb,
                      struct ra_drift *ret);

const char *ra_drift_cause_to_string(enum ra_drift_cause c);
