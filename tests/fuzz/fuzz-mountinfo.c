/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the mountinfo parser as /proc/self/mountinfo text (mount
 * points and sources are chosen by users: FUSE, udisks, sshfs), checking the
 * contract of mountinfo.h:
 *  - ra_mountinfo_foreach() reads exactly the buffer it is given (no NUL
 *    needed), hands out terminated fields and device numbers the kernel can
 *    have, and stops early with the callback's value;
 *  - ra_mountinfo_find() finds every superblock foreach saw, with as many
 *    mount points as foreach saw lines for it, and nothing else (it skips
 *    other superblocks' lines before decoding them, a path of its own);
 *  - ra_mount_option_u64() agrees with ra_mount_option_value() on the same
 *    key; ra_mount_server() returns a piece of the source;
 *  - nothing is cut: facts built from any mount hold its whole mount point,
 *    fstype and source, and find returns the first mount point whole.
 * The whole input is also tried as an option string, a source and a bdi name.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mountinfo.h"

#define MAX_SEEN 32

struct seen {
        unsigned n;
        size_t input_size;
        struct {
                unsigned major, minor, lines;
                char *first_mount_point;
        } dev[MAX_SEEN];
};

/* A decoded field is never longer than the input it came from. */
static void check_string(const struct seen *seen, const char *s)
{
        FUZZ_ASSERT(s != NULL);
        FUZZ_ASSERT(strlen(s) <= seen->input_size);
}

/* rsize=N: the number agrees with the text of the same option. */
static void check_option(const char *options, const char *key)
{
        size_t len = 0;
        bool invalid;
        const char *v = ra_mount_option_value(options, key, &len);
        uint64_t n = ra_mount_option_u64_checked(options, key, &invalid);

        FUZZ_ASSERT(n == ra_mount_option_u64(options, key));
        if (!v) {
                FUZZ_ASSERT(n == 0 && !invalid);
                return;
        }
        FUZZ_ASSERT(v > options && v + len <= options + strlen(options));
        FUZZ_ASSERT(v[-1] == '=' && (v[len] == ',' || v[len] == '\0'));
        if (!invalid) {
                /* Leading zeros are valid, so the digits can be any length. */
                char *digits = strndup(v, len);

                if (!digits)
                        abort();
                FUZZ_ASSERT(len > 0 && strspn(digits, "0123456789") == len);
                FUZZ_ASSERT(strtoull(digits, NULL, 10) == n);
                free(digits);
        } else
                FUZZ_ASSERT(n == 0);
}

static void check_server(const char *source)
{
        size_t len = 0;
        const char *server = ra_mount_server(source, &len);

        if (server)
                FUZZ_ASSERT(server >= source && len > 0 && server + len <= source + strlen(source));
}

static int each(const struct ra_mount *m, void *userdata)
{
        struct seen *seen = userdata;
        struct ra_facts f;
        char bdi[32];
        unsigned i;

        FUZZ_ASSERT(m->major <= 0xfff && m->minor <= 0xfffff);
        FUZZ_ASSERT(m->n_mount_points == 1);
        check_string(seen, m->mount_point);
        check_string(seen, m->fstype);
        check_string(seen, m->source);
        check_string(seen, m->super_options);

        for (i = 0; i < seen->n; i++)
                if (seen->dev[i].major == m->major && seen->dev[i].minor == m->minor)
                        break;
        if (i < seen->n)
                seen->dev[i].lines++;
        else if (seen->n < MAX_SEEN) {
                seen->dev[seen->n].major = m->major;
                seen->dev[seen->n].minor = m->minor;
                seen->dev[seen->n].lines = 1;
                seen->dev[seen->n].first_mount_point = strdup(m->mount_point);
                if (!seen->dev[seen->n].first_mount_point)
                        abort();
                seen->n++;
        }

        check_option(m->super_options, "rsize");
        check_option(m->super_options, "vers");
        check_server(m->source);

        snprintf(bdi, sizeof(bdi), "%u:%u", m->major, m->minor);
        ra_facts_init(&f);
        FUZZ_ASSERT(ra_facts_from_mount(&f, bdi, m) == 0);
        FUZZ_ASSERT(f.kind == RA_KIND_MOUNT);
        FUZZ_ASSERT(f.major == m->major && f.minor == m->minor);
        FUZZ_ASSERT(f.n_mount_points == 1);
        /* Whole, never cut. */
        FUZZ_ASSERT(strcmp(f.mount_point, m->mount_point) == 0);
        FUZZ_ASSERT(strcmp(f.fstype, m->fstype) == 0);
        FUZZ_ASSERT(strcmp(f.source, m->source) == 0);
        if (f.server)
                FUZZ_ASSERT(strstr(m->source, f.server) != NULL);
        if (f.nfs_version)
                FUZZ_ASSERT(strstr(m->super_options, f.nfs_version) != NULL ||
                            (strcmp(f.nfs_version, "4") == 0 && strcmp(m->fstype, "nfs4") == 0));
        FUZZ_ASSERT(f.rsize_bytes == ra_mount_option_u64(m->super_options, "rsize"));
        ra_facts_done(&f);
        return 0;
}

static int stop_at_first(const struct ra_mount *m, void *userdata)
{
        (void)m;
        (*(unsigned *)userdata)++;
        return 7;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data;
        struct seen seen = { .input_size = size };
        struct ra_mount m;
        unsigned major, minor, calls = 0;
        char *s;
        int r;

        FUZZ_ASSERT(ra_mountinfo_foreach(text, size, each, &seen) == 0);

        /* Early stop: the callback's value, after exactly one call. */
        r = ra_mountinfo_foreach(text, size, stop_at_first, &calls);
        FUZZ_ASSERT(seen.n == 0 ? (r == 0 && calls == 0) : (r == 7 && calls == 1));

        /* Every superblock foreach saw is found, with all its mount points. */
        for (unsigned i = 0; i < seen.n; i++) {
                memset(&m, 0xaa, sizeof(m));
                FUZZ_ASSERT(ra_mountinfo_find(text, size, seen.dev[i].major, seen.dev[i].minor, &m) == 1);
                FUZZ_ASSERT(m.major == seen.dev[i].major && m.minor == seen.dev[i].minor);
                FUZZ_ASSERT(m.n_mount_points == seen.dev[i].lines);
                FUZZ_ASSERT(strcmp(m.mount_point, seen.dev[i].first_mount_point) == 0);
                ra_mount_done(&m);
                free(seen.dev[i].first_mount_point);
        }
        /* When every superblock fit in seen, find knows no other: a
         * neighbour's number, or one that only malformed lines carry. */
        if (seen.n < MAX_SEEN)
                for (unsigned i = 0; i < seen.n; i++) {
                        unsigned other = seen.dev[i].minor ^ 1, j;

                        for (j = 0; j < seen.n; j++)
                                if (seen.dev[j].major == seen.dev[i].major && seen.dev[j].minor == other)
                                        break;
                        if (j == seen.n)
                                FUZZ_ASSERT(ra_mountinfo_find(text, size, seen.dev[i].major, other, &m) == 0);
                }
        /* No line can carry a major the kernel does not have. */
        FUZZ_ASSERT(ra_mountinfo_find(text, size, 0x1000, 53, &m) == 0);
        if (seen.n == 0)
                FUZZ_ASSERT(ra_mountinfo_find(text, size, 0, 53, &m) == 0);

        /* The input as an option string, a mount source and a bdi name. */
        s = malloc(size + 1);
        if (!s)
                abort();
        memcpy(s, data, size);
        s[size] = '\0';
        check_option(s, "rsize");
        check_option(s, "vers");
        check_server(s);
        if (ra_parse_bdi_name(s, &major, &minor) == 0)
                FUZZ_ASSERT(major == 0 && minor <= 0xfffff);
        free(s);
        return 0;
}
