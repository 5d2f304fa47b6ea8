/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Text that devices, mounts and users supply (model strings, labels, FUSE
 * mount points) is arbitrary bytes. Output for people escapes it as lsblk and
 * systemd do; JSON is always valid UTF-8. Pure functions over strings, and
 * writers to a FILE.
 */

/* The length (1 to 4) of the valid UTF-8 sequence at s, reading at most n
 * bytes, with its code point in *ret_cp; 0 for an invalid or cut sequence
 * (overlong forms and surrogates are invalid). */
size_t ra_utf8_decode(const char *s, size_t n, unsigned *ret_cp);

/* Whether s is text a one-line field carries as it is: not empty, valid
 * UTF-8, no control character (so no tab and no line break). */
bool ra_text_is_clean_field(const char *s);

/*
 * For people (tables, explain, apply): valid UTF-8 passes, but control
 * characters (C0, DEL, C1), invalid bytes, and a backslash before an 'x'
 * become \xHH, so nothing reaches the terminal as a control sequence and a
 * row stays one line. (The status table is libsmartcols', which escapes
 * and fits its cells itself.)
 */
void ra_fputs_people(FILE *f, const char *s);

/*
 * A JSON string with its quotes. Always valid UTF-8: control characters
 * (C0, DEL, C1) become \u00XX; each byte that is not part of valid UTF-8
 * becomes U+FFFD (the replacement character).
 */
void ra_fputs_json(FILE *f, const char *s);

/*
 * A device's labels in the Prometheus text exposition format,
 * {device="...",kind="...",class="..."}: values escape backslash, double
 * quote and newline (the format's only escapes) and are UTF-8, an invalid
 * byte (a mount point can hold any) becoming U+FFFD, as in JSON. status's
 * gauges and advise's (advise-prometheus.h).
 */
void ra_fputs_prometheus_labels(FILE *f, const char *device, const char *kind, const char *class);

/* The same JSON string, handed to put() in pieces: for a JSON library's
 * buffer (readahead-ctl's json-c strings). */
typedef void (*ra_put_fn)(const char *bytes, size_t n, void *userdata);
void ra_json_quote(const char *s, ra_put_fn put, void *userdata);

/* Drops an incomplete UTF-8 sequence from the end of s: what a buffer cut
 * in the middle of a character leaves. */
void ra_utf8_trim_cut(char *s);

/*
 * snprintf(dst, size, "%s%s...", ...) without printf, for paths and messages
 * built on every event: the strings up to the NULL one after another, cut
 * after size - 1 bytes (size > 0) and always terminated. True when all fit.
 */
bool ra_str_join(char *dst, size_t size, ...) __attribute__((sentinel));

/* v in decimal, in buf (RA_U64_TEXT bytes), for ra_str_join(); returns buf. */
#define RA_U64_TEXT 21
const char *ra_u64_text(char buf[RA_U64_TEXT], uint64_t v);

/* A number's macro as a string literal: help texts state the defaults the code uses. */
#define RA_STRINGIFY(x) RA_STRINGIFY_LITERAL(x)
#define RA_STRINGIFY_LITERAL(x) #x

