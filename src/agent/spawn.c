/* SPDX-License-Identifier: MIT */
/* The detached spawner: the mount waiter where systemd is not PID 1. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

/* The path of this program, however long. */
static char *self_path(void) {
        for (size_t size = 256;; size *= 2) {
                char *buf = malloc(size);
                if (!buf)
                        return NULL;
                ssize_t n = readlink("/proc/self/exe", buf, size);
                if (n < 0) {
                        free(buf);
                        return NULL;
                }
                if ((size_t) n < size) {
                        buf[n] = 0;
                        return buf;
                }
                free(buf); /* may have been cut: try a larger buffer */
                if (size > 1 << 20)
                        return NULL;
        }
}

/*
 * Starts "readahead-agent --wait-bdi NAME" outside the udev worker: a double
 * fork into its own session, with stdio on /dev/null so that udev does not
 * wait for the pipe. Used where systemd is not PID 1, and for --dry-run
 * (which it passes on: the waiter must not write either).
 */
int spawn_waiter(const struct agent_options *o, const char *bdi) {
        char *self = self_path();
        if (!self)
                return -errno;

        pid_t pid = fork();
        if (pid < 0) {
                free(self);
                return -errno;
        }
        if (pid == 0) {
                if (setsid() < 0 || fork() != 0)
                        _exit(0);
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null >= 0) {
                        dup2(null, 0);
                        dup2(null, 1);
                        dup2(null, 2);
                }
                const char *argv[8];
                size_t n = 0;
                argv[n++] = self;
                argv[n++] = "--wait-bdi";
                argv[n++] = bdi;
                if (o->dry_run)
                        argv[n++] = "--dry-run";
                if (o->root) {
                        argv[n++] = "--root";
                        argv[n++] = o->root;
                }
                argv[n] = NULL;
                execv(self, (char **) argv);
                _exit(127);
        }
        free(self);
        int status;
        (void) waitpid(pid, &status, 0);
        return 0;
}
