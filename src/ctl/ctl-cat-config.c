/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl cat-config: every configuration file looked at, in the order
 * the configuration was read (readahead.conf, its drop-ins, the active
 * profile, its drop-ins), each under a "# /path" header as
 * `systemd-analyze cat-config` prints them. Files that take no part are named
 * with the reason and their contents left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"
#include "output.h"

/* The path below its configuration directory ("profiles/default.conf"). */
static const char *relative_path(const struct ra_config *c, const char *path) {
        size_t root_len = strlen(c->root);

        if (strncmp(path, c->root, root_len) != 0)
                return path;
        for (const char *const *dir = ra_config_dirs; *dir; dir++) {
                size_t l = strlen(*dir);
                if (strncmp(path + root_len, *dir, l) == 0 && path[root_len + l] == '/')
                        return path + root_len + l + 1;
        }
        return path;
}

/* The file that stands above a masked one: the nearest earlier file of the
 * same relative path that was used or masks. */
static const char *masked_by(const struct ra_config *c, size_t i) {
        const char *rel = relative_path(c, c->files[i].path);
        while (i-- > 0) {
                const struct ra_config_file *f = &c->files[i];
                if ((f->state == RA_FILE_USED || f->state == RA_FILE_MASK) &&
                    strcmp(relative_path(c, f->path), rel) == 0)
                        return f->path;
        }
        return NULL;
}

/* What makes the file a mask (conf-files.c decided that it is one). */
static const char *mask_kind(const char *path) {
        struct stat st, target;

        if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
                return "empty file";
        if (stat(path, &target) == 0 && S_ISREG(target.st_mode))
                return "symlink to an empty file";
        return "symlink to /dev/null";
}

/* Copies the file to stdout; returns false when it cannot be read. */
static bool cat_file(const char *path) {
        char buf[8192];
        bool newline = true;
        ssize_t n;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

        if (fd < 0) {
                ctl_error("cat-config", "%s: %s", path, strerror(errno));
                return false;
        }
        fflush(stdout);
        while ((n = read(fd, buf, sizeof(buf))) > 0) {
                fwrite(buf, 1, (size_t) n, stdout);
                newline = buf[n - 1] == '\n';
        }
        if (n < 0)
                ctl_error("cat-config", "%s: %s", path, strerror(errno));
        close(fd);
        if (!newline)
                putchar('\n');
        return n == 0;
}

int verb_cat_config(struct ctl *ctl, int argc, char **argv) {
        const struct ra_config *c = ctl->config;
        bool ok = true;

        (void) argc;
        (void) argv;
        for (size_t i = 0; i < c->n_files; i++) {
                const struct ra_config_file *f = &c->files[i];
                const char *by;

                if (i > 0)
                        putchar('\n');
                switch (f->state) {
                case RA_FILE_USED:
                        fprintf_people(stdout, "# %s", f->path);
                        if (f->dropped_rules > 0)
                                printf(" (%u rule(s) dropped: they have errors, see 'readahead-ctl check')",
                                       f->dropped_rules);
                        putchar('\n');
                        ok = cat_file(f->path) && ok;
                        break;
                case RA_FILE_MASKED:
                        by = masked_by(c, i);
                        fprintf_people(stdout, "# %s (masked by %s)", f->path, by ? by : "a file above it");
                        break;
                case RA_FILE_MASK:
                        fprintf_people(stdout, "# %s (mask: %s, hides the files of this name below it)", f->path,
                                       mask_kind(f->path));
                        break;
                case RA_FILE_BROKEN:
                        fprintf_people(stdout, "# %s (ignored: it has errors, see 'readahead-ctl check')", f->path);
                        break;
                }
                if (f->state != RA_FILE_USED)
                        putchar('\n'); /* the header's own */
        }
        /* Say so when the active profile itself is missing or masked. */
        char text[RA_PROFILE_NAME_MAX + 96];
        if (ra_config_profile_problem(c, text, sizeof(text)))
                ctl_error("cat-config", "%s", text);
        fflush(stdout);
        return ok ? EXIT_OK : EXIT_FAILURE;
}
