/* SPDX-License-Identifier: MIT */
/* The --metrics-file's safe write (see metrics-file.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "metrics-file.h"

/* 0: absent or a regular file; -EEXIST (mode in *ret_mode) otherwise. */
static int target_check(int dir_fd, const char *base, mode_t *ret_mode) {
        struct stat st;

        if (fstatat(dir_fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISREG(st.st_mode))
                return 0;
        *ret_mode = st.st_mode;
        return -EEXIST;
}

/* Six letters no one can guess: a name planted ahead is skipped, not opened. */
static void random_suffix(char out[7]) {
        static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        uint8_t bytes[6];

        if (getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != (ssize_t) sizeof(bytes)) {
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                uint64_t x = (uint64_t) ts.tv_nsec ^ ((uint64_t) getpid() << 20) ^ (uint64_t) ts.tv_sec;
                for (size_t i = 0; i < sizeof(bytes); i++, x >>= 5)
                        bytes[i] = (uint8_t) x;
        }
        for (size_t i = 0; i < sizeof(bytes); i++)
                out[i] = letters[bytes[i] % (sizeof(letters) - 1)];
        out[6] = 0;
}

int metrics_file_open(const char *path, struct metrics_file *ret) {
        struct metrics_file m = { .dir_fd = -1, .fd = -1 };
        const char *slash = strrchr(path, '/');
        char dir[4096];
        int r;

        m.base = slash ? slash + 1 : path;
        if (!*m.base)
                return -EISDIR;
        /* ".NAME.XXXXXX": hidden, and not *.prom, so the textfile collector skips it. */
        if (strlen(m.base) + 9 > sizeof(m.tmp))
                return -ENAMETOOLONG;
        if (!slash)
                strcpy(dir, ".");
        else if (slash == path)
                strcpy(dir, "/");
        else if ((size_t) (slash - path) >= sizeof(dir))
                return -ENAMETOOLONG;
        else {
                memcpy(dir, path, (size_t) (slash - path));
                dir[slash - path] = 0;
        }

        m.dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (m.dir_fd < 0)
                return -errno;
        r = target_check(m.dir_fd, m.base, &m.target_mode);
        if (r < 0)
                goto fail;
        for (unsigned tries = 0; m.fd < 0; tries++) {
                char suffix[7];
                random_suffix(suffix);
                snprintf(m.tmp, sizeof(m.tmp), ".%s.%s", m.base, suffix);
                m.fd = openat(m.dir_fd, m.tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (m.fd < 0 && (errno != EEXIST || tries >= 16)) {
                        r = -errno;
                        m.tmp[0] = 0;
                        goto fail;
                }
        }
        /* Created just now by O_EXCL, so a regular file; said once more for the reader. */
        struct stat st;
        if (fstat(m.fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                r = -EBADFD;
                goto fail;
        }
        /* node_exporter reads it as another user; mkostemp's 0600 would hide it. */
        if (fchmod(m.fd, 0644) < 0) {
                r = -errno;
                goto fail;
        }
        *ret = m;
        return 0;
fail:
        metrics_file_abort(&m);
        ret->target_mode = m.target_mode;
        return r;
}

int metrics_file_append_success(struct metrics_file *m, uint64_t realtime_sec) {
        char buf[512];
        int n = snprintf(buf, sizeof(buf),
                         "# HELP " METRICS_LAST_SUCCESS_GAUGE
                         " When readahead-agent last wrote this file whole (readahead-ctl status exited 0).\n"
                         "# TYPE " METRICS_LAST_SUCCESS_GAUGE " gauge\n" METRICS_LAST_SUCCESS_GAUGE
                         " %" PRIu64 "\n",
                         realtime_sec);

        if (lseek(m->fd, 0, SEEK_END) < 0)
                return -errno;
        for (int off = 0; off < n;) {
                ssize_t k = write(m->fd, buf + off, (size_t) (n - off));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EIO;
                off += (int) k;
        }
        return 0;
}

int metrics_file_commit(struct metrics_file *m) {
        int r = target_check(m->dir_fd, m->base, &m->target_mode);

        if (r == 0 && close(m->fd) < 0)
                r = -errno;
        m->fd = -1;
        if (r == 0 && renameat(m->dir_fd, m->tmp, m->dir_fd, m->base) < 0)
                r = -errno;
        if (r == 0)
                m->tmp[0] = 0;
        metrics_file_abort(m);
        return r;
}

void metrics_file_abort(struct metrics_file *m) {
        if (m->fd >= 0)
                close(m->fd);
        m->fd = -1;
        if (m->dir_fd >= 0) {
                if (m->tmp[0])
                        (void) unlinkat(m->dir_fd, m->tmp, 0);
                close(m->dir_fd);
        }
        m->dir_fd = -1;
        m->tmp[0] = 0;
}

const char *metrics_file_mode_name(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFDIR:
                return "a directory";
        case S_IFLNK:
                return "a symbolic link";
        case S_IFIFO:
                return "a FIFO";
        case S_IFSOCK:
                return "a socket";
        case S_IFCHR:
        case S_IFBLK:
                return "a device node";
        default:
                return "something else";
        }
}
