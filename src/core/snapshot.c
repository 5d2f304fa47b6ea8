/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "mountinfo.h"
#include "snapshot.h"

static struct {
        bool on;
        bool have_mountinfo;
        char *mountinfo;
        size_t mountinfo_len;
        int mountinfo_error;
        bool have_host;
        unsigned page_kb, kernel_major, kernel_minor;
        uint64_t mem_total_kb;
        bool mem_total_invalid;
} snap;

void ra_snapshot_begin(void) {
        snap.on = true;
}

int ra_snapshot_mountinfo(char **ret, size_t *ret_len) {
        if (!snap.on)
                return 0;
        if (!snap.have_mountinfo) {
                snap.mountinfo_error = ra_read_mountinfo_file(&snap.mountinfo, &snap.mountinfo_len);
                snap.have_mountinfo = true;
        }
        if (snap.mountinfo_error < 0)
                return snap.mountinfo_error;
        char *copy = malloc(snap.mountinfo_len + 1);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, snap.mountinfo, snap.mountinfo_len + 1);
        *ret = copy;
        *ret_len = snap.mountinfo_len;
        return 1;
}

bool ra_snapshot_host(struct ra_facts *f) {
        if (!snap.on || !snap.have_host)
                return false;
        f->page_kb = snap.page_kb;
        f->mem_total_kb = snap.mem_total_kb;
        if (snap.mem_total_invalid)
                f->invalid |= 1u << RA_FACT_MEM_TOTAL;
        f->kernel_major = snap.kernel_major;
        f->kernel_minor = snap.kernel_minor;
        return true;
}

void ra_snapshot_host_keep(const struct ra_facts *f) {
        if (!snap.on)
                return;
        snap.page_kb = f->page_kb;
        snap.mem_total_kb = f->mem_total_kb;
        snap.mem_total_invalid = f->invalid & (1u << RA_FACT_MEM_TOTAL);
        snap.kernel_major = f->kernel_major;
        snap.kernel_minor = f->kernel_minor;
        snap.have_host = true;
}
