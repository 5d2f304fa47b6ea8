/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Timed reads of a block device, read-only, for readahead-ctl calibrate and
 * bench/benefit. Every function opens the device O_RDONLY (never for
 * writing: a write-close makes udev synthesize a change event), drops the
 * page cache of what it will read first and of what it read afterwards
 * (POSIX_FADV_DONTNEED), and stops early when *stop becomes nonzero.
 *
 * The kernel copies the device's read_ahead_kb into each open file's
 * readahead state at open(2), so a caller that changes read_ahead_kb
 * measures the new value with the next call: every call opens afresh.
 */

/* The reader's request: small, as dd bs=4k, so that readahead, not the
 * request, decides how much each device read asks for (a read larger than
 * read_ahead_kb is read whole). Never above the smallest read_ahead_kb
 * measured. */
#define RA_MEASURE_READ_BYTES 4096
#define RA_MEASURE_READ_BYTES_MAX (1 << 20)

/* Faults per mapping in ra_measure_faults(): the kernel stops reading around
 * a fault after 100 misses on one open file (MMAP_LOTSAMISS), so a fresh file
 * every 64 faults measures what read-around costs, as a program starting up
 * pays it. */
#define RA_MEASURE_FAULTS_PER_MAPPING 64

struct ra_region {
        uint64_t offset_bytes;
        uint64_t length_bytes;
};

struct ra_measurement {
        uint64_t bytes;  /* consumed by the reader(s), not read from the device */
        uint64_t ops;    /* reads, or page faults */
        double seconds;  /* wall time from the first request to the last answer */
        double max_op_seconds; /* the slowest single read or fault */
        /* Sequential reads: the sum over the streams of each one's rate once
         * past its warm-up (its whole rate if it never got past it), in
         * bytes a second. See struct ra_sequential. */
        double steady_bytes_per_s;
};

struct ra_sequential {
        unsigned read_bytes; /* each read(2), a multiple of 512 */
        double seconds;
        uint64_t max_bytes_per_stream; /* 0: no limit */
        /* A stream's steady rate starts once it has consumed warmup_bytes
         * and warmup_seconds have passed: the window ramps up from a few
         * pages, the first one costs a whole window before any byte arrives,
         * and a device (or a throttle) may let a burst through at first.
         * Steady throughput is what a long read sees. */
        uint64_t warmup_bytes;
        double warmup_seconds;
};

/*
 * One thread and one open file per region (each file has its own readahead
 * state), each reading its region sequentially, how->read_bytes at a time,
 * until how->seconds have passed or it has consumed how->max_bytes_per_stream,
 * starting over at the region's start if it reaches the end. Returns 0,
 * -EINTR when stopped, or the first negative errno.
 */
int ra_measure_sequential(const char *path, const struct ra_region *regions, unsigned n_regions,
                          const struct ra_sequential *how, const atomic_int *stop,
                          struct ra_measurement *ret);

/*
 * Touches random pages of a read-only shared mapping of region, a fresh open
 * file and mapping every RA_MEASURE_FAULTS_PER_MAPPING faults, until
 * `seconds` have passed and at least min_faults were taken, or max_faults
 * (0: no limit). *seed drives the page choice and is advanced.
 */
int ra_measure_faults(const char *path, const struct ra_region *region, double seconds,
                      unsigned min_faults, unsigned max_faults, uint64_t *seed, const atomic_int *stop,
                      struct ra_measurement *ret);

/*
 * Random reads of block_bytes at block-aligned offsets of region, buffered or
 * with O_DIRECT, for `seconds` or max_ops (0: no limit).
 */
int ra_measure_random_reads(const char *path, const struct ra_region *region, uint64_t block_bytes,
                            bool direct, double seconds, uint64_t max_ops, uint64_t *seed,
                            const atomic_int *stop, struct ra_measurement *ret);

/* Drops the page cache of [offset, offset + length) of the device. */
int ra_drop_cache(const char *path, uint64_t offset_bytes, uint64_t length_bytes);

/* Monotonic seconds. */
double ra_now_seconds(void);

/* A small fast generator (splitmix64) for offsets: reproducible with a seed. */
uint64_t ra_random_next(uint64_t *state);
