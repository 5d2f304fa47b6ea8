/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/*
 * JSON for every verb that takes --json (TAKES_JSON in ctl.c's verb table):
 * the calls build a json-c document
 * in order (json-c keeps the order of keys), json_finish() prints it and
 * frees it. Strings go through ra_json_quote() (text.h), so the output is
 * valid UTF-8 whatever bytes a device or a mount gave us.
 */
#define JSON_DEPTH_MAX 16

struct json {
        FILE *f;
        struct json_object *root;
        struct json_object *open[JSON_DEPTH_MAX]; /* open objects and arrays, innermost last */
        unsigned depth;
        bool failed; /* out of memory, or nested too deep */
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
void json_boolean(struct json *j, const char *key, bool value);
/* Prints the document, frees it; -ENOMEM (with a message) when building it
 * failed, and nothing is printed. */
int json_finish(struct json *j);

/* printf() for people: the whole text escaped as ra_fputs_people() does, for
 * lines that quote file names, rules and reasons; the caller ends the line. */
void fprintf_people(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "512K", "3.6T": for tables, not for parsing. */
const char *format_bytes_short(uint64_t bytes, char buf[static 16]);

/* A paragraph for people on stdout, wrapped at 79 columns at its blanks. */
void print_wrapped(const char *text);

/*
 * The one way readahead-ctl reports an error: "readahead-ctl VERB: TEXT" on
 * stderr, or "readahead-ctl: TEXT" when verb is NULL; the newline is added
 * here. TEXT is escaped as ra_fputs_people() does; printed with one write.
 */
void ctl_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
