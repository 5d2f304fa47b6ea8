/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the cgroup.controllers parser (advise-parse.h), checking:
 *  - ra_cgroup_controllers_has() reads exactly the buffer it is given;
 *  - every field of the text (split at spaces, tabs and newlines) is found,
 *    and the empty name never is.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data, *end = text + size;
        char name[256];

        FUZZ_ASSERT(!ra_cgroup_controllers_has(text, size, ""));
        for (const char *p = text; p < end;) {
                while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
                        p++;
                const char *s = p;
                while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
                        p++;
                size_t len = (size_t)(p - s);
                if (len == 0 || len >= sizeof(name) || memchr(s, 0, len))
                        continue; /* no C string names it */
                memcpy(name, s, len);
                name[len] = 0;
                FUZZ_ASSERT(ra_cgroup_controllers_has(text, size, name));
        }
        return 0;
}
