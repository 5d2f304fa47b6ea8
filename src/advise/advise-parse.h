/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise-disk.h"
#include "facts.h"

/*
 * Every /proc and cgroup text advise samples, parsed. Pure: text in,
 * counters out; the sampler (advise-sample.c, advise-cgroup.c) reads the
 * files. Each parser takes the text and its length (no NUL needed, a NUL
 * inside is a byte like any other), splits lines at '\n' and fields at
 * spaces and tabs, and takes numbers of decimal digits only, at most
 * UINT64_MAX (or UINT_MAX for device numbers and process ids): a line with
 * another number is skipped, as the kernel never writes one. Lines may be
 * of any length. Each has a unit test (tests/unit/test-advise-parse.c) and
 * a fuzz target (tests/fuzz/fuzz-NAME.c, NAME as below).
 */

/* ---- /proc ---------------------------------------------------------------- */

/* One line of /proc/diskstats: "MAJ MIN NAME" and at least ten numbers:
 * reads, merged, sectors, ms; writes, merged, sectors, ms; in flight; busy
 * ms (io_ticks). Later numbers (discards, flushes) are not read. */
struct ra_diskstats_line {
        unsigned major, minor;
        char name[RA_NAME_MAX];
        struct ra_disk_counters c;
};

/* The well-formed line at or after *pos (0: the start) in *ret, *pos moved
 * past it; false at the end of the text. A line with fewer fields, a name of
 * RA_NAME_MAX bytes or more, or another number is skipped. (diskstats) */
bool ra_diskstats_next(const char *text, size_t len, size_t *pos, struct ra_diskstats_line *ret);

/* /proc/vmstat: pgmajfault, workingset_refault_file, pgsteal_file and
 * nr_foll_pin_acquired into the fields of *ret (0 for a key not there; the
 * last line of a key counts); the PSI fields are left as they are. Returns
 * how many of the four keys were there. (vmstat) */
unsigned ra_vmstat_parse(const char *text, size_t len, struct ra_host_counters *ret);

/* /proc/pressure/memory or io: "some avg10=... total=US": the total, in
 * microseconds, of the first "some" line that has one; -ENODATA when none
 * does. (psi) */
int ra_psi_some_total_us(const char *text, size_t len, uint64_t *ret);

/* /proc/PID/cgroup on cgroup v1: "ID:CONTROLLER,...:PATH" lines; the path
 * of the first line whose list names controller, "" for the root "/" (a
 * line whose path holds a NUL is skipped).
 * -ENOENT when none does, -ENAMETOOLONG when the path does not fit in size
 * bytes. (proc-cgroup) */
int ra_proc_cgroup_path(const char *text, size_t len, const char *controller, char *ret, size_t size);

/* /proc/PID/stat: what advise attributes per process. */
struct ra_proc_stat {
        uint64_t majfaults; /* majflt, field 12: the process's own, never its children's */
        bool kernel_thread; /* PF_KTHREAD in its flags (field 9): it never faults */
};

/* The fields above, read after the last ')' (the command name in
 * parentheses may hold anything); -EINVAL when a field is missing or not a
 * number. (proc-stat) */
int ra_proc_stat_parse(const char *text, size_t len, struct ra_proc_stat *ret);

/* ---- cgroup files ----------------------------------------------------------- */

/* A cgroup's own memory events, cumulative (memory.stat). v2's counters
 * include its children (advise reads leaves only); v1's unprefixed ones are
 * the cgroup's own. */
struct ra_cgroup_mem {
        uint64_t majfaults;          /* pgmajfault */
        uint64_t refault_file_pages; /* workingset_refault_file */
        uint64_t steal_pages;        /* pgsteal (v2 only: v1's pgpgout counts far more than reclaim) */
        bool have_majfaults, have_refaults, have_steal;
};

/* The keys above from memory.stat's text; -ENODATA when it has none.
 * (memory-stat) */
int ra_cgroup_mem_parse(const char *text, size_t len, struct ra_cgroup_mem *ret);

/* A cgroup's reads from one device, cumulative. */
struct ra_cgroup_io {
        unsigned major, minor;
        uint64_t read_bytes, read_ios;
};

#define RA_CGROUP_IO_MAX 64

/* io.stat (v2): "MAJ:MIN rbytes=N wbytes=N rios=N wios=N ...". At most
 * `max` devices, in the order of their first line (a later line of a device
 * updates it); the first device beyond them ends the parse. Returns how
 * many. (io-stat) */
size_t ra_cgroup_io_parse_v2(const char *text, size_t len, struct ra_cgroup_io *ret, size_t max);
/* blkio.throttle.io_service_bytes and io_serviced (v1): "MAJ:MIN Read N"
 * lines (the other operations and "Total" are skipped); ios_text may be
 * NULL. At most `max` devices, as above. Returns how many. (blkio) */
size_t ra_cgroup_io_parse_v1(const char *bytes_text, size_t bytes_len, const char *ios_text, size_t ios_len,
                             struct ra_cgroup_io *ret, size_t max);

/* cgroup.controllers (v2): whether the list names controller.
 * (cgroup-controllers) */
bool ra_cgroup_controllers_has(const char *text, size_t len, const char *controller);

/* cgroup.procs: the process ids of its first `max` lines that are not empty
 * (a line that is not an id above 0 counts, but gives none). Returns how
 * many ids. (cgroup-procs) */
size_t ra_cgroup_procs_parse(const char *text, size_t len, unsigned *ret, size_t max);
