/* SPDX-License-Identifier: MIT */
/*
 * The agent's children: the detached mount waiter where systemd is not PID 1,
 * and readahead-ctl for --watch's gauges and --reset. Each starts as a
 * program expects to: no signal blocked (--watch and --reset block SIGTERM,
 * SIGINT and SIGCHLD for their signalfd, and a blocked mask survives exec,
 * so a child would not die of SIGTERM) and none ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

/* In a forked child, before exec. */
static void signals_default(void) {
        sigset_t none;
        struct sigaction dfl = { .sa_handler = SIG_DFL };

        for (int sig = 1; sig < NSIG; sig++)
                (void) sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP and libc's own refuse: fine */
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
}

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
                signals_default();
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

int ctl_spawn(const struct agent_options *o, const char *verb, const char *format, int stdout_fd,
              pid_t *ret_pid) {
        const char *ctl = o->ctl_path;
        posix_spawn_file_actions_t actions;
        posix_spawnattr_t attr;
        sigset_t none, all;
        const char *argv[8];
        size_t n = 0;
        int r;

        argv[n++] = ctl;
        if (format)
                argv[n++] = format;
        argv[n++] = verb;
        if (o->root) {
                argv[n++] = "--root";
                argv[n++] = o->root;
        }
        argv[n] = NULL;

        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        posix_spawn_file_actions_init(&actions);
        if (stdout_fd >= 0)
                posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
        extern char **environ;
        r = posix_spawn(ret_pid, ctl, &actions, &attr, (char **) argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        return -r;
}

void child_start(struct agent_child *c, pid_t pid, uint64_t now_ms, unsigned timeout_ms) {
        *c = (struct agent_child){ .pid = pid, .term_at_ms = now_ms + timeout_ms };
}

int child_reap(struct agent_child *c, int *ret_status) {
        int status;
        pid_t r;

        if (c->pid <= 0)
                return 0;
        while ((r = waitpid(c->pid, &status, WNOHANG)) < 0 && errno == EINTR)
                ;
        if (r == 0)
                return 0;
        if (r < 0) /* ECHILD: not ours any more; nothing to wait for */
                status = -1;
        c->pid = 0;
        *ret_status = status;
        return 1;
}

int child_timeout_ms(const struct agent_child *c, uint64_t now_ms) {
        if (c->pid <= 0 || c->killed)
                return -1; /* none, or SIGKILL sent: its SIGCHLD will come */
        uint64_t at_ms = c->terminated ? c->kill_at_ms : c->term_at_ms;
        return at_ms <= now_ms ? 0 : (int) (at_ms - now_ms); /* at most CTL_TIMEOUT_MAX_SEC */
}

bool child_enforce(struct agent_child *c, uint64_t now_ms) {
        if (c->pid <= 0 || c->killed)
                return false;
        if (!c->terminated && now_ms >= c->term_at_ms) {
                (void) kill(c->pid, SIGTERM);
                c->terminated = true;
                c->kill_at_ms = now_ms + CHILD_KILL_GRACE_MS; /* a full grace, however late this ran */
                return true;
        }
        if (c->terminated && now_ms >= c->kill_at_ms) {
                (void) kill(c->pid, SIGKILL);
                c->killed = true;
        }
        return false;
}

void child_stop(struct agent_child *c) {
        int status;

        if (c->pid <= 0)
                return;
        (void) kill(c->pid, SIGKILL);
        /* A child stuck in the kernel may not die at once: init reaps it after we exit. */
        for (int i = 0; i < 10 && !child_reap(c, &status); i++)
                usleep(10000);
        c->pid = 0;
}
