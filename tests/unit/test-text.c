/* SPDX-License-Identifier: MIT */
/* Escaping for people and for JSON: control characters, invalid UTF-8. */

#include "test.h"
#include "text.h"

/* What ra_fputs_people() writes for s. */
static char *people(const char *s) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                abort();
        ra_fputs_people(f, s);
        fclose(f);
        return buf;
}

static char *json(const char *s) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                abort();
        ra_fputs_json(f, s);
        fclose(f);
        return buf;
}

#define CHECK_PEOPLE(expected, s)                                                       \
        do {                                                                            \
                char *o_ = people(s);                                     \
                CHECK_STR((expected), o_);                                              \
                free(o_);                                                               \
        } while (0)

#define CHECK_JSON(expected, s)                                                         \
        do {                                                                            \
                char *o_ = json(s);                                                     \
                CHECK_STR((expected), o_);                                              \
                free(o_);                                                               \
        } while (0)

static void test_people_escapes(void) {
        CHECK_PEOPLE("/mnt/data", "/mnt/data");
        /* OSC title, a newline, a tab, DEL: \xHH like lsblk and systemd. */
        CHECK_PEOPLE("\\x1b]0;owned\\x07", "\x1b]0;owned\x07");
        CHECK_PEOPLE("a\\x0ab\\x09c\\x7f", "a\nb\tc\x7f");
        /* C1 CSI (U+009B) is two bytes of valid UTF-8, and a control. */
        CHECK_PEOPLE("\\xc2\\x9b2J", "\xc2\x9b" "2J");
        /* Invalid bytes one by one; valid UTF-8 around them stays. */
        CHECK_PEOPLE("\\xff\xe9\x95\xbf\\xfe", "\xff\xe9\x95\xbf\xfe");
        /* A cut sequence, an overlong '/', a surrogate. */
        CHECK_PEOPLE("x\\xe9\\x95", "x\xe9\x95");
        CHECK_PEOPLE("\\xc0\\xaf", "\xc0\xaf");
        CHECK_PEOPLE("\\xed\\xa0\\x80", "\xed\xa0\x80");
        /* A backslash that would read as an escape is escaped itself. */
        CHECK_PEOPLE("C:\\Users \\x5cx41", "C:\\Users \\x41");
        CHECK_PEOPLE("\xd0\x96\xd0\x96", "\xd0\x96\xd0\x96"); /* Cyrillic */
}

static void test_json_always_utf8(void) {
        CHECK_JSON("\"/mnt/data\"", "/mnt/data");
        CHECK_JSON("\"a\\\"b\\\\c\"", "a\"b\\c");
        CHECK_JSON("\"\\u001b]0;owned\\u0007\\u000a\"", "\x1b]0;owned\x07\n");
        CHECK_JSON("\"\\u009b2J\\u007f\"", "\xc2\x9b" "2J\x7f");
        /* Each invalid byte becomes U+FFFD; valid characters stay. */
        CHECK_JSON("\"\xef\xbf\xbd\xe9\x95\xbf\xef\xbf\xbd\"", "\xff\xe9\x95\xbf\xfe");
        CHECK_JSON("\"x\xef\xbf\xbd\xef\xbf\xbd\"", "x\xe9\x95");
}

static void test_trim_cut(void) {
        char s[16];

        strcpy(s, "ab\xd0\x96\xd0");
        ra_utf8_trim_cut(s);
        CHECK_STR("ab\xd0\x96", s);
        strcpy(s, "ab\xe9\x95");
        ra_utf8_trim_cut(s);
        CHECK_STR("ab", s);
        strcpy(s, "ab\xe9\x95\xbf");
        ra_utf8_trim_cut(s);
        CHECK_STR("ab\xe9\x95\xbf", s);
        strcpy(s, "plain");
        ra_utf8_trim_cut(s);
        CHECK_STR("plain", s);
        s[0] = 0;
        ra_utf8_trim_cut(s);
        CHECK_STR("", s);
}

/* ra_str_join() cuts and terminates exactly as snprintf("%s%s...") does. */
static void test_str_join(void) {
        char s[8], ref[8];

        CHECK(ra_str_join(s, sizeof(s), "ab", "/", "cd", NULL));
        CHECK_STR("ab/cd", s);
        CHECK(ra_str_join(s, sizeof(s), "abc", "defg", NULL)); /* 7 bytes: just fits */
        CHECK_STR("abcdefg", s);
        CHECK(!ra_str_join(s, sizeof(s), "abcd", "efgh", "ij", NULL));
        snprintf(ref, sizeof(ref), "%s%s%s", "abcd", "efgh", "ij");
        CHECK_STR(ref, s);
        CHECK_STR("abcdefg", s);
        CHECK(!ra_str_join(s, sizeof(s), "abcdefgh", NULL));
        CHECK_STR("abcdefg", s);
        CHECK(ra_str_join(s, sizeof(s), "", NULL));
        CHECK_STR("", s);
        CHECK(!ra_str_join(s, 1, "x", NULL));
        CHECK_STR("", s);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_people_escapes);
        RUN(test_json_always_utf8);
        RUN(test_trim_cut);
        RUN(test_str_join);
        TEST_MAIN_END;
}
