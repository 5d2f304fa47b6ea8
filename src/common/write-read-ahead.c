/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "text.h"
#include "write-read-ahead.h"

int ra_write_read_ahead(const char *attr_path, uint64_t target_kb, uint64_t *ret_now_kb) {
        char buf[32], number[RA_U64_TEXT];
        int fd, n, r = 0;

        /* O_TRUNC changes nothing on sysfs; on a test tree's plain file it keeps
         * the old value's tail from surviving a shorter write. */
        fd = open(attr_path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        /* No printf: every write comes here. */
        ra_str_join(buf, sizeof(buf), ra_u64_text(number, target_kb), "\n", NULL);
        n = (int) strlen(buf);
        if (write(fd, buf, (size_t) n) != n)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r < 0)
                return r;

        uint64_t now;
        r = ra_read_u64_file(attr_path, &now);
        if (r < 0)
                return r;
        if (ret_now_kb)
                *ret_now_kb = now;
        return now == target_kb ? 0 : -EIO;
}
