/* SPDX-License-Identifier: MIT */
/* Carrying out a plan in the agent: the write, the journal, READAHEAD_*;
 * and the configuration problems, logged once. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "agent.h"
#include "journal.h"
#include "text.h"
#include "write-read-ahead.h"

/*
 * Whether the configuration problems are news: one bad /etc file must not be
 * logged once per disk (200 copies at boot, against journald's rate limit).
 * A stamp, ROOT/run/readahead-agent/.config-problems-logged, holds the
 * fingerprint of the configuration last logged (files with device, inode,
 * size and mtime, and the problems); any change to a file logs them again.
 * flock() makes concurrent events agree on one to log. Where the stamp cannot
 * be kept (read-only /run, --dry-run), every run logs.
 */
static bool config_problems_are_news(const struct agent_options *o, const struct ra_config *c) {
        char *dir = NULL, *path = NULL, want[32], have[32] = "";
        bool news = true;
        int fd = -1;

        if (o->dry_run)
                return c->n_diags > 0;
        if (asprintf(&dir, "%s/run/readahead-agent", c->root) < 0)
                return c->n_diags > 0;
        if (asprintf(&path, "%s/.config-problems-logged", dir) < 0) {
                free(dir);
                return c->n_diags > 0;
        }
        if (c->n_diags == 0) {
                (void) unlink(path); /* fixed: the same problem later is news again */
                news = false;
                goto out;
        }
        /* /run exists on a real system; below --root it may not. */
        *strrchr(dir, '/') = 0;
        (void) mkdir(dir, 0755);
        dir[strlen(dir)] = '/';
        (void) mkdir(dir, 0755);
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) < 0)
                goto out;
        snprintf(want, sizeof(want), "%016" PRIx64 "\n", ra_config_fingerprint(c));
        ssize_t n = pread(fd, have, sizeof(have) - 1, 0);
        have[n > 0 ? n : 0] = 0;
        if (strcmp(have, want) == 0)
                news = false;
        else if (ftruncate(fd, 0) < 0 || pwrite(fd, want, strlen(want), 0) < 0)
                news = true; /* cannot remember: better twice than never */
out:
        if (fd >= 0)
                close(fd); /* releases the lock */
        free(path);
        free(dir);
        return news;
}

void log_config_problems(const struct agent_options *o, const struct ra_config *c) {
        if (!config_problems_are_news(o, c))
                return;
        for (size_t i = 0; i < c->n_diags; i++) {
                const struct ra_diag *d = &c->diags[i];
                char file[RA_PATH_MAX + 16], where[RA_PATH_MAX + 16];
                snprintf(file, sizeof(file), "CONFIG_FILE=%s", d->file);
                const char *fields[] = { file };
                agent_log(d->level == RA_DIAG_ERROR ? LOG_ERR : LOG_WARNING, fields, 1, "%s: %s",
                          ra_diag_where(d, where, sizeof(where)), d->message);
        }
}

static void log_result(const struct ra_facts *f, const struct ra_plan *plan, const char *result,
                       uint64_t now_kb, int error) {
        const struct ra_decision *d = &plan->decision;
        char dev[RA_NAME_MAX + 24], target[48], prev[48], rulef[RA_PATH_MAX + 80], res[48], reason[240],
                failure[160];

        snprintf(dev, sizeof(dev), "READAHEAD_DEVICE=%s", f->name);
        snprintf(target, sizeof(target), "READAHEAD_TARGET_KB=%" PRIu64, d->target_kb);
        snprintf(prev, sizeof(prev), "READAHEAD_PREVIOUS_KB=%" PRIu64, f->current_kb);
        snprintf(rulef, sizeof(rulef), "READAHEAD_RULE=%s", plan->rule);
        snprintf(res, sizeof(res), "READAHEAD_RESULT=%s", result);
        snprintf(reason, sizeof(reason), "READAHEAD_REASON=%s", d->reason);
        const char *fields[] = { dev, target, prev, rulef, res, reason };
        if (error < 0) {
                ra_write_failure_text(failure, sizeof(failure), d->target_kb, now_kb, error);
                agent_log(LOG_ERR, fields, 6, "%s: %s", f->name, failure);
        } else
                agent_log(LOG_INFO, fields, 6, "%s: read_ahead_kb %" PRIu64 " -> %" PRIu64 " (%s; %s)", f->name,
                          f->current_kb, d->target_kb, plan->rule, d->reason);
}

bool plan_changes_value(const struct ra_plan *plan) {
        return plan->action == RA_ACTION_WRITE || plan->action == RA_ACTION_DEFERRED;
}

void carry_out_plan(const struct agent_options *o, const struct ra_facts *facts, const struct ra_plan *plan) {
        const struct ra_decision *d = &plan->decision;
        const char *result;
        uint64_t now_kb = 0;

        printf("READAHEAD_CLASS=%s\n", ra_class_to_string(facts->class));
        if (facts->current_known)
                printf("READAHEAD_PREVIOUS_KB=%" PRIu64 "\n", facts->current_kb);
        if (plan->rule[0]) {
                /* udev imports each line as a property: a newline in a file
                 * name must not start another one. */
                printf("READAHEAD_RULE=");
                ra_fputs_people(stdout, plan->rule);
                printf("\n");
        }

        switch (plan->action) {
        case RA_ACTION_FAIL:
                result = "failed";
                /* d->reason names the file and line of the Size= that failed. */
                agent_log(LOG_ERR, NULL, 0, "%s: rule %s failed: %s; read_ahead_kb left at %" PRIu64, facts->name,
                          plan->rule, d->reason, facts->current_kb);
                break;
        case RA_ACTION_KEEP:
                result = "left-alone";
                break;
        case RA_ACTION_NOT_SETTABLE: /* the agent handles no such bdi: nothing to print */
                result = ra_action_to_string(plan->action);
                break;
        default:
                printf("READAHEAD_TARGET_KB=%" PRIu64 "\n", d->target_kb);
                if (o->dry_run)
                        result = "dry-run";
                else if (plan->action == RA_ACTION_UNCHANGED)
                        result = "unchanged";
                else if (plan->action == RA_ACTION_DEFERRED) {
                        result = "deferred";
                        agent_log(LOG_INFO, NULL, 0,
                                  "%s: not writing read_ahead_kb %" PRIu64 " now: %s; the next change event will",
                                  facts->name, d->target_kb, d->deferred);
                } else {
                        int r = ra_write_read_ahead(facts->attr_path, d->target_kb, &now_kb);
                        result = r < 0 ? "failed" : "written";
                        log_result(facts, plan, result, now_kb, r);
                }
        }
        printf("READAHEAD_RESULT=%s\n", result);
}
