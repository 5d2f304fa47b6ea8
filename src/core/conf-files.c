/* SPDX-License-Identifier: MIT */
/*
 * Which files make up a configuration file: the search path, masks, drop-ins
 * (see conf-files.h). What a file says is conf-parse.c's business.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-files.h"
#include "config-internal.h"
#include "text.h"

const char *const ra_config_dirs[] = {
        "/etc/readahead-agent",
        "/run/readahead-agent",
        RA_VENDOR_DIR,
        NULL,
};

/* A path that does not fit is not looked at, rather than looked at cut short. */
static bool join(char *buf, size_t size, const char *root, const char *dir, const char *rel,
                 const char *suffix) {
        return ra_str_join(buf, size, root, dir, "/", rel, suffix, NULL);
}

/* target: what path resolves to, NULL when it does not. */
static struct ra_config_file *note_file(struct ra_config *c, const char *path, const struct stat *target,
                                       enum ra_file_state state, bool dropin) {
        struct ra_config_file *f = ra_config_append((void **) &c->files, &c->n_files, SIZE_MAX, sizeof(*f));

        if (!f)
                return NULL;
        ra_str_join(f->path, sizeof(f->path), path, NULL);
        f->state = state;
        f->dropin = dropin;
        if (target) {
                f->dev = target->st_dev;
                f->ino = target->st_ino;
                f->size = (uint64_t) target->st_size;
                f->mtime_ns = (uint64_t) target->st_mtim.tv_sec * 1000000000u +
                              (uint64_t) target->st_mtim.tv_nsec;
        }
        return f;
}

/* Whether a file that stats as st is /dev/null itself, compared by device
 * number: the link's text may name it any way ("../../dev/null"). */
static bool is_dev_null(const struct stat *st) {
        struct stat null_st;
        return S_ISCHR(st->st_mode) && stat("/dev/null", &null_st) == 0 && S_ISCHR(null_st.st_mode) &&
               st->st_rdev == null_st.st_rdev;
}

/* A symlink to /dev/null or an empty file masks the files below it. st:
 * the path itself (lstat), target: what it resolves to, NULL when nothing. */
static bool is_mask(const char *path, const struct stat *st, const struct stat *target) {
        if (S_ISLNK(st->st_mode)) {
                char text[16];
                /* The text alone still masks where /dev/null is missing (a bare chroot). */
                ssize_t n = readlink(path, text, sizeof(text) - 1);
                if (n > 0) {
                        text[n] = 0;
                        if (strcmp(text, "/dev/null") == 0)
                                return true;
                }
                if (target && is_dev_null(target))
                        return true;
        }
        return target && S_ISREG(target->st_mode) && target->st_size == 0;
}

#define OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* Reads fd, which fstat() gave st, and closes it. */
static int read_fd(struct ra_config *c, const char *path, int fd, const struct stat *st, char **ret,
                   size_t *ret_len) {
        char *buf;
        ssize_t n;

        if (!S_ISREG(st->st_mode)) {
                ra_config_diag(c, RA_DIAG_ERROR, path, 0, "not a regular file");
                close(fd);
                return -EINVAL;
        }
        if (st->st_size > RA_FILE_SIZE_MAX) {
                /* Name the line the limit falls in: where to start cutting. */
                char *head = malloc(RA_FILE_SIZE_MAX);
                unsigned line = 1;
                ssize_t got = head ? read(fd, head, RA_FILE_SIZE_MAX) : -1;
                for (ssize_t i = 0; i < got; i++)
                        line += head[i] == '\n';
                free(head);
                ra_config_diag(c, RA_DIAG_ERROR, path, line,
                               "file larger than %d bytes (the limit is in this line)", RA_FILE_SIZE_MAX);
                close(fd);
                return -EFBIG;
        }
        buf = malloc((size_t) st->st_size + 1);
        if (!buf) {
                close(fd);
                return -ENOMEM;
        }
        n = read(fd, buf, (size_t) st->st_size + 1);
        close(fd);
        if (n < 0 || n > st->st_size) {
                ra_config_diag(c, RA_DIAG_ERROR, path, 0, "cannot read: %s",
                               n < 0 ? strerror(errno) : "file grew");
                free(buf);
                return -EIO;
        }
        *ret = buf;
        *ret_len = (size_t) n;
        return 0;
}

static int read_file(struct ra_config *c, const char *path, char **ret, size_t *ret_len) {
        int fd = open(path, OPEN_FLAGS);
        struct stat st;

        if (fd < 0) {
                ra_config_diag(c, RA_DIAG_ERROR, path, 0, "cannot open: %s", strerror(errno));
                return -errno;
        }
        if (fstat(fd, &st) < 0) {
                ra_config_diag(c, RA_DIAG_ERROR, path, 0, "not a regular file");
                close(fd);
                return -EINVAL;
        }
        return read_fd(c, path, fd, &st, ret, ret_len);
}

/* Parses one file; notes it as used, or broken when it cannot be read or parsed. */
static int read_and_parse(struct ra_config *c, const char *path, int fd, const struct stat *st, bool dropin,
                          ra_conf_parse_fn parse, void *userdata) {
        char *buf = NULL;
        size_t len = 0;
        int r = fd >= 0 ? read_fd(c, path, fd, st, &buf, &len) : read_file(c, path, &buf, &len);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                r = parse(c, userdata, path, buf, len);
                free(buf);
                if (r == -ENOMEM)
                        return r;
        }
        struct ra_config_file *f = note_file(c, path, st, r < 0 ? RA_FILE_BROKEN : RA_FILE_USED, dropin);
        if (f && r > 0)
                f->dropped_rules = (unsigned) r;
        return r < 0 ? RA_CONF_NONE : RA_CONF_USED; /* broken: the next one down stands in */
}

