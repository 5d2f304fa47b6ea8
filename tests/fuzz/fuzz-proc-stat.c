/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the /proc/PID/stat parser (advise-parse.h), checking:
 *  - ra_proc_stat_parse() reads exactly the buffer it is given, returns 0
 *    or -EINVAL, and writes only with 0;
 *  - a text it takes has a ')' (the end of the command name), and the same
 *    text behind a longer command name gives the same fields: only the last
 *    ')' ends the name.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data;
        struct ra_proc_stat st, again;
        int r;

        memset(&st, 0xaa, sizeof(st));
        r = ra_proc_stat_parse(text, size, &st);
        FUZZ_ASSERT(r == 0 || r == -EINVAL);
        if (r < 0) {
                FUZZ_ASSERT(((const unsigned char *)&st)[0] == 0xaa);
                return 0;
        }
        FUZZ_ASSERT(memchr(text, ')', size));
        /* a name that ends in the text's own last ')' */
        char *longer = malloc(size + 8);
        if (!longer)
                abort();
        memcpy(longer, "0 (a) b ", 8);
        memcpy(longer + 8, text, size);
        FUZZ_ASSERT(ra_proc_stat_parse(longer, size + 8, &again) == 0);
        FUZZ_ASSERT(again.majfaults == st.majfaults && again.kernel_thread == st.kernel_thread);
        free(longer);
        return 0;
}
