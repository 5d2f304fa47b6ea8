/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Attribution per cgroup for advise: a cgroup's refaults, major faults and
 * reclaim go to the devices that cgroup read, by its own reads per device.
 * Pure: the texts of memory.stat, io.stat (cgroup v2) and
 * blkio.throttle.io_service_bytes / io_serviced (v1) in, counters out; the
 * caller reads the files and keeps the samples.
 */

/* A cgroup's own memory events, cumulative (memory.stat). v2's counters
 * include its children (advise reads leaves only); v1's unprefixed ones are
 * the cgroup's own. */
struct ra_cgroup_mem {
        uint64_t majfaults;          /* pgmajfault */
        uint64_t refault_file_pages; /* workingset_refault_file */
        uint64_t steal_pages;        /* pgsteal (v2 only: v1's pgpgout counts far more than reclaim) */
        bool have_majfaults, have_refaults, have_steal;
};

/* The keys above from memory.stat's text; -ENODATA when it has none. */
int ra_cgroup_mem_parse(const char *text, struct ra_cgroup_mem *ret);

/* A cgroup's reads from one device, cumulative. */
struct ra_cgroup_io {
        unsigned major, minor;
        uint64_t read_bytes, read_ios;
};

#define RA_CGROUP_IO_MAX 64

/* io.stat (v2): "MAJ:MIN rbytes=N wbytes=N rios=N wios=N ...". At most
 * `max` devices; returns how many. */
size_t ra_cgroup_io_parse_v2(const char *text, struct ra_cgroup_io *ret, size_t max);
/* blkio.throttle.io_service_bytes and io_serviced (v1): "MAJ:MIN Read N"
 * lines (the other operations and "Total" are skipped); ios_text may be
 * NULL. Returns how many devices. */
size_t ra_cgroup_io_parse_v1(const char *bytes_text, const char *ios_text, struct ra_cgroup_io *ret,
                             size_t max);

/* Events over one interval, for a cgroup or a device. */
struct ra_events {
        double majfaults, refault_pages, steal_pages;
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

/* What no cgroup explains: host - explained, never below zero. */
struct ra_events ra_events_unexplained(const struct ra_events *host, const struct ra_events *explained);
