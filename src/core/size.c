/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "size.h"
#include "text.h"

static const struct {
        const char *suffix;
        uint64_t factor_kb;
} units[] = {
        { "", 1 },        { "K", 1 },          { "KiB", 1 },        { "KB", 1 },
        { "M", 1024 },    { "MiB", 1024 },     { "MB", 1024 },      { "G", 1024 * 1024 },
        { "GiB", 1024 * 1024 }, { "GB", 1024 * 1024 },
};

int ra_parse_size_kb(const char *s, uint64_t *ret_kb) {
        uint64_t n = 0;
        const char *p = s;

        while (isspace((unsigned char) *p))
                p++;
        if (!isdigit((unsigned char) *p))
                return -EINVAL;
        for (; isdigit((unsigned char) *p); p++) {
                unsigned d = (unsigned) (*p - '0');
                if (n > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                n = n * 10 + d;
        }

        const char *suffix = p;
        size_t len = strlen(suffix);
        while (len > 0 && isspace((unsigned char) suffix[len - 1]))
                len--;

        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
                if (strlen(units[i].suffix) != len || strncasecmp(suffix, units[i].suffix, len) != 0)
                        continue;
                if (n > RA_SIZE_MAX_KB / units[i].factor_kb)
                        return -ERANGE;
                *ret_kb = n * units[i].factor_kb;
                return 0;
        }
        return -EINVAL;
}

const char *ra_format_size_kb(uint64_t kb, char buf[static 24]) {
        char number[RA_U64_TEXT];
        const char *unit = "K";

        /* Joined, not printf'd: every event's reason names its sizes. */
        if (kb >= 1024 * 1024 && kb % (1024 * 1024) == 0)
                kb /= 1024 * 1024, unit = "G";
        else if (kb >= 1024 && kb % 1024 == 0)
                kb /= 1024, unit = "M";
        ra_str_join(buf, 24, ra_u64_text(number, kb), unit, NULL);
        return buf;
}

int ra_parse_bool(const char *s, bool *ret) {
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        for (size_t i = 0; i < 4; i++) {
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        }
        return -EINVAL;
}

int ra_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *ret) {
        uint64_t v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL; /* strtoul() would take " 5", "+5" and "-5" */
                if (v <= hi)
                        v = v * 10 + (uint64_t) (*p - '0');
        }
        if (v < lo || v > hi)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}
