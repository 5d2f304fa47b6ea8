/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Attribution per cgroup for advise: a cgroup's refaults, major faults and
 * reclaim go to the devices that cgroup read, by its own reads per device.
 * Where one memory cgroup holds readers of several io cgroups (v1), each
 * process's major faults go by the reads of its own io cgroup: the kernel
 * counts faults per process, refaults and reclaim only per memory cgroup.
 * Pure: counters in, shares out; the cgroup sampler (advise-cgroup.h) reads
 * the files (parsed by advise-parse.h) and keeps the samples.
 */

/* Events over one interval, for a cgroup, a process or a device. */
struct ra_events {
        double majfaults, refault_pages, steal_pages;
        double process_majfaults; /* of majfaults, those attributed per process */
};

/* One cgroup's event deltas, and which it has (v1 has no pgsteal). */
struct ra_cgroup_delta {
        struct ra_events ev;
        bool have_steal;
};

/*
 * Splits a cgroup's events over devices by its read bytes from each
 * (weights[i] for device i): per_device[i] += ev * weights[i] / sum, and
 * explained += ev (steal only when the cgroup has it). A cgroup that read
 * nothing explains nothing: false, its events are left to the host-wide
 * split.
 */
bool ra_attribute_cgroup(const struct ra_cgroup_delta *d, const double *weights, size_t n,
                         struct ra_events *per_device, struct ra_events *explained);

/* Whether a cgroup's events over `seconds` (never below zero: a counter
 * that went back gives 0) are what one moves in that time: at most 2^30
 * faults or pages (4 TiB) a second, the host's bound (ra_host_delta()); and
 * its reads per device at most 2^42 bytes a second. A bogus counter
 * (2^64-1) fails: the cgroup explains nothing in that interval. */
bool ra_cgroup_events_plausible(const struct ra_events *ev, double seconds);
bool ra_cgroup_reads_plausible(double read_bytes, double seconds);

/* One process's major faults over an interval, split by the reads per
 * device of its io cgroup, as ra_attribute_cgroup() (and counted in
 * process_majfaults too). */
bool ra_attribute_process(double majfaults, const double *weights, size_t n, struct ra_events *per_device,
                          struct ra_events *explained);

/* What no cgroup explains: host - explained, never below zero. */
struct ra_events ra_events_unexplained(const struct ra_events *host, const struct ra_events *explained);
