/* SPDX-License-Identifier: MIT */
/*
 * --watch --metrics-file: at start and after every check, readahead-ctl
 * status --format=prometheus writes to a fresh temporary beside the file
 * (metrics-file.c), the agent appends its own gauge, the time of this
 * write, and renames it over the file: a scrape never sees half a file, a
 * stale file says how stale it is, and nobody who can write the directory
 * can point the write elsewhere. The child runs while the agent goes on
 * serving events and signals; one that outlives the check period (at most
 * CTL_TIMEOUT_MAX_SEC) is stopped.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>

#include "agent.h"
#include "journal.h"

static unsigned timeout_ms(const struct agent_options *o) {
        return (o->check_sec < CTL_TIMEOUT_MAX_SEC ? o->check_sec : CTL_TIMEOUT_MAX_SEC) * 1000;
}

static void log_cannot_write(const char *path, int error, mode_t mode) {
        if (error == -EEXIST)
                agent_log(LOG_WARNING, NULL, 0, "cannot write metrics to %s: it is %s, not a regular file; left alone",
                          path, metrics_file_mode_name(mode));
        else
                agent_log(LOG_WARNING, NULL, 0, "cannot write metrics to %s: %s", path, strerror(-error));
}

void metrics_start(const struct agent_options *o, struct metrics_run *m, uint64_t now_ms) {
        pid_t pid;

        if (!o->metrics_file || m->child.pid > 0)
                return; /* the last one is still being stopped: this check goes without */
        int r = metrics_file_open(o->metrics_file, &m->file);
        if (r < 0) {
                log_cannot_write(o->metrics_file, r, m->file.target_mode);
                return;
        }
        r = ctl_spawn(o, "status", "--format=prometheus", m->file.fd, &pid);
        if (r < 0) {
                agent_log(LOG_WARNING, NULL, 0, "cannot run %s: %s; %s not updated", o->ctl_path, strerror(-r),
                          o->metrics_file);
                metrics_file_abort(&m->file);
                return;
        }
        child_start(&m->child, pid, now_ms, timeout_ms(o));
}

void metrics_continue(const struct agent_options *o, struct metrics_run *m, uint64_t now_ms) {
        int status;

        if (!child_reap(&m->child, &status)) {
                if (child_enforce(&m->child, now_ms))
                        agent_log(LOG_WARNING, NULL, 0,
                                  "readahead-ctl status still running after %u s: stopped, %s not updated",
                                  timeout_ms(o) / 1000, o->metrics_file);
                return;
        }
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                if (m->child.terminated)
                        ; /* logged when it was stopped */
                else if (status != -1 && WIFEXITED(status))
                        agent_log(LOG_WARNING, NULL, 0, "readahead-ctl status exited %d, %s not updated",
                                  WEXITSTATUS(status), o->metrics_file);
                else
                        agent_log(LOG_WARNING, NULL, 0, "readahead-ctl status died (%s), %s not updated",
                                  status == -1 ? "lost" : strsignal(WTERMSIG(status)), o->metrics_file);
                metrics_file_abort(&m->file);
                return;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int r = metrics_file_append_success(&m->file, (uint64_t) ts.tv_sec);
        if (r < 0)
                metrics_file_abort(&m->file);
        else
                r = metrics_file_commit(&m->file);
        if (r < 0)
                log_cannot_write(o->metrics_file, r, m->file.target_mode);
}

int metrics_timeout_ms(const struct metrics_run *m, uint64_t now_ms) {
        return child_timeout_ms(&m->child, now_ms);
}

void metrics_stop(struct metrics_run *m) {
        child_stop(&m->child);
        metrics_file_abort(&m->file);
}
