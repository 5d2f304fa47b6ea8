/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the cgroup memory.stat parser (advise-parse.h), checking:
 *  - ra_cgroup_mem_parse() reads exactly the buffer it is given, returns 0
 *    or -ENODATA, writes only with 0, and 0 means a key was there;
 *  - a counter not there reads 0;
 *  - the last line of a key counts: "pgsteal 3" after the text reads 3,
 *    the other counters as before.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

static const char more[] = "\npgsteal 3\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct ra_cgroup_mem m, again, untouched;
        int r;

        memset(&m, 0xaa, sizeof(m));
        memset(&untouched, 0xaa, sizeof(untouched));
        r = ra_cgroup_mem_parse((const char *)data, size, &m);
        FUZZ_ASSERT(r == 0 || r == -ENODATA);
        if (r < 0) {
                FUZZ_ASSERT(memcmp(&m, &untouched, sizeof(m)) == 0);
                m = (struct ra_cgroup_mem){};
        } else {
                FUZZ_ASSERT(m.have_majfaults || m.have_refaults || m.have_steal);
                FUZZ_ASSERT(m.have_majfaults || m.majfaults == 0);
                FUZZ_ASSERT(m.have_refaults || m.refault_file_pages == 0);
                FUZZ_ASSERT(m.have_steal || m.steal_pages == 0);
        }

        char *longer = malloc(size + sizeof(more));
        if (!longer)
                abort();
        memcpy(longer, data, size);
        memcpy(longer + size, more, sizeof(more) - 1);
        FUZZ_ASSERT(ra_cgroup_mem_parse(longer, size + sizeof(more) - 1, &again) == 0);
        FUZZ_ASSERT(again.have_steal && again.steal_pages == 3);
        FUZZ_ASSERT(again.have_majfaults == m.have_majfaults && again.majfaults == m.majfaults);
        FUZZ_ASSERT(again.have_refaults == m.have_refaults &&
                    again.refault_file_pages == m.refault_file_pages);
        free(longer);
        return 0;
}
