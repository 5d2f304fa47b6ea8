/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl reset [DEV...]: put back the read_ahead_kb the kernel itself
 * would choose, as if the agent had never run. The package's prerm runs it.
 *
 * The kernel's value (block/blk-settings.c, blk_apply_bdi_limits()):
 *
 *   io_opt = queue/optimal_io_size (bytes)
 *   since Linux 6.17: a rotational disk with no io_opt uses max_sectors
 *   ra_pages = max(2 * io_opt / PAGE_SIZE, VM_READAHEAD_PAGES)
 *
 * VM_READAHEAD_PAGES is 128 KiB in pages. Network mounts (anonymous bdis
 * "0:N") start from bdi_init()'s VM_READAHEAD_PAGES. btrfs sets its own bdi
 * at mount (fs/btrfs/disk-io.c, open_ctree()) to
 * max(4 MiB, VM_READAHEAD_PAGES x num_devices). The result is in whole
 * pages, so it reads back exactly as written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "btrfs.h"
#include "ctl.h"
#include "each-device.h"
#include "write.h"
#include "devices.h"
#include "gather.h"
#include "plan.h"
#include "size.h"
#include "write-read-ahead.h"

#define VM_READAHEAD_BYTES (UINT64_C(128) * 1024)

/* Since Linux 6.17, blk_apply_bdi_limits() takes max_sectors as io_opt for
 * rotational disks that report none. */
static bool kernel_uses_max_sectors(void) {
        static int cached = -1;
        struct utsname u;
        unsigned major = 0, minor = 0;

        if (cached < 0) {
                cached = uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
                         (major > 6 || (major == 6 && minor >= 17));
        }
        return cached;
}

/*
 * The kernel's own value for d, in KiB, with a few words on where it comes
 * from. Pure arithmetic once the facts are read.
 */
static uint64_t kernel_value_kb(const struct ra_facts *f, char *why, size_t why_size) {
        const uint64_t page_bytes = (uint64_t) (f->page_kb ? f->page_kb : 4) * 1024;
        uint64_t io_opt = 0, pages, min_pages = VM_READAHEAD_BYTES / page_bytes;
        char a[24];

        if (f->btrfs_fsid[0]) {
                snprintf(why, why_size, "btrfs: max(4M, 128K x %u devices)", f->n_devices);
                return ra_round_to_pages_kb(ra_btrfs_kernel_ra_kb(f->n_devices), f->page_kb);
        }
        if (f->kind == RA_KIND_MOUNT) {
                snprintf(why, why_size, "kernel default for a network mount");
                return min_pages * (page_bytes / 1024);
        }
        if (f->io_opt_bytes > 0) {
                io_opt = f->io_opt_bytes;
                snprintf(why, why_size, "2 x io_opt %s", ra_format_size_kb(io_opt / 1024, a));
        } else if (f->rotational && kernel_uses_max_sectors()) {
                io_opt = f->max_sectors_kb * 1024;
                snprintf(why, why_size, "rotational, no io_opt: 2 x max_sectors %s",
                         ra_format_size_kb(io_opt / 1024, a));
        }
        pages = 2 * io_opt / page_bytes;
        if (pages <= min_pages) {
                pages = min_pages;
                snprintf(why, why_size, "kernel default");
        }
        return pages * (page_bytes / 1024);
}

static enum write_result reset_one(const struct ctl_device *d) {
        const struct ra_facts *f = &d->facts;
        char why[96];

        if (!f->attr_path) {
                /* cifs, ceph, 9p: their bdi is not named after the device, so
                 * the agent never set it either */
                printf("%-10s nothing to reset (%s: no bdi of this name)\n", f->name, ra_str(f->fstype));
                return WRITE_OK;
        }
        uint64_t target_kb = kernel_value_kb(f, why, sizeof(why));
        return carry_out_write("reset", f, ra_action_for_target(f, target_kb), target_kb, why);
}

int verb_reset(struct ctl *ctl, int argc, char **argv) {
        return for_each_device(ctl, "reset", argc, argv, reset_one);
}
