/* SPDX-License-Identifier: MIT */
/*
 * The liveness file of --watch. The loop writes it at start and after every
 * check; --check-alive (the DaemonSet's liveness probe) reads it. A hang
 * anywhere in the loop (a readahead-ctl child that never exits, a write that
 * blocks) stops the writes, and the probe fails once the last one is older
 * than watch_alive()'s bound. The time is CLOCK_BOOTTIME, in ms: the same
 * clock in the container as on the host, and no wall-clock step moves it.
 */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "watch.h"

static uint64_t boottime_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_BOOTTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* "BOOTTIME_MS CHECK_SEC\n", to a fresh name (O_EXCL) renamed over path. */
int alive_write(const char *path, unsigned check_sec) {
        char *tmp = NULL;
        char line[64];

        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                int r = -errno;
                free(tmp);
                return r;
        }
        int n = snprintf(line, sizeof(line), "%" PRIu64 " %u\n", boottime_ms(), check_sec);
        int r = write(fd, line, (size_t) n) == n ? 0 : -EIO;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        free(tmp);
        return r;
}

/* --check-alive: 0 while the last write is recent enough, 1 otherwise. */
int alive_check(const char *path) {
        char buf[64] = "";
        uint64_t beat_ms;
        unsigned check_sec;

        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0) {
                fprintf(stderr, "readahead-agent: not alive: cannot open %s: %m\n", path);
                return 1;
        }
        struct stat st;
        ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf) - 1) : -1;
        close(fd);
        if (n <= 0 || sscanf(buf, "%" SCNu64 " %u", &beat_ms, &check_sec) != 2 || check_sec < 1 ||
            check_sec > WATCH_CHECK_SEC_MAX) {
                fprintf(stderr, "readahead-agent: not alive: %s is not a liveness file\n", path);
                return 1;
        }
        uint64_t now = boottime_ms();
        if (!watch_alive(now, beat_ms, check_sec)) {
                fprintf(stderr, "readahead-agent: not alive: the last check ended %" PRIu64 " s ago (a check every %u s)\n",
                        (now - beat_ms) / 1000, check_sec);
                return 1;
        }
        return 0;
}
