/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the PSI parser (advise-parse.h), as /proc/pressure/memory
 * or io, checking:
 *  - ra_psi_some_total_us() reads exactly the buffer it is given, returns 0
 *    or -ENODATA, and writes its result only with 0;
 *  - the first "some" line with a total counts: a "some total=5" line before
 *    the text reads 5, and a line after the text changes nothing found.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

static const char before[] = "some avg10=0.00 total=5\n", after[] = "\nsome total=6\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        uint64_t us = 0xaaaa, again = 0xbbbb;
        int r = ra_psi_some_total_us((const char *)data, size, &us);

        FUZZ_ASSERT(r == 0 || r == -ENODATA);
        if (r < 0)
                FUZZ_ASSERT(us == 0xaaaa);

        char *longer = malloc(sizeof(before) + size + sizeof(after));
        if (!longer)
                abort();
        memcpy(longer, before, sizeof(before) - 1);
        memcpy(longer + sizeof(before) - 1, data, size);
        FUZZ_ASSERT(ra_psi_some_total_us(longer, sizeof(before) - 1 + size, &again) == 0);
        FUZZ_ASSERT(again == 5);

        memcpy(longer, data, size);
        memcpy(longer + size, after, sizeof(after) - 1);
        FUZZ_ASSERT(ra_psi_some_total_us(longer, size + sizeof(after) - 1, &again) == 0);
        FUZZ_ASSERT(again == (r == 0 ? us : 6));
        free(longer);
        return 0;
}
