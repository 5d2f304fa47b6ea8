/* SPDX-License-Identifier: MIT */
/*
 * The configuration's problems, logged by the agent once per change of the
 * configuration: each udev event runs the agent anew and loads the same
 * files, so only a stamp kept across runs tells a problem already logged
 * from a new one.
 */
#define _GNU_SOURCE /* asprintf */
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

        /* No stamp for a refused root: it would land in the host's /run. */
        if (o->dry_run || c->root_refused)
                return c->n_diags > 0;
        if (c->n_diags == 0) {
                /* Every event with a sound configuration comes here: its
                 * path on the stack, with no asprintf(). */
                char stamp[RA_PATH_MAX + 64];
                if (ra_str_join(stamp, sizeof(stamp), c->root, "/run/readahead-agent/.config-problems-logged",
                                NULL))
                        (void) unlink(stamp); /* fixed: the same problem later is news again */
                return false;
        }
        if (asprintf(&dir, "%s/run/readahead-agent", c->root) < 0)
                return c->n_diags > 0;
        if (asprintf(&path, "%s/.config-problems-logged", dir) < 0) {
                free(dir);
                return c->n_diags > 0;
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
                char file[RA_PATH_MAX + 16], line[32], where[RA_PATH_MAX + 16];
                snprintf(file, sizeof(file), "CONFIG_FILE=%s", d->file);
                snprintf(line, sizeof(line), "CONFIG_LINE=%u", d->line);
                /* A problem of the whole file has no line. */
                const char *fields[] = { file, line };
                agent_log(d->level == RA_DIAG_ERROR ? LOG_ERR : LOG_WARNING, fields, d->line > 0 ? 2 : 1,
                          "%s: %s", ra_diag_where(d, where, sizeof(where)), d->message);
        }
}
