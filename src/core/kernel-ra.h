/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "facts.h"

/* The kernel's default readahead (VM_READAHEAD_PAGES), in KiB. */
#define RA_KERNEL_DEFAULT_KB 128

/*
 * The read_ahead_kb the kernel itself gives a device, as if the agent had
 * never run: what reset puts back and what drift recognises.
 *
 * block/blk-settings.c, blk_apply_bdi_limits(), on every queue-limits update:
 *
 *   io_opt   = queue/optimal_io_size (bytes)
 *              since 6.17: max_sectors for a rotational disk with no io_opt
 *   ra_pages = max(2 * io_opt / PAGE_SIZE, VM_READAHEAD_PAGES)
 *              since 6.15: max(current, ...), it never lowers a value
 *
 * Network mounts (anonymous bdis "0:N") keep bdi_init()'s VM_READAHEAD_PAGES.
 * btrfs sets its own bdi at mount (fs/btrfs/disk-io.c, open_ctree()) to
 * max(4 MiB, VM_READAHEAD_PAGES x num_devices). The result is whole pages.
 */
enum ra_kernel_basis {
        RA_KERNEL_BASIS_DEFAULT,     /* VM_READAHEAD_PAGES */
        RA_KERNEL_BASIS_IO_OPT,      /* 2 x io_opt */
        RA_KERNEL_BASIS_MAX_SECTORS, /* 2 x max_sectors: rotational, no io_opt, 6.17+ */
        RA_KERNEL_BASIS_BTRFS,       /* btrfs's bdi: max(4 MiB, 128 KiB x devices) */
};

struct ra_kernel_value {
        uint64_t kb; /* whole pages */
        enum ra_kernel_basis basis;
};

/* Pure: reads f's queue limits, kind, btrfs facts, page size and kernel
 * release (0.0, unknown, counts as older than any rule). */
void ra_kernel_value(const struct ra_facts *f, struct ra_kernel_value *ret);

/* f's kernel release is major.minor or later. */
bool ra_kernel_at_least(const struct ra_facts *f, unsigned major, unsigned minor);
