/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the /proc/PID/cgroup parser (advise-parse.h), checking for
 * blkio (what advise looks up) and for the controller the first line names:
 *  - ra_proc_cgroup_path() reads exactly the buffer it is given, returns 0,
 *    -ENOENT or -ENAMETOOLONG, and writes only with 0;
 *  - a path found is one line's rest, shorter than the buffer, never cut:
 *    a buffer of exactly its length plus one holds it, one byte less is
 *    -ENAMETOOLONG.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

#define BIG 8192

static void check(const char *text, size_t size, const char *controller)
{
        char *path = malloc(BIG), *exact;
        int r;

        if (!path)
                abort();
        memset(path, 0xaa, BIG);
        r = ra_proc_cgroup_path(text, size, controller, path, BIG);
        FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -ENAMETOOLONG);
        if (r < 0) {
                FUZZ_ASSERT((unsigned char)path[0] == 0xaa);
                free(path);
                return;
        }
        size_t len = strnlen(path, BIG);
        FUZZ_ASSERT(len < BIG && len < size);
        FUZZ_ASSERT(!memchr(path, '\n', len));
        exact = malloc(len + 1);
        if (!exact)
                abort();
        FUZZ_ASSERT(ra_proc_cgroup_path(text, size, controller, exact, len + 1) == 0);
        FUZZ_ASSERT(strcmp(exact, path) == 0);
        if (len > 0)
                FUZZ_ASSERT(ra_proc_cgroup_path(text, size, controller, exact, len) == -ENAMETOOLONG);
        free(exact);
        free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data;

        check(text, size, "blkio");
        /* "ID:NAME..." : NAME, up to the next ':' or ',' */
        const char *c1 = memchr(text, ':', size);
        if (c1) {
                size_t n = 0, left = size - (size_t)(c1 + 1 - text);
                while (n < left && n < 63 && c1[1 + n] != ':' && c1[1 + n] != ',' && c1[1 + n] != '\n' &&
                       c1[1 + n] != 0)
                        n++;
                char name[64];
                memcpy(name, c1 + 1, n);
                name[n] = 0;
                check(text, size, name);
        }
        return 0;
}
