/* SPDX-License-Identifier: MIT */
#pragma once

/* Files and temporary roots for the unit tests. */

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

#include "test.h"

/* Reads a whole file into a NUL-terminated malloc'd buffer; aborts on error. */
static inline char *test_read_file(const char *path, size_t *ret_len) {
        FILE *f = fopen(path, "re");
        char *buf;
        long len;

        if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 ||
            fseek(f, 0, SEEK_SET) < 0) {
                fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
                abort();
        }
        buf = malloc((size_t)len + 1);
        if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
                fprintf(stderr, "cannot read %s\n", path);
                abort();
        }
        buf[len] = '\0';
        fclose(f);
        if (ret_len)
                *ret_len = (size_t)len;
        return buf;
}

/* A vendor profile from the source tree (RA_SOURCE_DIR/profiles/NAME.conf). */
static inline char *test_read_source(const char *relpath, size_t *ret_len) {
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/%s", RA_SOURCE_DIR, relpath);
        return test_read_file(path, ret_len);
}

static inline void test_mkdir_p(const char *path) {
        char tmp[PATH_MAX];

        snprintf(tmp, sizeof(tmp), "%s", path);
        for (char *p = tmp + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(tmp, 0755) < 0 && errno != EEXIST) {
                        fprintf(stderr, "mkdir %s: %s\n", tmp, strerror(errno));
                        abort();
                }
                *p = '/';
        }
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST) {
                fprintf(stderr, "mkdir %s: %s\n", tmp, strerror(errno));
                abort();
        }
}

static inline void test_mkdir_parent(const char *path) {
        char dir[PATH_MAX];
        char *slash;

        snprintf(dir, sizeof(dir), "%s", path);
        slash = strrchr(dir, '/');
        if (slash && slash != dir) {
                *slash = '\0';
                test_mkdir_p(dir);
        }
}

/* Writes len bytes (which may hold NULs) to path, creating directories. */
static inline void test_write_bytes(const char *path, const void *data, size_t len) {
        FILE *f;

        test_mkdir_parent(path);
        f = fopen(path, "we");
        if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
                fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
                abort();
        }
}

static inline int test_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path) < 0 ? -1 : 0;
}

static inline void test_rm_rf(const char *path) {
        nftw(path, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
