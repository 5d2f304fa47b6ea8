/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the /proc/diskstats parser (advise-parse.h), checking:
 *  - ra_diskstats_next() reads exactly the buffer it is given (no NUL
 *    needed), moves forward on every call and ends at the text's end;
 *  - a name is NUL-terminated, shorter than RA_NAME_MAX, without a blank,
 *    a newline or a NUL;
 *  - it reads lines alone: each line parsed by itself gives the entry it
 *    gave within the text, and a line that gives none alone gives none.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

/* The entries of [text, text + size) in order, at most max. */
static size_t parse_all(const char *text, size_t size, struct ra_diskstats_line *ret, size_t max)
{
        size_t pos = 0, n = 0, before = 0;
        struct ra_diskstats_line d;

        while (n < max && ra_diskstats_next(text, size, &pos, &d)) {
                FUZZ_ASSERT(pos > before && pos <= size);
                before = pos;
                size_t len = strnlen(d.name, sizeof(d.name));
                FUZZ_ASSERT(len > 0 && len < sizeof(d.name));
                FUZZ_ASSERT(!strpbrk(d.name, " \t\n"));
                ret[n++] = d;
        }
        if (n < max)
                FUZZ_ASSERT(pos == size);
        return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data, *end = text + size;
        struct ra_diskstats_line *all = malloc(4096 * sizeof(*all)), one[2];
        size_t n, k = 0;

        if (!all)
                abort();
        n = parse_all(text, size, all, 4096);
        for (const char *line = text; line < end;) {
                const char *eol = memchr(line, '\n', (size_t)(end - line));
                size_t len = eol ? (size_t)(eol - line) : (size_t)(end - line);
                /* alone, without its newline: one entry at most */
                size_t got = parse_all(line, len, one, 2);
                FUZZ_ASSERT(got <= 1);
                if (got == 1) {
                        FUZZ_ASSERT(k < n);
                        FUZZ_ASSERT(memcmp(&one[0], &all[k], sizeof(one[0])) == 0);
                        k++;
                }
                line = eol ? eol + 1 : end;
        }
        FUZZ_ASSERT(k == n);
        free(all);
        return 0;
}
