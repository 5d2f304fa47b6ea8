/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the parser of a line of the agent's tuning states
 * (advise-tune.h), checking:
 *  - ra_tune_state_parse() reads only the NUL-terminated line it is given
 *    and writes only when it takes it;
 *  - what it takes is within the bounds the agent writes: KiB at most 1G,
 *    a direction of -1, 0 or 1 that goes with a tuned value, a known
 *    measure, a finite measure, a key and a reason without tabs or line
 *    breaks, nothing held without a boot id.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-tune.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *line = malloc(size + 1);
        struct ra_tune_state s;

        if (!line)
                abort();
        memcpy(line, data, size);
        line[size] = 0;
        memset(&s, 0xaa, sizeof(s));
        if (!ra_tune_state_parse(line, &s)) {
                FUZZ_ASSERT(((const unsigned char *)&s)[0] == 0xaa);
                free(line);
                return 0;
        }
        const uint64_t kb_max = UINT64_C(1) << 20;
        FUZZ_ASSERT(s.tuned_kb <= kb_max && s.previous_kb <= kb_max && s.hand_kb <= kb_max && s.avoid_kb <= kb_max);
        FUZZ_ASSERT(s.direction >= -1 && s.direction <= 1 && (s.direction != 0) == (s.tuned_kb != 0));
        FUZZ_ASSERT((unsigned)s.measure < _RA_TUNE_MEASURE_MAX);
        FUZZ_ASSERT(isfinite(s.measure_before) && s.measure_before >= 0);
        FUZZ_ASSERT(s.key[0] && !strpbrk(s.key, "\t\n") && strlen(s.key) < sizeof(s.key));
        FUZZ_ASSERT(s.reason[0] && !strpbrk(s.reason, "\t\n") && strlen(s.reason) < sizeof(s.reason));
        FUZZ_ASSERT(!s.hand_kb || s.boot_id[0]);
        FUZZ_ASSERT(s.changed >= 0 && s.avoid_until >= 0);
        free(line);
        return 0;
}
