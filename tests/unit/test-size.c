/* SPDX-License-Identifier: MIT */
/* ra_parse_size_kb, ra_format_size_kb, ra_parse_bool, ra_parse_uint. */

#include <errno.h>
#include <limits.h>

#include "size.h"
#include "test.h"

/* Parses s, expecting success and kb. */
#define OK(s, kb)                                                                       \
        do {                                                                            \
                uint64_t v_ = 0;                                                        \
                CHECK_INT(0, ra_parse_size_kb((s), &v_));                               \
                CHECK_U64((kb), v_);                                                    \
        } while (0)

/* Parses s, expecting err and the out-parameter left untouched. */
#define FAILS(s, err)                                                                   \
        do {                                                                            \
                uint64_t v_ = 777;                                                      \
                CHECK_INT((err), ra_parse_size_kb((s), &v_));                           \
                CHECK_U64(777, v_);                                                     \
        } while (0)

static void test_plain_kib(void) {
        OK("512", 512);
        OK("0", 0);
        OK("1", 1);
        OK("1234", 1234);
        OK("1048576", 1048576); /* exactly RA_SIZE_MAX_KB */
}

static void test_units(void) {
        OK("512K", 512);
        OK("512k", 512);
        OK("512KiB", 512);
        OK("4M", 4096);
        OK("4MiB", 4096);
        OK("1536K", 1536);
        OK("1G", 1048576);
        OK("1024M", 1048576);
        OK("32K", 32);
        OK("128M", 131072);
}

static void test_whitespace(void) {
        /* Surrounding whitespace is trimmed; inside a number it is not allowed. */
        OK(" 512", 512);
        OK("512 ", 512);
        OK("\t4M\n", 4096);
        FAILS("5 12", -EINVAL);
        FAILS("   ", -EINVAL);
}

static void test_malformed(void) {
        FAILS("", -EINVAL);
        FAILS("K", -EINVAL);
        FAILS("M", -EINVAL);
        FAILS("-1", -EINVAL);
        FAILS("-0", -EINVAL);
        FAILS("1.5M", -EINVAL);
        FAILS("12Q", -EINVAL);
        FAILS("512KK", -EINVAL);
        FAILS("0x200", -EINVAL);
        FAILS("4 M M", -EINVAL);
        FAILS("512Kb5", -EINVAL);
        FAILS("abc", -EINVAL);
}

static void test_range(void) {
        FAILS("1048577", -ERANGE); /* RA_SIZE_MAX_KB + 1 */
        FAILS("1025M", -ERANGE);
        FAILS("2G", -ERANGE);
        FAILS("99999999999999999999", -ERANGE); /* does not fit 64 bits */
        /* (2^54 + 1) MiB is 2^64 + 1024 KiB: wraps to 1024 if unchecked. */
        FAILS("18014398509481985M", -ERANGE);
        /* 2^44 GiB is exactly 2^64 KiB: wraps to 0 if unchecked. */
        FAILS("17592186044416G", -ERANGE);
        FAILS("18446744073709551615", -ERANGE);
        FAILS("18446744073709551616", -ERANGE);
}

static void test_format(void) {
        char buf[24];

        CHECK_STR("512K", ra_format_size_kb(512, buf));
        CHECK_STR("512K", buf);
        CHECK_STR("4M", ra_format_size_kb(4096, buf));
        CHECK_STR("1536K", ra_format_size_kb(1536, buf));
        CHECK_STR("3M", ra_format_size_kb(3072, buf));
        CHECK_STR("1M", ra_format_size_kb(1024, buf));
        CHECK_STR("1025K", ra_format_size_kb(1025, buf));
        CHECK_STR("1G", ra_format_size_kb(1048576, buf));
        CHECK_STR("32K", ra_format_size_kb(32, buf));
        CHECK_STR("4K", ra_format_size_kb(4, buf));
        /* The largest value still fits the buffer. */
        CHECK(strlen(ra_format_size_kb(UINT64_MAX, buf)) < sizeof(buf));
}

static void test_format_parses_back(void) {
        static const uint64_t values[] = { 4, 32, 512, 1000, 1024, 1536, 3072, 4096, 4608, 1048576 };
        char buf[24];

        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
                uint64_t v = 0;

                CHECK_INT(0, ra_parse_size_kb(ra_format_size_kb(values[i], buf), &v));
                CHECK_U64(values[i], v);
        }
}

static void test_bool(void) {
        static const char *const yes[] = { "yes", "true", "1", "on" };
        static const char *const no[] = { "no", "false", "0", "off" };
        bool b;

        for (size_t i = 0; i < 4; i++) {
                b = false;
                CHECK_INT(0, ra_parse_bool(yes[i], &b));
                CHECK(b == true);
                b = true;
                CHECK_INT(0, ra_parse_bool(no[i], &b));
                CHECK(b == false);
        }

        b = true;
        CHECK_INT(-EINVAL, ra_parse_bool("maybe", &b));
        CHECK(b == true);
        CHECK_INT(-EINVAL, ra_parse_bool("", &b));
        CHECK_INT(-EINVAL, ra_parse_bool("2", &b));
        CHECK_INT(-EINVAL, ra_parse_bool("yess", &b));
        CHECK(b == true);
}

/* ra_parse_uint: digits only, within [lo, hi]; the out-parameter is written
 * only on success. */
static void test_parse_uint(void) {
        unsigned v = 777;

        CHECK_INT(0, ra_parse_uint("5", 1, 9, &v));
        CHECK_INT(5, v);
        CHECK_INT(0, ra_parse_uint("0", 0, 0, &v));
        CHECK_INT(0, v);
        CHECK_INT(0, ra_parse_uint("4294967295", 0, UINT_MAX, &v));
        CHECK_U64(UINT_MAX, v);
        CHECK_INT(0, ra_parse_uint("007", 1, 9, &v));
        CHECK_INT(7, v);
        v = 777;
        CHECK_INT(-EINVAL, ra_parse_uint("+5", 1, 9, &v));
        CHECK_INT(-EINVAL, ra_parse_uint("-5", 0, 9, &v));
        CHECK_INT(-EINVAL, ra_parse_uint(" 5", 1, 9, &v));
        CHECK_INT(-EINVAL, ra_parse_uint("5 ", 1, 9, &v));
        CHECK_INT(-EINVAL, ra_parse_uint("5s", 1, 9, &v));
        CHECK_INT(-EINVAL, ra_parse_uint("0x5", 0, 9, &v));
        CHECK_INT(-EINVAL, ra_parse_uint("", 0, 9, &v));
        CHECK_INT(-EINVAL, ra_parse_uint(NULL, 0, 9, &v));
        CHECK_INT(-ERANGE, ra_parse_uint("0", 1, 9, &v));
        CHECK_INT(-ERANGE, ra_parse_uint("10", 1, 9, &v));
        CHECK_INT(-ERANGE, ra_parse_uint("4294967296", 0, UINT_MAX, &v));
        CHECK_INT(-ERANGE, ra_parse_uint("99999999999999999999999", 0, UINT_MAX, &v));
        CHECK_INT(777, v);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_plain_kib);
        RUN(test_units);
        RUN(test_whitespace);
        RUN(test_malformed);
        RUN(test_range);
        RUN(test_format);
        RUN(test_format_parses_back);
        RUN(test_bool);
        RUN(test_parse_uint);
        TEST_MAIN_END;
}