int ra_conf_files_read(struct ra_config *c, const char *rel, bool dropin, ra_conf_parse_fn parse,
                       void *userdata) {
        int result = RA_CONF_NONE;

        for (const char *const *dir = ra_config_dirs; *dir; dir++) {
                char path[RA_PATH_MAX];
                struct stat st, tst;

                if (!join(path, sizeof(path), c->root, *dir, rel, "")) {
                        /* Only a file that is there is worth an error: a
                         * drop-in name that fits below /etc need not fit
                         * below the longer vendor directory. */
                        char long_path[PATH_MAX];
                        if (join(long_path, sizeof(long_path), c->root, *dir, rel, "") &&
                            lstat(long_path, &st) == 0)
                                ra_config_diag(c, RA_DIAG_ERROR, *dir, 0,
                                               "path of %.80s... longer than %d bytes, not read", rel,
                                               RA_PATH_MAX - 1);
                        continue;
                }
                /* Every udev event loads this: a file that is no symlink
                 * is opened at once and is its own target (open, fstat,
                 * read, close). A symlink, which may be a mask, or a file
                 * that cannot be opened takes lstat() and stat(). */
                int fd = -1;
                if (result == RA_CONF_NONE) {
                        fd = open(path, OPEN_FLAGS | O_NOFOLLOW);
                        if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
                                continue;
                }
                const struct stat *target = NULL;
                if (fd >= 0) {
                        if (fstat(fd, &st) < 0) {
                                close(fd);
                                fd = -1;
                        } else
                                target = &st;
                }
                if (fd < 0) {
                        if (lstat(path, &st) < 0)
                                continue;
                        /* Stat once: the mask test and the fingerprint both want it. */
                        target = !S_ISLNK(st.st_mode) ? &st : stat(path, &tst) == 0 ? &tst : NULL;
                }
                if (result != RA_CONF_NONE) {
                        note_file(c, path, target, RA_FILE_MASKED, dropin);
                        continue;
                }
                if (is_mask(path, &st, target)) {
                        if (fd >= 0)
                                close(fd);
                        note_file(c, path, target, RA_FILE_MASK, dropin);
                        result = RA_CONF_MASKED;
                        continue;
                }
                int r = read_and_parse(c, path, fd, target, dropin, parse, userdata);
                if (r < 0)
                        return r;
                result = r;
        }
        return result;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* n names, any of them NULL (a strdup() that failed). */
static void free_names(char **names, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

/* Adds the *.conf basenames in dir that names does not hold yet. */
static int list_dir(const char *dir, char ***names, size_t *n) {
        DIR *d = opendir(dir);
        int r = 0;

        if (!d)
                return 0;
        for (struct dirent *de; r == 0 && (de = readdir(d));) {
                size_t l = strlen(de->d_name);
                bool seen = false;

                if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".conf") != 0)
                        continue;
                for (size_t i = 0; i < *n && !seen; i++)
                        seen = strcmp((*names)[i], de->d_name) == 0;
                if (seen)
                        continue;
                /* A slot that strdup() cannot fill stays NULL: free_names() takes it. */
                char **slot = ra_config_append((void **) names, n, SIZE_MAX, sizeof(char *));
                if (!slot || !(*slot = strdup(de->d_name)))
                        r = -ENOMEM;
        }
        closedir(d);
        return r;
}

/* The drop-ins' basenames from every directory, sorted. */
static int list_dropins(struct ra_config *c, const char *rel, char ***ret, size_t *ret_n) {
        char **names = NULL;
        size_t n = 0;

        for (const char *const *dir = ra_config_dirs; *dir; dir++) {
                char path[RA_PATH_MAX];
                if (!join(path, sizeof(path), c->root, *dir, rel, ".d"))
                        continue; /* ra_conf_files_read() already said the root is too long */
                if (list_dir(path, &names, &n) < 0) {
                        free_names(names, n);
                        return -ENOMEM;
                }
        }
        if (n > 0)
                qsort(names, n, sizeof(char *), cmp_str);
        *ret = names;
        *ret_n = n;
        return 0;
}

int ra_conf_files_read_dropins(struct ra_config *c, const char *rel, ra_conf_parse_fn parse, void *userdata) {
        char **names;
        size_t n;
        int r = list_dropins(c, rel, &names, &n);

        if (r < 0)
                return r;
        if (n > RA_DROPINS_MAX) {
                char dir[RA_PATH_MAX];
                ra_str_join(dir, sizeof(dir), rel, ".d", NULL);
                ra_config_diag(c, RA_DIAG_ERROR, dir, 0,
                               "%zu drop-ins, more than %d: from %.60s on, in name order, none is read", n,
                               RA_DROPINS_MAX, names[RA_DROPINS_MAX]);
        }
        for (size_t i = 0; i < n && i < RA_DROPINS_MAX && r >= 0; i++) {
                char drel[RA_PATH_MAX];
                if (!ra_str_join(drel, sizeof(drel), rel, ".d/", names[i], NULL)) {
                        ra_config_diag(c, RA_DIAG_ERROR, rel, 0, "drop-in name %.60s... too long, not read",
                                       names[i]);
                        continue;
                }
                r = ra_conf_files_read(c, drel, true, parse, userdata);
        }
        free_names(names, n);
        return r < 0 ? r : 0;
}
