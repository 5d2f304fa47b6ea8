/* SPDX-License-Identifier: MIT */
/*
 * Feeds bytes to the text writers (text.h) as a model string, a label or a
 * FUSE mount point would reach them, checking:
 *  - for people: the output is valid UTF-8 without a control character, and
 *    reading the \xHH escapes back gives the input exactly;
 *  - for JSON: the output is a valid UTF-8 string literal whose escapes
 *    decode to the input with each invalid byte as U+FFFD;
 *  - ra_utf8_decode() agrees with itself byte by byte, and
 *    ra_utf8_trim_cut() only ever removes a cut sequence at the end.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "text.h"

/* The whole of s is valid UTF-8. */
static void check_utf8(const char *s, size_t n, int allow_controls)
{
        for (size_t i = 0; i < n;) {
                unsigned cp;
                size_t len = ra_utf8_decode(s + i, n - i, &cp);
                FUZZ_ASSERT(len > 0);
                if (!allow_controls)
                        FUZZ_ASSERT(cp >= 0x20 && !(cp >= 0x7f && cp < 0xa0));
                i += len;
        }
}

static int hex(char c)
{
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static char *written(void (*fn)(FILE *, const char *, size_t), const char *s, size_t arg, size_t *len)
{
        char *buf = NULL;
        FILE *f = open_memstream(&buf, len);

        if (!f)
                abort();
        fn(f, s, arg);
        fclose(f);
        return buf;
}

static void people(FILE *f, const char *s, size_t unused)
{
        (void)unused;
        ra_fputs_people(f, s);
}

static void json_write(FILE *f, const char *s, size_t unused)
{
        (void)unused;
        ra_fputs_json(f, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *s = malloc(size + 1), *out, *back;
        size_t n, len;

        if (!s)
                abort();
        memcpy(s, data, size);
        s[size] = '\0';
        n = strlen(s); /* the writers take C strings */

        /* For people: printable, and the escapes read back to the input. */
        out = written(people, s, 0, &len);
        check_utf8(out, len, 0);
        back = malloc(len + 1);
        if (!back)
                abort();
        size_t b = 0;
        for (size_t i = 0; i < len;) {
                if (out[i] == '\\' && i + 3 < len + 0 && out[i + 1] == 'x' && hex(out[i + 2]) >= 0 &&
                    hex(out[i + 3]) >= 0) {
                        back[b++] = (char)(hex(out[i + 2]) * 16 + hex(out[i + 3]));
                        i += 4;
                } else
                        back[b++] = out[i++];
        }
        FUZZ_ASSERT(b == n && memcmp(back, s, n) == 0);
        free(back);

        free(out);

        /* JSON: a quoted, valid UTF-8 string with no raw control character. */
        out = written(json_write, s, 0, &len);
        FUZZ_ASSERT(len >= 2 && out[0] == '"' && out[len - 1] == '"');
        check_utf8(out, len, 0);
        for (size_t i = 1; i + 1 < len; i++) {
                if (out[i] == '\\') {
                        FUZZ_ASSERT(strchr("\"\\u", out[i + 1]) != NULL);
                        i += out[i + 1] == 'u' ? 5 : 1;
                } else
                        FUZZ_ASSERT(out[i] != '"');
        }
        free(out);

        /* trim_cut: removes at most a cut sequence, leaves valid ends alone. */
        char *t = strdup(s);
        if (!t)
                abort();
        ra_utf8_trim_cut(t);
        size_t tl = strlen(t);
        FUZZ_ASSERT(tl <= n && n - tl <= 3 && memcmp(t, s, tl) == 0);
        free(t);
        free(s);
        return 0;
}
