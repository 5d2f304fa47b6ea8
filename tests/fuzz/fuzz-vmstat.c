/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the /proc/vmstat parser (advise-parse.h), checking:
 *  - ra_vmstat_parse() reads exactly the buffer it is given, counts at most
 *    the four keys, and leaves the PSI fields as they were;
 *  - a key not there reads 0;
 *  - the last line of a key counts: the text with "pgmajfault 7" after it
 *    reads 7, and the other counters as before.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

static const char more[] = "\npgmajfault 7\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct ra_host_counters h, again;
        unsigned n;

        memset(&h, 0xaa, sizeof(h));
        n = ra_vmstat_parse((const char *)data, size, &h);
        FUZZ_ASSERT(n <= 4);
        FUZZ_ASSERT(h.mem_some_us == UINT64_C(0xaaaaaaaaaaaaaaaa) && h.io_some_us == h.mem_some_us);
        if (n == 0)
                FUZZ_ASSERT(h.majfaults == 0 && h.refault_file_pages == 0 && h.steal_file_pages == 0 &&
                            h.pinned_pages == 0);

        char *longer = malloc(size + sizeof(more));
        if (!longer)
                abort();
        memcpy(longer, data, size);
        memcpy(longer + size, more, sizeof(more) - 1);
        memset(&again, 0xaa, sizeof(again));
        unsigned m = ra_vmstat_parse(longer, size + sizeof(more) - 1, &again);
        FUZZ_ASSERT(m >= n && m <= n + 1 && m >= 1);
        FUZZ_ASSERT(again.majfaults == 7);
        FUZZ_ASSERT(again.refault_file_pages == h.refault_file_pages &&
                    again.steal_file_pages == h.steal_file_pages && again.pinned_pages == h.pinned_pages);
        free(longer);
        return 0;
}
