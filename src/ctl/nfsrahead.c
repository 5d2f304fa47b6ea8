/* SPDX-License-Identifier: MIT */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drift.h"
#include "facts.h"
#include "nfsrahead.h"

struct lookup {
        const char *fstype;
        uint64_t kb;
};

static int on_entry(void *user, const char *section, const char *name, const char *value) {
        struct lookup *l = user;
        char *end;

        if (strcmp(section, "nfsrahead") == 0 && strcmp(name, l->fstype) == 0) {
                unsigned long long v = strtoull(value, &end, 10);
                if (end != value && *end == 0 && v > 0)
                        l->kb = v;
        }
        return 1; /* nfs.conf is not ours to judge: read on */
}

uint64_t nfsrahead_kb(const char *root, const char *fstype) {
        static const char *const rules[] = {
                "/etc/udev/rules.d/99-nfs.rules",
                "/usr/lib/udev/rules.d/99-nfs.rules",
                "/lib/udev/rules.d/99-nfs.rules",
        };
        char path[RA_PATH_MAX + 64];
        bool installed = false;

        for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]) && !installed; i++) {
                snprintf(path, sizeof(path), "%s%s", root ? root : "", rules[i]);
                installed = access(path, F_OK) == 0;
        }
        if (!installed)
                return 0;

        struct lookup l = { .fstype = fstype && fstype[0] ? fstype : "nfs", .kb = RA_KERNEL_DEFAULT_KB };
        snprintf(path, sizeof(path), "%s/etc/nfs.conf", root ? root : "");
        (void) ini_parse(path, on_entry, &l);
        return l.kb;
}
