/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "gather.h"

static int device_fill(struct udev_device *ud, const struct ra_config *c, struct device *d,
                       bool with_trace) {
        int r;

        ra_facts_init(&d->facts);
        r = ra_gather_block(ud, &d->facts);
        if (r < 0)
                return r;
        if (with_trace && c->profile.n_rules > 0) {
                d->trace = calloc(c->profile.n_rules, sizeof(*d->trace));
                if (!d->trace)
                        return -ENOMEM;
        }
        d->decide_error = ra_decide(&c->profile, &d->facts, &d->decision, d->trace,
                                    d->trace ? c->profile.n_rules : 0);
        if (d->decision.rule)
                snprintf(d->rule, sizeof(d->rule), "%s:%s", d->decision.rule->file,
                         d->decision.rule->section);
        return 0;
}

static bool is_whole_disk(struct udev_device *ud) {
        const char *t = udev_device_get_devtype(ud);
        return t && strcmp(t, "disk") == 0;
}

int devices_enumerate(struct udev *udev, const struct ra_config *c, struct device **ret, size_t *ret_n) {
        struct udev_enumerate *e = udev_enumerate_new(udev);
        struct udev_list_entry *item;
        struct device *list = NULL;
        size_t n = 0;
        int r = 0;

        if (!e)
                return -ENOMEM;
        udev_enumerate_add_match_subsystem(e, "block");
        r = udev_enumerate_scan_devices(e);
        if (r < 0)
                goto out;

        udev_list_entry_foreach(item, udev_enumerate_get_list_entry(e)) {
                struct udev_device *ud = udev_device_new_from_syspath(udev, udev_list_entry_get_name(item));
                if (!ud)
                        continue; /* gone since the scan */
                if (is_whole_disk(ud)) {
                        struct device *nl = realloc(list, (n + 1) * sizeof(*list));
                        if (!nl) {
                                udev_device_unref(ud);
                                r = -ENOMEM;
                                goto out;
                        }
                        list = nl;
                        memset(&list[n], 0, sizeof(list[n]));
                        r = device_fill(ud, c, &list[n], false);
                        if (r == -ENOMEM) {
                                udev_device_unref(ud);
                                n++;
                                goto out;
                        }
                        if (r < 0)
                                ra_facts_done(&list[n].facts); /* vanished: skip */
                        else
                                n++;
                        r = 0;
                }
                udev_device_unref(ud);
        }
out:
        udev_enumerate_unref(e);
        if (r < 0) {
                devices_free(list, n);
                return r;
        }
        *ret = list;
        *ret_n = n;
        return 0;
}

int device_find(struct udev *udev, const struct ra_config *c, const char *name, struct device *ret) {
        char syspath[RA_PATH_MAX];
        struct udev_device *ud;
        int r;

        if (strncmp(name, "/dev/", 5) == 0)
                name += 5;
        if (!*name || strchr(name, '/') || strcmp(name, "..") == 0)
                return -EINVAL;
        snprintf(syspath, sizeof(syspath), "/sys/class/block/%s", name);
        ud = udev_device_new_from_syspath(udev, syspath);
        if (!ud)
                return -ENODEV;
        if (!is_whole_disk(ud)) {
                udev_device_unref(ud);
                return -ENOTBLK;
        }
        memset(ret, 0, sizeof(*ret));
        r = device_fill(ud, c, ret, true);
        udev_device_unref(ud);
        if (r < 0)
                device_done(ret);
        return r;
}

void device_done(struct device *d) {
        ra_facts_done(&d->facts);
        free(d->trace);
        d->trace = NULL;
}

void devices_free(struct device *list, size_t n) {
        for (size_t i = 0; i < n; i++)
                device_done(&list[i]);
        free(list);
}
