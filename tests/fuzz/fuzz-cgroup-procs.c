/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the cgroup.procs parser (advise-parse.h), checking:
 *  - ra_cgroup_procs_parse() reads exactly the buffer it is given and never
 *    writes beyond `max` ids;
 *  - every id is above 0;
 *  - the bound only cuts: the ids of the first k lines are the first ids of
 *    the first k + 1 lines.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

#define MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data;
        unsigned all[MAX + 1], few[MAX + 1];
        size_t n;

        memset(all, 0xaa, sizeof(all));
        n = ra_cgroup_procs_parse(text, size, all, MAX);
        FUZZ_ASSERT(n <= MAX && all[n] == 0xaaaaaaaa);
        for (size_t i = 0; i < n; i++)
                FUZZ_ASSERT(all[i] > 0);
        size_t before = 0;
        for (size_t k = 0; k <= 8; k++) {
                memset(few, 0xaa, sizeof(few));
                size_t m = ra_cgroup_procs_parse(text, size, few, k);
                FUZZ_ASSERT(m <= k && m >= before && m <= n && few[m] == 0xaaaaaaaa);
                FUZZ_ASSERT(memcmp(few, all, m * sizeof(few[0])) == 0);
                before = m;
        }
        return 0;
}
