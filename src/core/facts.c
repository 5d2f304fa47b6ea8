/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "enum-name.h"
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

static const char *const kind_names[] = {
        [RA_KIND_BLOCK] = "block",
        [RA_KIND_MOUNT] = "mount",
};

const char *ra_kind_to_string(enum ra_kind k) {
        return RA_ENUM_NAME(kind_names, k);
}

int ra_kind_from_string(const char *s) {
        for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
                if (kind_names[i] && strcmp(s, kind_names[i]) == 0)
                        return (int) i;
        return -EINVAL;
}

const char *ra_class_to_string(enum ra_class c) {
        return RA_ENUM_NAME(class_names, c);
}

const char *ra_transport_to_string(enum ra_transport t) {
        return RA_ENUM_NAME(transport_names, t);
}

static const char *const fact_names[_RA_FACT_MAX] = {
        [RA_FACT_SIZE] = "size",           [RA_FACT_IO_MIN] = "io_min",
        [RA_FACT_IO_OPT] = "io_opt",       [RA_FACT_PHYSICAL_BLOCK] = "physical_block",
        [RA_FACT_CHUNK] = "chunk",         [RA_FACT_RAID_DISKS] = "raid_disks",
        [RA_FACT_MD_LAYOUT] = "md_layout", [RA_FACT_MEM_TOTAL] = "mem_total",
        [RA_FACT_RSIZE] = "rsize",
};

const char *ra_fact_to_string(enum ra_fact fact) {
        return RA_ENUM_NAME(fact_names, fact);
}

void ra_facts_init(struct ra_facts *f) {
        *f = (struct ra_facts){
                .page_kb = 4,
        };
}

void ra_facts_done(struct ra_facts *f) {
        if (!f)
                return;
        for (size_t i = 0; i < sizeof(f->strings) / sizeof(f->strings[0]); i++) {
                free(f->strings[i]);
                f->strings[i] = NULL;
        }
        for (size_t i = 0; i < f->n_props; i++)
                free((char *) f->props[i].key); /* the value shares this allocation */
        free(f->props);
        f->props = NULL;
        f->n_props = f->n_props_allocated = 0;
}

int ra_facts_set_n(char **dst, const char *src, size_t n) {
        char *copy = NULL;

        if (src) {
                copy = malloc(n + 1);
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, src, n);
                copy[n] = 0;
        }
        free(*dst);
        *dst = copy;
        return 0;
}

int ra_facts_set(char **dst, const char *src) {
        return ra_facts_set_n(dst, src, src ? strlen(src) : 0);
}

int ra_facts_add_prop(struct ra_facts *f, const char *key, const char *value) {
        size_t kl = strlen(key) + 1, vl = strlen(value) + 1;

        if (f->n_props == f->n_props_allocated) {
                size_t n = f->n_props_allocated ? f->n_props_allocated * 2 : 64;
                struct ra_prop *props = realloc(f->props, n * sizeof(*props));
                if (!props)
                        return -ENOMEM;
                f->props = props;
                f->n_props_allocated = n;
        }
        char *k = malloc(kl + vl);
        if (!k)
                return -ENOMEM;
        memcpy(k, key, kl);
        char *v = k + kl;
        memcpy(v, value, vl);
        f->props[f->n_props++] = (struct ra_prop){ .key = k, .value = v };
        return 0;
}

const char *ra_facts_get_prop(const struct ra_facts *f, const char *key) {
        for (size_t i = 0; i < f->n_props; i++)
                if (strcmp(f->props[i].key, key) == 0)
                        return f->props[i].value;
        return NULL;
}

/* A value a profile line carries unchanged: printable ASCII with no space
 * (lists of globs are split at spaces) and no quote or comment character. */
static bool id_value_ok(const char *v) {
        size_t n = v ? strlen(v) : 0;

        if (n == 0 || n > RA_STABLE_ID_MAX)
                return false;
        for (const char *p = v; *p; p++)
                if (*p <= ' ' || *p > '~' || strchr(";#\"'", *p))
                        return false;
        return true;
}

bool ra_find_stable_id(const struct ra_facts *f, struct ra_stable_id *ret) {
        static const char *const keys[] = { "ID_WWN", "ID_SERIAL", "MD_UUID", "DM_UUID" };

        if (f->kind == RA_KIND_MOUNT) {
                /* classify's NFS class: the fact decide() and advise read too */
                if (f->class != RA_CLASS_NFS || !id_value_ok(f->mount_point) || !id_value_ok(f->server))
                        return false;
                *ret = (struct ra_stable_id){ "MountPoint", f->mount_point, f->server };
                return true;
        }
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
                const char *v = ra_facts_get_prop(f, keys[i]);
                if (id_value_ok(v)) {
                        *ret = (struct ra_stable_id){ keys[i], v, NULL };
                        return true;
                }
        }
        return false;
}
