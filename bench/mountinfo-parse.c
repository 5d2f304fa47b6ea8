/* SPDX-License-Identifier: MIT */
/*
 * What the bdi path pays to find one mount by major:minor: our
 * parser (src/core/mountinfo.c) against libmount, doing what the agent does
 * on a 0:N bdi event, ITERATIONS times:
 *   ours:     read the file whole, ra_mountinfo_find(), rsize from the super
 *             options (ra_mount_option_u64_checked)
 *   libmount: mnt_new_table(), mnt_table_parse_file(), mnt_table_find_devno(),
 *             the other mount points of the superblock counted (our contract:
 *             n_mount_points), rsize by mnt_optstr_get_option() on the super
 *             options, mnt_unref_table()
 * Built twice by bench/mountinfo-parse.sh: without RA_BENCH_LIBMOUNT the
 * binary does not link libmount, so its whole-process instructions and peak
 * RSS are those of our parser alone.
 *
 *   mountinfo-parse ours|libmount FILE MAJ:MIN ITERATIONS
 * prints: mode, iterations, wall and CPU µs per lookup, and what it found (both modes must
 * agree: the script compares them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fileio.h"
#include "mountinfo.h"

#ifdef RA_BENCH_LIBMOUNT
#include <libmount.h>
#include <sys/sysmacros.h>
#endif

struct found {
        int r;
        unsigned n_mount_points;
        uint64_t rsize_bytes;
        char mount_point[64]; /* the start, escaped as in mountinfo */
};

/* The start of a mount point for the report: one line, bytes outside
 * printable ASCII and backslashes as \ooo. */
static void put_mount_point(char *out, size_t size, const char *mp) {
        size_t o = 0;

        for (; *mp && o + 5 < size; mp++) {
                unsigned char c = (unsigned char) *mp;
                if (c <= ' ' || c >= 0x7f || c == '\\' || c == '|')
                        o += (size_t) snprintf(out + o, size - o, "\\%03o", c);
                else
                        out[o++] = (char) c;
        }
        out[o] = 0;
}

static int lookup_ours(const char *path, unsigned major, unsigned minor, struct found *f) {
        struct ra_mount m;
        char *text = NULL;
        size_t len = 0;
        bool invalid;

        int r = ra_read_whole_file(path, RA_MOUNTINFO_MAX_BYTES, &text, &len);
        if (r < 0)
                return r;
        r = ra_mountinfo_find(text, len, major, minor, &m);
        free(text);
        f->r = r;
        if (r <= 0)
                return r;
        f->n_mount_points = m.n_mount_points;
        f->rsize_bytes = ra_mount_option_u64_checked(m.super_options, "rsize", &invalid);
        put_mount_point(f->mount_point, sizeof(f->mount_point), m.mount_point);
        ra_mount_done(&m);
        return 0;
}

#ifdef RA_BENCH_LIBMOUNT
static int lookup_libmount(const char *path, unsigned major, unsigned minor, struct found *f) {
        struct libmnt_table *tb = mnt_new_table();
        struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
        struct libmnt_fs *fs, *first;
        dev_t devno = makedev(major, minor);
        int r;

        if (!tb || !it) {
                r = -ENOMEM;
                goto out;
        }
        r = mnt_table_parse_file(tb, path);
        if (r < 0)
                goto out;
        first = mnt_table_find_devno(tb, devno, MNT_ITER_FORWARD);
        f->r = first != NULL;
        if (!first)
                goto out;
        /* Our contract counts every mount point of the superblock. */
        f->n_mount_points = 0;
        while (mnt_table_next_fs(tb, it, &fs) == 0)
                if (mnt_fs_get_devno(fs) == devno)
                        f->n_mount_points++;
        char *v = NULL;
        size_t vl = 0;
        const char *super = mnt_fs_get_fs_options(first);
        f->rsize_bytes = 0;
        if (super && mnt_optstr_get_option(super, "rsize", &v, &vl) == 0 && vl > 0)
                f->rsize_bytes = strtoull(v, NULL, 10);
        put_mount_point(f->mount_point, sizeof(f->mount_point), mnt_fs_get_target(first));
        r = 0;
out:
        mnt_free_iter(it);
        mnt_unref_table(tb);
        return r;
}
#endif

int main(int argc, char **argv) {
        unsigned major, minor;
        long n;
        struct found f = {};
        struct timespec t0, t1;
        int (*lookup)(const char *, unsigned, unsigned, struct found *) = lookup_ours;

        if (argc != 5 || sscanf(argv[3], "%u:%u", &major, &minor) != 2 || (n = atol(argv[4])) < 1) {
                fprintf(stderr, "usage: %s ours|libmount FILE MAJ:MIN ITERATIONS\n", argv[0]);
                return 2;
        }
        if (strcmp(argv[1], "libmount") == 0) {
#ifdef RA_BENCH_LIBMOUNT
                lookup = lookup_libmount;
#else
                fprintf(stderr, "%s: built without libmount\n", argv[0]);
                return 2;
#endif
        } else if (strcmp(argv[1], "ours") != 0) {
                fprintf(stderr, "%s: unknown mode %s\n", argv[0], argv[1]);
                return 2;
        }

        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < n; i++) {
                int r = lookup(argv[2], major, minor, &f);
                if (r < 0) {
                        fprintf(stderr, "%s: %s: %s\n", argv[0], argv[2], strerror(-r));
                        return 1;
                }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double us = ((double) (t1.tv_sec - t0.tv_sec) * 1e9 + (double) (t1.tv_nsec - t0.tv_nsec)) /
                    1e3 / (double) n;
        /* CPU time (user + system): less disturbed than wall time by other
         * work on a shared machine. Loader and startup included, which the
         * script makes small with enough iterations. */
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu_us = ((double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                         (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)) /
                        (double) n;
        printf("%s %ld %.1f %.1f found=%d mount_points=%u rsize=%" PRIu64 " mount_point=%s\n", argv[1], n,
               us, cpu_us, f.r, f.n_mount_points, f.rsize_bytes, f.r > 0 ? f.mount_point : "-");
        return 0;
}
