/* SPDX-License-Identifier: MIT */
#include "btrfs.h"
#include "decide.h"
#include "kernel-ra.h"

bool ra_kernel_at_least(const struct ra_facts *f, unsigned major, unsigned minor) {
        return f->kernel_major > major || (f->kernel_major == major && f->kernel_minor >= minor);
}

void ra_kernel_value(const struct ra_facts *f, struct ra_kernel_value *ret) {
        const uint64_t page_bytes = (uint64_t) (f->page_kb ? f->page_kb : 4) * 1024;
        const uint64_t min_pages = RA_KERNEL_DEFAULT_KB * 1024 / page_bytes;
        struct ra_kernel_value v = { .basis = RA_KERNEL_BASIS_DEFAULT };
        uint64_t io_opt_bytes = 0, pages;

        if (f->btrfs_fsid[0]) {
                v.basis = RA_KERNEL_BASIS_BTRFS;
                v.kb = ra_round_to_pages_kb(ra_btrfs_kernel_ra_kb(f->n_devices), f->page_kb);
                *ret = v;
                return;
        }
        if (f->kind == RA_KIND_BLOCK && f->io_opt_bytes > 0) {
                io_opt_bytes = f->io_opt_bytes;
                v.basis = RA_KERNEL_BASIS_IO_OPT;
        } else if (f->kind == RA_KIND_BLOCK && f->rotational && f->max_sectors_kb > 0 &&
                   ra_kernel_at_least(f, 6, 17)) {
                io_opt_bytes = f->max_sectors_kb * 1024;
                v.basis = RA_KERNEL_BASIS_MAX_SECTORS;
        }
        pages = 2 * io_opt_bytes / page_bytes;
        if (pages <= min_pages) {
                pages = min_pages;
                v.basis = RA_KERNEL_BASIS_DEFAULT;
        }
        v.kb = pages * (page_bytes / 1024);
        *ret = v;
}
