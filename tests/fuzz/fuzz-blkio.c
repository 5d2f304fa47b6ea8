/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the cgroup v1 blkio parser (advise-parse.h): the input up
 * to its first NUL as blkio.throttle.io_service_bytes, the rest (if any) as
 * io_serviced. Checks:
 *  - ra_cgroup_io_parse_v1() reads exactly the buffers it is given and
 *    never writes beyond `max` entries;
 *  - each device is one entry;
 *  - the bytes file alone gives the first entries of both, with the same
 *    bytes and no ios.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise-parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data, *nul = memchr(text, 0, size);
        size_t bytes_len = nul ? (size_t)(nul - text) : size;
        const char *ios = nul ? nul + 1 : NULL;
        size_t ios_len = nul ? size - bytes_len - 1 : 0;
        struct ra_cgroup_io both[RA_CGROUP_IO_MAX + 1], alone[RA_CGROUP_IO_MAX + 1];
        size_t n, m;

        memset(both, 0xaa, sizeof(both));
        n = ra_cgroup_io_parse_v1(text, bytes_len, ios, ios_len, both, RA_CGROUP_IO_MAX);
        FUZZ_ASSERT(n <= RA_CGROUP_IO_MAX && both[RA_CGROUP_IO_MAX].major == 0xaaaaaaaa);
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        FUZZ_ASSERT(both[i].major != both[j].major || both[i].minor != both[j].minor);

        memset(alone, 0xaa, sizeof(alone));
        m = ra_cgroup_io_parse_v1(text, bytes_len, NULL, 0, alone, RA_CGROUP_IO_MAX);
        FUZZ_ASSERT(m <= n);
        for (size_t i = 0; i < m; i++) {
                FUZZ_ASSERT(alone[i].major == both[i].major && alone[i].minor == both[i].minor);
                FUZZ_ASSERT(alone[i].read_bytes == both[i].read_bytes && alone[i].read_ios == 0);
        }
        return 0;
}
