/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the cgroup v2 io.stat parser (advise-parse.h), checking:
 *  - ra_cgroup_io_parse_v2() reads exactly the buffer it is given and never
 *    writes beyond `max` entries;
 *  - each device is one entry;
 *  - the bound only cuts: with room for k devices it finds min(k, n) of the
 *    n found with room for all, the same devices in the same order.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data;
        struct ra_cgroup_io all[RA_CGROUP_IO_MAX + 1], few[4];
        size_t n;

        memset(all, 0xaa, sizeof(all));
        n = ra_cgroup_io_parse_v2(text, size, all, RA_CGROUP_IO_MAX);
        FUZZ_ASSERT(n <= RA_CGROUP_IO_MAX);
        FUZZ_ASSERT(all[RA_CGROUP_IO_MAX].major == 0xaaaaaaaa);
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        FUZZ_ASSERT(all[i].major != all[j].major || all[i].minor != all[j].minor);
        for (size_t k = 0; k <= 3; k++) {
                memset(few, 0xaa, sizeof(few));
                size_t m = ra_cgroup_io_parse_v2(text, size, few, k);
                FUZZ_ASSERT(m == (n < k ? n : k));
                FUZZ_ASSERT(few[k].major == 0xaaaaaaaa);
                for (size_t i = 0; i < m; i++)
                        FUZZ_ASSERT(few[i].major == all[i].major && few[i].minor == all[i].minor);
        }
        return 0;
}
