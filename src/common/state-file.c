/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "mkdir-parents.h"
#include "state-file.h"

int ra_state_read(const char *path, size_t max_bytes, char **ret, size_t *ret_len) {
        struct stat st;
        int r, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (!S_ISREG(st.st_mode))
                r = -EBADFD;
        else if ((uint64_t) st.st_size > max_bytes)
                r = -EFBIG;
        else /* bounded again while read: it may grow */
                r = ra_read_whole_fd(fd, max_bytes, ret, ret_len);
        close(fd);
        return r;
}

int ra_state_lock(char *lock_path) {
        int r = ra_mkdir_parents(lock_path);
        if (r < 0)
                return r;
        int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

int ra_state_replace(const char *path, int (*print)(FILE *f, const void *data), const void *data) {
        char tmp[PATH_MAX];
        int n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
        if (n < 0 || (size_t) n >= sizeof(tmp))
                return -ENAMETOOLONG;
        int r = ra_mkdir_parents(tmp);
        if (r < 0)
                return r;
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        (void) fchmod(fd, 0644);
        FILE *f = fdopen(fd, "w");
        if (!f) {
                r = -errno;
                close(fd);
        } else {
                r = print(f, data);
                if (fflush(f) != 0 || ferror(f))
                        r = r < 0 ? r : (errno ? -errno : -EIO);
                if (fclose(f) != 0 && r == 0)
                        r = -errno;
        }
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}
