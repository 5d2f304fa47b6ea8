/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bounded.h"

static long elapsed_ms(const struct timespec *since) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

int run_bounded(void (*fn)(const void *arg), const void *arg, unsigned timeout_ms) {
        struct timespec start;
        int status;

        clock_gettime(CLOCK_MONOTONIC, &start);
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                fn(arg);
                _exit(0);
        }

        /* A pidfd becomes readable when the child exits; without one (old
         * kernel, seccomp), look every 10 ms. */
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        bool done = false;
        for (;;) {
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid || (w < 0 && errno != EINTR)) {
                        done = true;
                        break;
                }
                long left = (long) timeout_ms - elapsed_ms(&start);
                if (left <= 0)
                        break;
                if (pidfd >= 0) {
                        struct pollfd p = { .fd = pidfd, .events = POLLIN };
                        (void) poll(&p, 1, (int) left);
                } else
                        (void) poll(NULL, 0, left < 10 ? (int) left : 10);
        }
        if (pidfd >= 0)
                close(pidfd);
        if (done)
                return 0;
        (void) kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return -ETIMEDOUT;
}
