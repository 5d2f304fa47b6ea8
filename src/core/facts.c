/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

static const char *const class_names[_RA_CLASS_MAX] = {
        [RA_CLASS_UNKNOWN] = "unknown",     [RA_CLASS_MEMORY] = "memory",
        [RA_CLASS_OPTICAL] = "optical",     [RA_CLASS_RAID] = "raid",
        [RA_CLASS_REMOVABLE] = "removable", [RA_CLASS_HDD] = "hdd",
        [RA_CLASS_SSD] = "ssd",             [RA_CLASS_NFS] = "nfs",
        [RA_CLASS_NETFS] = "netfs",         [RA_CLASS_FUSE] = "fuse",
};

static const char *const transport_names[_RA_TRANSPORT_MAX] = {
        [RA_TRANSPORT_UNKNOWN] = "unknown", [RA_TRANSPORT_NVME] = "nvme",
        [RA_TRANSPORT_ATA] = "ata",         [RA_TRANSPORT_SCSI] = "scsi",
        [RA_TRANSPORT_VIRTIO] = "virtio",   [RA_TRANSPORT_USB] = "usb",
        [RA_TRANSPORT_MMC] = "mmc",         [RA_TRANSPORT_LOOP] = "loop",
        [RA_TRANSPORT_MD] = "md",           [RA_TRANSPORT_DM] = "dm",
        [RA_TRANSPORT_ZRAM] = "zram",       [RA_TRANSPORT_BRD] = "brd",
        [RA_TRANSPORT_PMEM] = "pmem",       [RA_TRANSPORT_XEN] = "xen",
        [RA_TRANSPORT_NETWORK] = "network",
};

const char *ra_class_to_string(enum ra_class c) {
        return (unsigned) c < _RA_CLASS_MAX ? class_names[c] : "unknown";
}

const char *ra_transport_to_string(enum ra_transport t) {
        return (unsigned) t < _RA_TRANSPORT_MAX ? transport_names[t] : "unknown";
}

void ra_facts_init(struct ra_facts *f) {
        *f = (struct ra_facts){
                .page_kb = 4,
        };
}

void ra_facts_done(struct ra_facts *f) {
        if (!f)
                return;
        free(f->props_buf);
        f->props_buf = NULL;
        f->n_props = 0;
        f->props_buf_used = f->props_buf_size = 0;
}

int ra_facts_add_prop(struct ra_facts *f, const char *key, const char *value) {
        size_t kl = strlen(key) + 1, vl = strlen(value) + 1;

        if (f->n_props >= RA_PROPS_MAX)
                return -E2BIG;

        /* Strings live in one buffer; props point into it, so it never moves
         * once allocated: size it for the worst case up front. */
        if (!f->props_buf) {
                f->props_buf_size = 16384;
                f->props_buf = malloc(f->props_buf_size);
                if (!f->props_buf)
                        return -ENOMEM;
        }
        if (f->props_buf_used + kl + vl > f->props_buf_size)
                return -E2BIG;

        char *k = f->props_buf + f->props_buf_used;
        memcpy(k, key, kl);
        char *v = k + kl;
        memcpy(v, value, vl);
        f->props_buf_used += kl + vl;
        f->props[f->n_props++] = (struct ra_prop){ .key = k, .value = v };
        return 0;
}

const char *ra_facts_get_prop(const struct ra_facts *f, const char *key) {
        for (size_t i = 0; i < f->n_props; i++)
                if (strcmp(f->props[i].key, key) == 0)
                        return f->props[i].value;
        return NULL;
}
