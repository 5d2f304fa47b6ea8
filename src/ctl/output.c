/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <json-c/printbuf.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "text.h"

static void put_printbuf(const char *bytes, size_t n, void *userdata) {
        printbuf_memappend(userdata, bytes, (int) n);
}

/* json-c passes the bytes of a string through as they are, invalid UTF-8
 * and C1 controls included: ours are written by our own escaper. */
static int serialize_string(struct json_object *o, struct printbuf *pb, int level, int flags) {
        (void) level;
        (void) flags;
        ra_json_quote(json_object_get_string(o), put_printbuf, pb);
        return 0;
}

/* Hands value (NULL: null) to the innermost open object, under key, or
 * array; the first value of all is the document. False when it was dropped. */
static bool add(struct json *j, const char *key, struct json_object *value) {
        int r;

        if (j->depth == 0) {
                r = j->root ? -EINVAL : 0;
                if (r == 0)
                        j->root = value;
        } else if (j->depth > JSON_DEPTH_MAX || !j->open[j->depth - 1])
                r = -EINVAL; /* inside a container that could not be made */
        else if (json_object_is_type(j->open[j->depth - 1], json_type_array))
                r = json_object_array_add(j->open[j->depth - 1], value);
        else
                r = json_object_object_add(j->open[j->depth - 1], key, value);
        if (r < 0) {
                json_object_put(value);
                j->failed = true;
                return false;
        }
        return true;
}

static void add_value(struct json *j, const char *key, struct json_object *value) {
        if (!value)
                j->failed = true; /* out of memory: not a null */
        else
                (void) add(j, key, value);
}

static void begin(struct json *j, const char *key, struct json_object *c) {
        /* c stays valid while its parent (or the root) holds it. */
        if (!c || !add(j, key, c)) {
                j->failed = true;
                c = NULL;
        }
        if (j->depth < JSON_DEPTH_MAX)
                j->open[j->depth] = c;
        else
                j->failed = true;
        j->depth++;
}

static void end(struct json *j) {
        if (j->depth > 0)
                j->depth--;
}

void json_begin_object(struct json *j, const char *key) {
        begin(j, key, json_object_new_object());
}

void json_end_object(struct json *j) {
        end(j);
}

void json_begin_array(struct json *j, const char *key) {
        begin(j, key, json_object_new_array());
}

void json_end_array(struct json *j) {
        end(j);
}

void json_string(struct json *j, const char *key, const char *value) {
        if (!value) {
                (void) add(j, key, NULL);
                return;
        }
        struct json_object *o = json_object_new_string(value);
        if (o)
                json_object_set_serializer(o, serialize_string, NULL, NULL);
        add_value(j, key, o);
}

void json_uint(struct json *j, const char *key, uint64_t value) {
        add_value(j, key, json_object_new_uint64(value));
}

void json_uint_or_null(struct json *j, const char *key, bool known, uint64_t value) {
        if (known)
                json_uint(j, key, value);
        else
                (void) add(j, key, NULL);
}

void json_double(struct json *j, const char *key, double value, int decimals) {
        char text[64];

        if (!isfinite(value)) {
                (void) add(j, key, NULL);
                return;
        }
        /* Printed as given, not with json-c's 17 significant digits. */
        snprintf(text, sizeof(text), "%.*f", decimals, value);
        add_value(j, key, json_object_new_double_s(value, text));
}

void json_boolean(struct json *j, const char *key, bool value) {
        add_value(j, key, json_object_new_boolean(value));
}

int json_finish(struct json *j) {
        int r = 0;

        if (j->failed || !j->root || j->depth != 0) {
                ctl_error(NULL, "cannot build the JSON output: out of memory");
                r = -ENOMEM;
        } else {
                const char *text = json_object_to_json_string_ext(
                        j->root,
                        JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
                if (text) {
                        fputs(text, j->f);
                        fputc('\n', j->f);
                } else {
                        ctl_error(NULL, "cannot print the JSON output: out of memory");
                        r = -ENOMEM;
                }
        }
        json_object_put(j->root);
        j->root = NULL;
        j->depth = 0;
        j->failed = false;
        return r;
}

/* fmt with ap in small (size bytes) when it fits, else in an allocation the
 * caller frees when the result is not small; cut to small when memory runs
 * out. NULL for a format error. errno is kept for a %m in fmt. */
static char *vformat(char *small, size_t size, const char *fmt, va_list ap) {
        va_list again;
        char *text = small;

        va_copy(again, ap);
        int n = vsnprintf(small, size, fmt, ap);
        if (n < 0)
                text = NULL;
        else if ((size_t) n >= size) {
                int saved = errno;
                char *big = malloc((size_t) n + 1);
                errno = saved;
                if (big) {
                        vsnprintf(big, (size_t) n + 1, fmt, again);
                        text = big;
                }
        }
        va_end(again);
        return text;
}

/* fmt with ap, printed as an error of verb (people: false) or escaped for
 * people (f, no prefix): the one formatting of both printers below. */
static void vprint(FILE *f, const char *fmt, va_list ap) {
        char small[512], *text = vformat(small, sizeof(small), fmt, ap);

        if (!text)
                return;
        ra_fputs_people(f, text); /* cut when memory ran out, but never raw */
        if (text != small)
                free(text);
}

void ctl_error(const char *verb, const char *fmt, ...) {
        char small[512], *text, *line = NULL;
        size_t len = 0;
        va_list ap;

        va_start(ap, fmt);
        text = vformat(small, sizeof(small), fmt, ap);
        va_end(ap);
        if (!text)
                return;
        /* Escaped as all output for people (a path or an argument may hold
         * anything), built whole so that stderr gets it in one write. */
        FILE *m = open_memstream(&line, &len);
        if (m) {
                fprintf(m, "readahead-ctl%s%s: ", verb ? " " : "", verb ? verb : "");
                ra_fputs_people(m, text);
                fputc('\n', m);
                if (fclose(m) == 0)
                        fwrite(line, 1, len, stderr);
                free(line);
        } else { /* out of memory: in pieces, never raw */
                fprintf(stderr, "readahead-ctl%s%s: ", verb ? " " : "", verb ? verb : "");
                ra_fputs_people(stderr, text);
                fputc('\n', stderr);
        }
        if (text != small)
                free(text);
}

void fprintf_people(FILE *f, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vprint(f, fmt, ap);
        va_end(ap);
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

/* A paragraph for people, wrapped at 79 columns. */
void print_wrapped(const char *text) {
        const int width = 79;
        int col = 0;

        while (*text) {
                size_t word = strcspn(text, " ");
                if (col > 0 && col + 1 + (int) word > width) {
                        putchar('\n');
                        col = 0;
                } else if (col > 0) {
                        putchar(' ');
                        col++;
                }
                fwrite(text, 1, word, stdout);
                col += (int) word;
                text += word;
                text += strspn(text, " ");
        }
        putchar('\n');
}
