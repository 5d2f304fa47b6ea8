/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <math.h>

#include "output.h"
#include "text.h"

static void json_prefix(struct json *j, const char *key) {
        if (j->need_comma[j->depth])
                fputc(',', j->f);
        j->need_comma[j->depth] = true;
        if (j->depth > 0)
                fprintf(j->f, "\n%*s", (int) j->depth * 2, "");
        if (key) {
                fputc('"', j->f);
                fputs(key, j->f);
                fputs("\": ", j->f);
        }
}

static void json_open(struct json *j, const char *key, char c) {
        json_prefix(j, key);
        fputc(c, j->f);
        if (j->depth + 1 < sizeof(j->need_comma))
                j->depth++;
        j->need_comma[j->depth] = false;
}

static void json_close(struct json *j, char c) {
        bool had_items = j->need_comma[j->depth];
        if (j->depth > 0)
                j->depth--;
        if (had_items)
                fprintf(j->f, "\n%*s", (int) j->depth * 2, "");
        fputc(c, j->f);
}

void json_begin_object(struct json *j, const char *key) {
        json_open(j, key, '{');
}

void json_end_object(struct json *j) {
        json_close(j, '}');
}

void json_begin_array(struct json *j, const char *key) {
        json_open(j, key, '[');
}

void json_end_array(struct json *j) {
        json_close(j, ']');
}

void json_string(struct json *j, const char *key, const char *value) {
        json_prefix(j, key);
        if (value)
                ra_fputs_json(j->f, value);
        else
                fputs("null", j->f);
}

void json_uint(struct json *j, const char *key, uint64_t value) {
        json_prefix(j, key);
        fprintf(j->f, "%" PRIu64, value);
}

void json_uint_or_null(struct json *j, const char *key, bool known, uint64_t value) {
        if (known)
                json_uint(j, key, value);
        else {
                json_prefix(j, key);
                fputs("null", j->f);
        }
}

void json_double(struct json *j, const char *key, double value, int decimals) {
        json_prefix(j, key);
        if (isfinite(value))
                fprintf(j->f, "%.*f", decimals, value);
        else
                fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool value) {
        json_prefix(j, key);
        fputs(value ? "true" : "false", j->f);
}

void json_finish(struct json *j) {
        fputc('\n', j->f);
}

const char *format_bytes_short(uint64_t bytes, char buf[static 16]) {
        static const char units[] = "BKMGTPE";
        unsigned u = 0;
        uint64_t whole = bytes, rem = 0;

        while (whole >= 1024 && u < sizeof(units) - 2) {
                rem = whole % 1024;
                whole /= 1024;
                u++;
        }
        if (whole < 10 && u > 0)
                snprintf(buf, 16, "%" PRIu64 ".%" PRIu64 "%c", whole, rem * 10 / 1024, units[u]);
        else
                snprintf(buf, 16, "%" PRIu64 "%c", whole, units[u]);
        return buf;
}
