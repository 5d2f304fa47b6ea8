/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "text.h"

/* Reads a short file into buf, without the trailing newline; -EFBIG when it
 * does not fit, rather than a value cut short. */
static int read_small_file(const char *path, char *buf, size_t size) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = read(fd, buf, size);
        int saved = errno;
        close(fd);
        if (n < 0)
                return -saved;
        if ((size_t) n >= size)
                return -EFBIG;
        while (n > 0 && isspace((unsigned char) buf[n - 1]))
                n--;
        buf[n] = 0;
        return 0;
}

int ra_read_string_file(const char *path, char *buf, size_t size) {
        return read_small_file(path, buf, size);
}

int ra_parse_u64(const char *s, uint64_t *ret) {
        char *end;

        if (!isdigit((unsigned char) s[0]))
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0 || *end != 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int ra_read_u64_file(const char *path, uint64_t *ret) {
        char buf[32];
        int r = read_small_file(path, buf, sizeof(buf));

        return r < 0 ? r : ra_parse_u64(buf, ret);
}

int ra_read_whole_file(const char *path, size_t max_bytes, char **ret, size_t *ret_len) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        int r = ra_read_whole_fd(fd, max_bytes, ret, ret_len);
        close(fd);
        return r;
}

int ra_read_whole_fd(int fd, size_t max_bytes, char **ret, size_t *ret_len) {
        size_t size = 0, len = 0;
        char *buf = NULL;
        int r = 0;

        for (;;) {
                if (len + 1 >= size) {
                        /* One byte more than the limit tells "too large" from "just fits". */
                        size_t want = size ? size * 2 : 16384;
                        if (want > max_bytes + 2)
                                want = max_bytes + 2;
                        if (want <= size) {
                                r = -EFBIG;
                                break;
                        }
                        char *nb = realloc(buf, want);
                        if (!nb) {
                                r = -ENOMEM;
                                break;
                        }
                        buf = nb;
                        size = want;
                }
                ssize_t n = read(fd, buf + len, size - len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > max_bytes) {
                        r = -EFBIG;
                        break;
                }
        }
        if (r < 0) {
                free(buf);
                return r;
        }
        buf[len] = 0;
        *ret = buf;
        *ret_len = len;
        return 0;
}

int ra_read_link_basename(const char *path, char *buf, size_t size) {
        char target[PATH_MAX];
        ssize_t n = readlink(path, target, sizeof(target) - 1);

        if (n < 0)
                return -errno;
        target[n] = 0;
        const char *base = strrchr(target, '/');
        if (!base)
                return -EINVAL;
        ra_str_join(buf, size, base + 1, NULL);
        return 0;
}
