/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the mountinfo parser as /proc/self/mountinfo text (mount
 * points and sources are chosen by users: FUSE, udisks, sshfs), checking the
 * contract of mountinfo.h:
 *  - ra_mountinfo_foreach() reads exactly the buffer it is given (no NUL
 *    needed), hands out terminated fields and device numbers the kernel can
 *    have, and stops early with the callback's value;
 *  - ra_mountinfo_find() finds every superblock foreach saw, with as many
 *    mount points as foreach saw lines for it, and nothing else;
 *  - ra_mount_option_u64() agrees with ra_mount_option_string() on the same
 *    key; ra_mount_server() returns a piece of the source that fits;
 *  - facts built from any mount are a mount's facts with terminated strings.
 * The whole input is also tried as an option string, a source and a bdi name.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gather.h"
#include "mountinfo.h"

#define MAX_SEEN 32

struct seen {
        unsigned n;
        struct {
                unsigned major, minor, lines;
        } dev[MAX_SEEN];
};

static void check_string(const char *s, size_t size)
{
        FUZZ_ASSERT(memchr(s, '\0', size) != NULL);
}

/* rsize=N: the number agrees with the text of the same option. */
static void check_option(const char *options, const char *key)
{
        char buf[32];
        uint64_t n = ra_mount_option_u64(options, key);

        ra_mount_option_string(options, key, buf, sizeof(buf));
        check_string(buf, sizeof(buf));
        if (n != 0) {
                char *end;

                FUZZ_ASSERT(buf[0] != '\0');
                FUZZ_ASSERT(strtoull(buf, &end, 10) == n && *end == '\0');
        }
        /* A buffer too small for any value holds the empty string. */
        buf[0] = 'x';
        ra_mount_option_string(options, key, buf, 1);
        FUZZ_ASSERT(buf[0] == '\0');
}

static void check_server(const char *source)
{
        char buf[RA_PATH_MAX], tiny[4];

        ra_mount_server(source, buf, sizeof(buf));
        check_string(buf, sizeof(buf));
        FUZZ_ASSERT(strstr(source, buf) != NULL);
        ra_mount_server(source, tiny, sizeof(tiny));
        check_string(tiny, sizeof(tiny));
        FUZZ_ASSERT(strncmp(tiny, buf, strlen(tiny)) == 0);
}

static int each(const struct ra_mount *m, void *userdata)
{
        struct seen *seen = userdata;
        struct ra_facts f;
        char bdi[32];
        unsigned i;

        FUZZ_ASSERT(m->major <= 0xfff && m->minor <= 0xfffff);
        FUZZ_ASSERT(m->n_mount_points == 1);
        check_string(m->mount_point, sizeof(m->mount_point));
        check_string(m->fstype, sizeof(m->fstype));
        check_string(m->source, sizeof(m->source));
        check_string(m->super_options, sizeof(m->super_options));

        for (i = 0; i < seen->n; i++)
                if (seen->dev[i].major == m->major && seen->dev[i].minor == m->minor)
                        break;
        if (i < seen->n)
                seen->dev[i].lines++;
        else if (seen->n < MAX_SEEN) {
                seen->dev[seen->n].major = m->major;
                seen->dev[seen->n].minor = m->minor;
                seen->dev[seen->n].lines = 1;
                seen->n++;
        }

        check_option(m->super_options, "rsize");
        check_option(m->super_options, "vers");
        check_server(m->source);

        snprintf(bdi, sizeof(bdi), "%u:%u", m->major, m->minor);
        ra_facts_init(&f);
        ra_facts_from_mount(&f, bdi, m);
        FUZZ_ASSERT(f.kind == RA_KIND_MOUNT);
        FUZZ_ASSERT(f.major == m->major && f.minor == m->minor);
        FUZZ_ASSERT(f.n_mount_points == 1);
        check_string(f.name, sizeof(f.name));
        check_string(f.mount_point, sizeof(f.mount_point));
        check_string(f.fstype, sizeof(f.fstype));
        check_string(f.server, sizeof(f.server));
        check_string(f.nfs_version, sizeof(f.nfs_version));
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
        struct seen seen = { 0 };
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
                check_string(m.mount_point, sizeof(m.mount_point));
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
