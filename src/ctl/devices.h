/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>

#include "config.h"
#include "decide.h"
#include "facts.h"

/* One device with its facts and the decision the profile gives it. */
struct device {
        struct ra_facts facts;
        struct ra_decision decision;
        int decide_error;
        char rule[RA_PATH_MAX + 80]; /* "file:section", or "" */
        struct ra_rule_trace *trace; /* one per profile rule, when asked for */
};

/* All whole disks, in udev's order. */
int devices_enumerate(struct udev *udev, const struct ra_config *c, struct device **ret, size_t *ret_n);

/* One disk by kernel name ("sda") or any path to its node ("/dev/sda",
 * "/dev/mapper/NAME", "/dev/disk/by-id/..."), one mount by bdi name or mount
 * point, with a trace. -ENOENT: no mount there; -ENOTBLK: a partition. */
int device_find(struct udev *udev, const struct ra_config *c, const char *name, struct device *ret);

void device_done(struct device *d);

/* What device_find() failed with, for a message. */
const char *device_find_strerror(int r);

/* What went wrong reading mountinfo, for a message. */
const char *mountinfo_strerror(int r);
void devices_free(struct device *list, size_t n);
