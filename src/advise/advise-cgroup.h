/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "advise-attrib.h"

/* advise's sampler of memory and I/O cgroups (v2, or v1's memory and blkio). */
struct ra_cgroup_sampler;

struct ra_cgroup_device {
        unsigned major, minor;
};

/* -EOPNOTSUPP: neither v2 with memory and io, nor v1 memory and blkio. */
int ra_cgroup_sampler_new(struct ra_cgroup_sampler **ret);
void ra_cgroup_sampler_free(struct ra_cgroup_sampler *s);
bool ra_cgroup_sampler_v2(const struct ra_cgroup_sampler *s);
/* Over the window: cgroups that had events, and those whose reads explained them. */
void ra_cgroup_sampler_counts(const struct ra_cgroup_sampler *s, unsigned *with_events, unsigned *explaining);
/* A new window: those counts start again; every cgroup's counters and
 * processes stay as the next pass's baseline. */
void ra_cgroup_sampler_window_restart(struct ra_cgroup_sampler *s);

/* One pass, `seconds` after the last: per_dev[i] (for dev[i]) gets the
 * events of this interval that cgroups explain by their reads, explained
 * all that cgroups explain (implausible counters explain nothing:
 * ra_cgroup_events_plausible()). The first pass only records. */
void ra_cgroup_sampler_pass(struct ra_cgroup_sampler *s, const struct ra_cgroup_device *dev, size_t n,
                            bool first, double seconds, struct ra_events *per_dev,
                            struct ra_events *explained);
