/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <string.h>

#include "text.h"

size_t ra_utf8_decode(const char *s, size_t n, unsigned *ret_cp) {
        const unsigned char *u = (const unsigned char *) s;
        unsigned cp, min;
        size_t len;

        if (n == 0)
                return 0;
        if (u[0] < 0x80) {
                *ret_cp = u[0];
                return 1;
        }
        if ((u[0] & 0xe0) == 0xc0)
                len = 2, cp = u[0] & 0x1f, min = 0x80;
        else if ((u[0] & 0xf0) == 0xe0)
                len = 3, cp = u[0] & 0x0f, min = 0x800;
        else if ((u[0] & 0xf8) == 0xf0)
                len = 4, cp = u[0] & 0x07, min = 0x10000;
        else
                return 0;
        if (n < len)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((u[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (u[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        *ret_cp = cp;
        return len;
}

static bool is_control(unsigned cp) {
        return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

void ra_fputs_people(FILE *f, const char *s) {
        size_t n = strlen(s);

        /* Printable ASCII with no "\\x" passes unchanged: in one piece. */
        size_t plain = 0;
        while (plain < n && s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '\\')
                plain++;
        if (plain == n) {
                fputs(s, f);
                return;
        }

        for (size_t i = 0; i < n;) {
                unsigned cp;
                size_t len = ra_utf8_decode(s + i, n - i, &cp);
                bool escape = len == 0 || is_control(cp) || (cp == '\\' && s[i + 1] == 'x');
                if (len == 0)
                        len = 1; /* an invalid byte alone: the next may start a character */
                if (escape)
                        for (size_t k = 0; k < len; k++)
                                fprintf(f, "\\x%02x", (unsigned char) s[i + k]);
                else
                        fwrite(s + i, 1, len, f);
                i += len;
        }
}

void ra_json_quote(const char *s, ra_put_fn put, void *userdata) {
        size_t n = strlen(s), done = 0;
        char esc[8];

        /* Runs of bytes that pass unchanged go out in one piece. */
        put("\"", 1, userdata);
        for (size_t i = 0; i < n;) {
                unsigned cp;
                size_t len = ra_utf8_decode(s + i, n - i, &cp);
                const char *rep = NULL;
                size_t rep_len = 0;

                if (len == 0) {
                        rep = "\xef\xbf\xbd", rep_len = 3; /* U+FFFD for one invalid byte */
                        len = 1;
                } else if (cp == '"' || cp == '\\') {
                        esc[0] = '\\', esc[1] = (char) cp;
                        rep = esc, rep_len = 2;
                } else if (is_control(cp)) {
                        snprintf(esc, sizeof(esc), "\\u%04x", cp);
                        rep = esc, rep_len = 6;
                }
                if (rep) {
                        if (i > done)
                                put(s + done, i - done, userdata);
                        put(rep, rep_len, userdata);
                        done = i + len;
                }
                i += len;
        }
        if (n > done)
                put(s + done, n - done, userdata);
        put("\"", 1, userdata);
}

static void put_file(const char *bytes, size_t n, void *userdata) {
        fwrite(bytes, 1, n, userdata);
}

void ra_fputs_json(FILE *f, const char *s) {
        ra_json_quote(s, put_file, f);
}

static void put_label_value(FILE *f, const char *s) {
        size_t len = strlen(s);
        for (size_t i = 0; i < len;) {
                unsigned cp;
                size_t k = ra_utf8_decode(s + i, len - i, &cp);
                if (k == 0) {
                        fputs("\xef\xbf\xbd", f);
                        i++;
                        continue;
                }
                if (s[i] == '\\')
                        fputs("\\\\", f);
                else if (s[i] == '"')
                        fputs("\\\"", f);
                else if (s[i] == '\n')
                        fputs("\\n", f);
                else
                        fwrite(s + i, 1, k, f);
                i += k;
        }
}

void ra_fputs_prometheus_labels(FILE *f, const char *device, const char *kind, const char *class) {
        fputs("{device=\"", f);
        put_label_value(f, device);
        fputs("\",kind=\"", f);
        put_label_value(f, kind);
        fputs("\",class=\"", f);
        put_label_value(f, class);
        fputs("\"}", f);
}

void ra_utf8_trim_cut(char *s) {
        size_t n = strlen(s);

        /* A character starts at most 3 bytes back from the end. */
        for (size_t back = 1; back <= 3 && back <= n; back++) {
                unsigned char c = (unsigned char) s[n - back];
                unsigned cp;
                if ((c & 0xc0) == 0x80)
                        continue;
                if (c >= 0xc0 && ra_utf8_decode(s + n - back, back, &cp) == 0)
                        s[n - back] = 0;
                return;
        }
}

bool ra_str_join(char *dst, size_t size, ...) {
        size_t used = 0;
        bool fit = true;
        va_list ap;

        va_start(ap, size);
        for (const char *s; (s = va_arg(ap, const char *));) {
                size_t l = strlen(s);
                if (l >= size - used) {
                        l = size - used - 1;
                        fit = false;
                }
                memcpy(dst + used, s, l);
                used += l;
                if (!fit)
                        break;
        }
        va_end(ap);
        dst[used] = 0;
        return fit;
}

const char *ra_u64_text(char buf[RA_U64_TEXT], uint64_t v) {
        size_t n = 1;

        for (uint64_t rest = v / 10; rest; rest /= 10)
                n++;
        buf[n] = 0;
        do
                buf[--n] = (char) ('0' + v % 10);
        while (v /= 10);
        return buf;
}

bool ra_text_is_clean_field(const char *s) {
        size_t len = strlen(s);
        if (len == 0)
                return false;
        for (size_t i = 0; i < len;) {
                unsigned cp;
                size_t k = ra_utf8_decode(s + i, len - i, &cp);
                if (k == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
                        return false;
                i += k;
        }
        return true;
}
