/* SPDX-License-Identifier: MIT */
/*
 * ra-workload: one bench/benefit workload on a block device, read-only, with
 * the same timed reads as readahead-ctl calibrate (src/common/measure.c).
 *
 *   ra-workload seq DEV STREAMS SECONDS [MAX_MIB_PER_STREAM]
 *       STREAMS sequential readers of 4 KiB, each on its own slice of DEV
 *   ra-workload rand DEV BLOCK_KB SECONDS [direct]
 *       random reads of BLOCK_KB, buffered or O_DIRECT
 *   ra-workload faults DEV SECONDS
 *       random page faults through a read-only mapping of DEV
 *
 * Prints one line: ops=N bytes=N seconds=S mib_per_s=X ops_per_s=X
 * steady_mib_per_s=X. bytes are those consumed (the caller counts what the
 * device read in /sys/block/DEV/stat); mib_per_s is over the whole run, as a
 * reader of SECONDS sees it; steady_mib_per_s leaves out each stream's first
 * two readahead windows (see measure.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "measure.h"

#define SEQ_STREAMS_MAX 64

static int usage(void) {
        fprintf(stderr, "usage: ra-workload seq DEV STREAMS SECONDS [MAX_MIB_PER_STREAM]\n"
                        "       ra-workload rand DEV BLOCK_KB SECONDS [direct]\n"
                        "       ra-workload faults DEV SECONDS\n");
        return 2;
}

/* Size in bytes and read_ahead_kb (BLKRAGET: in 512-byte sectors). */
static int device_info(const char *path, uint64_t *ret_bytes, uint64_t *ret_ra_bytes) {
        long ra_sectors = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = ioctl(fd, BLKGETSIZE64, ret_bytes) < 0 || ioctl(fd, BLKRAGET, &ra_sectors) < 0 ? -errno : 0;
        close(fd);
        *ret_ra_bytes = (uint64_t) ra_sectors * 512;
        return r;
}

static int number(const char *s, double *ret) {
        char *end;
        errno = 0;
        *ret = strtod(s, &end);
        return errno || end == s || *end || !(*ret > 0) ? -EINVAL : 0;
}

int main(int argc, char **argv) {
        struct ra_measurement m = {};
        uint64_t size_bytes = 0, ra_bytes = 0, seed = (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 20);
        double a = 0, seconds = 0, max_mib = 0;
        int r;

        if (argc < 4)
                return usage();
        const char *mode = argv[1], *dev = argv[2];
        r = device_info(dev, &size_bytes, &ra_bytes);
        if (r < 0) {
                fprintf(stderr, "ra-workload: %s: %s\n", dev, strerror(-r));
                return 1;
        }
        size_bytes &= ~(uint64_t) 0xfffff; /* whole MiB */

        if (strcmp(mode, "seq") == 0 && (argc == 5 || argc == 6)) {
                struct ra_region regions[SEQ_STREAMS_MAX];
                if (number(argv[3], &a) < 0 || a > SEQ_STREAMS_MAX || number(argv[4], &seconds) < 0 ||
                    (argc == 6 && number(argv[5], &max_mib) < 0))
                        return usage();
                unsigned n = (unsigned) a;
                /* Each stream its own slice, starting at a random MiB of it
                 * so that runs do not all read the same blocks. */
                uint64_t slice = size_bytes / n / (1 << 20) * (1 << 20);
                for (unsigned i = 0; i < n; i++) {
                        uint64_t skip = (ra_random_next(&seed) % (slice / 2 / (1 << 20))) << 20;
                        regions[i] = (struct ra_region){ i * slice + skip, slice - skip };
                }
                struct ra_sequential how = {
                        .read_bytes = RA_MEASURE_READ_BYTES,
                        .seconds = seconds,
                        .max_bytes_per_stream = (uint64_t) (max_mib * (1 << 20)),
                        .warmup_bytes = 2 * ra_bytes,
                };
                r = ra_measure_sequential(dev, regions, n, &how, NULL, &m);
        } else if (strcmp(mode, "rand") == 0 && (argc == 5 || argc == 6)) {
                struct ra_region all = { 0, size_bytes };
                bool direct = argc == 6 && strcmp(argv[5], "direct") == 0;
                if (number(argv[3], &a) < 0 || number(argv[4], &seconds) < 0 || (argc == 6 && !direct))
                        return usage();
                r = ra_measure_random_reads(dev, &all, (uint64_t) a * 1024, direct, seconds, 0, &seed, NULL, &m);
        } else if (strcmp(mode, "faults") == 0 && argc == 4) {
                struct ra_region all = { 0, size_bytes };
                if (number(argv[3], &seconds) < 0)
                        return usage();
                r = ra_measure_faults(dev, &all, seconds, 1, 0, &seed, NULL, &m);
        } else
                return usage();
        if (r < 0) {
                fprintf(stderr, "ra-workload %s: %s: %s\n", mode, dev, strerror(-r));
                return 1;
        }
        printf("ops=%" PRIu64 " bytes=%" PRIu64 " seconds=%.3f mib_per_s=%.3f ops_per_s=%.3f steady_mib_per_s=%.3f\n",
               m.ops, m.bytes, m.seconds, (double) m.bytes / (1 << 20) / m.seconds, (double) m.ops / m.seconds,
               m.steady_bytes_per_s / (1 << 20));
        return 0;
}
