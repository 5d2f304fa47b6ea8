/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>

#include "config.h"
#include "decide.h"
#include "facts.h"
#include "plan.h"

/* One device with its facts and the plan (decision and action) the profile gives it. */
struct ctl_device {
        struct ra_facts facts;
        struct ra_plan plan;
        struct ra_rule_trace *trace; /* one per profile rule, when asked for */
        /* The whole disk it sits on, for status's tree ("" none): of several
         * (md over two disks, btrfs over its members), the first by name. */
        char parent[RA_NAME_MAX];
};

/* All whole disks, in udev's order, then the mounts; with their parents. */
int devices_enumerate(struct udev *udev, const struct ra_config *c, struct ctl_device **ret, size_t *ret_n);
/* Its failure, in every verb's words: "cannot list devices: <strerror>". */
#define DEVICES_LIST_FAILED "cannot list devices"

/* One disk by kernel name ("sda") or any path to its node ("/dev/sda",
 * "/dev/mapper/NAME", "/dev/disk/by-id/..."), one mount by bdi name or mount
 * point, with a trace. -ENOENT: no mount there; -ENOTBLK: a partition;
 * -EMEDIUMTYPE: a local filesystem (ext4 on a disk, tmpfs, overlay). */
int device_find(struct udev *udev, const struct ra_config *c, const char *name, struct ctl_device *ret);

void device_done(struct ctl_device *d);

/* What device_find() failed with, for a message. */
const char *device_find_strerror(int r);

void devices_free(struct ctl_device *list, size_t n);

/* The kernel holds another value than the target: status marks it, explain
 * says why, Prometheus exports it. */
bool device_drifts(const struct ctl_device *d);
