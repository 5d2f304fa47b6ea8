/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A minimal streaming JSON writer: enough for status and explain. */
struct json {
        FILE *f;
        unsigned depth;
        bool need_comma[16];
};

void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_string(struct json *j, const char *key, const char *value); /* NULL: null */
void json_uint(struct json *j, const char *key, uint64_t value);
void json_uint_or_null(struct json *j, const char *key, bool known, uint64_t value);
/* With `decimals` digits after the point; null when not finite. */
void json_double(struct json *j, const char *key, double value, int decimals);
void json_bool(struct json *j, const char *key, bool value);
void json_finish(struct json *j);

/* "512K", "3.6T": for tables, not for parsing. */
const char *format_bytes_short(uint64_t bytes, char buf[static 16]);
