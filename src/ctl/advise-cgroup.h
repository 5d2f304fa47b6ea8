/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cgroup-attrib.h"

/* advise's sampler of memory and I/O cgroups (v2, or v1's memory and blkio). */
struct cgroup_sampler;

struct cgroup_device {
        unsigned major, minor;
};

/* -EOPNOTSUPP: neither v2 with memory and io, nor v1 memory and blkio. */
int cgroup_sampler_new(struct cgroup_sampler **ret);
void cgroup_sampler_free(struct cgroup_sampler *s);
bool cgroup_sampler_v2(const struct cgroup_sampler *s);
/* Over the window: cgroups that had events, and those whose reads explained them. */
void cgroup_sampler_counts(const struct cgroup_sampler *s, unsigned *with_events, unsigned *explaining);

/* One pass: per_dev[i] (for dev[i]) gets the events of this interval that
 * cgroups explain by their reads, explained all that cgroups explain. The
 * first pass only records. */
void cgroup_sampler_pass(struct cgroup_sampler *s, const struct cgroup_device *dev, size_t n, bool first,
                         struct ra_events *per_dev, struct ra_events *explained);
