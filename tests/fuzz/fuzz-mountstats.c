/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the mountstats parser as /proc/self/mountstats text (NFS
 * mount points are chosen by users), checking the contract of
 * advise-mountstats.h:
 *  - ra_mountstats_find() reads exactly the buffer it is given (no NUL
 *    needed), returns 1, 0 or -EBADMSG, and writes its result only with 1;
 *  - the mount point of the first NFS "device" line, decoded, is found (1)
 *    or its entry is malformed (-EBADMSG), never missing (0);
 *  - a later mount that is not NFS changes nothing: the text with another
 *    "device" line after it gives the same answer and counters;
 *  - a delta of counters with themselves is zero, and against zero is them;
 *  - ra_mountstats_find_nth() keeps the same contract for the entries
 *    stacked on /mnt/data.
 * The whole input is also tried as the mount point to look for.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mountinfo.h"
#include "advise-mountstats.h"

static const char other_mount[] = "\ndevice tmpfs mounted on /srv/nfs with fstype tmpfs\n";

/* Finds mount_point in text and in text followed by another mount; both
 * must agree. Returns what find returned. */
static int find_checked(const char *text, size_t size, const char *mount_point,
                        struct ra_nfs_read_counters *ret)
{
        struct ra_nfs_read_counters c, again;
        int r;

        memset(&c, 0xaa, sizeof(c));
        r = ra_mountstats_find(text, size, mount_point, &c);
        FUZZ_ASSERT(r == 1 || r == 0 || r == -EBADMSG);
        if (r != 1) {
                struct ra_nfs_read_counters untouched;

                memset(&untouched, 0xaa, sizeof(untouched));
                FUZZ_ASSERT(memcmp(&c, &untouched, sizeof(c)) == 0);
        }

        char *longer = malloc(size + sizeof(other_mount));
        if (!longer)
                abort();
        memcpy(longer, text, size);
        memcpy(longer + size, other_mount, sizeof(other_mount));
        memset(&again, 0xaa, sizeof(again));
        FUZZ_ASSERT(ra_mountstats_find(longer, size + sizeof(other_mount) - 1, mount_point, &again) == r);
        if (r == 1)
                FUZZ_ASSERT(memcmp(&c, &again, sizeof(c)) == 0);
        free(longer);
        if (r == 1)
                *ret = c;
        return r;
}

static void check_delta(const struct ra_nfs_read_counters *c)
{
        const struct ra_nfs_read_counters zero = {};
        struct ra_nfs_read_counters d = ra_nfs_read_counters_delta(c, c);

        FUZZ_ASSERT(memcmp(&d, &zero, sizeof(d)) == 0);
        d = ra_nfs_read_counters_delta(c, &zero);
        FUZZ_ASSERT(memcmp(&d, c, sizeof(d)) == 0);
        /* A counter that went back counts as nothing. */
        d = ra_nfs_read_counters_delta(&zero, c);
        FUZZ_ASSERT(memcmp(&d, &zero, sizeof(d)) == 0);
}

/* The fields of the line at [p, eol), split at blanks, as find splits them:
 * the mount point of "device DEV mounted on MP with fstype nfs|nfs4",
 * decoded, in a new string; NULL for any other line. */
static char *nfs_mount_point(const char *p, const char *eol)
{
        const char *f[8], *fe[8];
        size_t n = 0;

        while (n < 8) {
                while (p < eol && (*p == ' ' || *p == '\t'))
                        p++;
                if (p >= eol)
                        return NULL;
                f[n] = p;
                while (p < eol && *p != ' ' && *p != '\t')
                        p++;
                fe[n++] = p;
        }
#define IS(i, word) ((size_t)(fe[i] - f[i]) == strlen(word) && memcmp(f[i], word, strlen(word)) == 0)
        if (!(IS(0, "device") && IS(2, "mounted") && IS(3, "on") && IS(5, "with") && IS(6, "fstype") &&
              (IS(7, "nfs") || IS(7, "nfs4"))))
                return NULL;
#undef IS
        char *mp = malloc((size_t)(fe[4] - f[4]) + 1), *o = mp;
        if (!mp)
                abort();
        for (const char *s = f[4]; s < fe[4];) {
                s += ra_mount_unescape_byte(s, fe[4], o);
                if (*o == '\0') { /* \000: a mount point no C string can name */
                        free(mp);
                        return NULL;
                }
                o++;
        }
        *o = '\0';
        return mp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data, *end = text + size;
        struct ra_nfs_read_counters c;
        char *s;

        if (find_checked(text, size, "/mnt/data", &c) == 1)
                check_delta(&c);
        /* the nth entry at a mount point (stacked mounts): 1, 0 or -EBADMSG,
         * written only with 1 */
        for (unsigned nth = 0; nth < 3; nth++) {
                struct ra_nfs_read_counters n, untouched;
                memset(&n, 0xaa, sizeof(n));
                memset(&untouched, 0xaa, sizeof(untouched));
                int r = ra_mountstats_find_nth(text, size, "/mnt/data", nth, &n);
                FUZZ_ASSERT(r == 1 || r == 0 || r == -EBADMSG);
                if (r != 1)
                        FUZZ_ASSERT(memcmp(&n, &untouched, sizeof(n)) == 0);
        }
        (void)find_checked(text, size, "", &c);

        /* The first NFS device line's mount point is there. An earlier
         * non-NFS line with the same mount point does not count: find skips
         * it. */
        for (const char *line = text; line < end;) {
                const char *eol = memchr(line, '\n', (size_t)(end - line));

                if (!eol)
                        eol = end;
                s = nfs_mount_point(line, eol);
                line = eol + 1;
                if (!s)
                        continue;
                int r = find_checked(text, size, s, &c);
                FUZZ_ASSERT(r == 1 || r == -EBADMSG);
                if (r == 1)
                        check_delta(&c);
                free(s);
                break;
        }

        s = malloc(size + 1);
        if (!s)
                abort();
        memcpy(s, data, size);
        s[size] = '\0';
        (void)find_checked(text, size, s, &c);
        free(s);
        return 0;
}
