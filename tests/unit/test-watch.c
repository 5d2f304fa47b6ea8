/* SPDX-License-Identifier: MIT */
/*
 * readahead-agent --watch's pure parts: which udev events it acts on (the
 * udev rule's guards, for events that reach it without the rule), its
 * --check-sec, the poll timeout until the next check, and when the
 * liveness probe calls a loop hung.
 */

#include "test.h"
#include "watch.h"

static void test_classify_block(void)
{
        CHECK_INT(WATCH_BLOCK, watch_classify("block", "disk", "add"));
        CHECK_INT(WATCH_BLOCK, watch_classify("block", "disk", "change"));
        /* Partitions share the disk's queue; a removed disk has nothing to set. */
        CHECK_INT(WATCH_IGNORE, watch_classify("block", "partition", "add"));
        CHECK_INT(WATCH_IGNORE, watch_classify("block", "disk", "remove"));
        CHECK_INT(WATCH_IGNORE, watch_classify("block", "disk", "bind"));
        CHECK_INT(WATCH_IGNORE, watch_classify("block", NULL, "add"));
        CHECK_INT(WATCH_IGNORE, watch_classify(NULL, "disk", "add"));
        CHECK_INT(WATCH_IGNORE, watch_classify("block", "disk", NULL));
}

static void test_classify_bdi(void)
{
        /* Any bdi's add: its name is read only once the event's identity is
         * checked (handle_event()), which then keeps 0:N and btrfs-N. */
        CHECK_INT(WATCH_BDI, watch_classify("bdi", NULL, "add"));
        CHECK_INT(WATCH_IGNORE, watch_classify("bdi", NULL, "change"));
        CHECK_INT(WATCH_IGNORE, watch_classify("bdi", NULL, "remove"));
        CHECK_INT(WATCH_IGNORE, watch_classify("net", NULL, "add"));
}

static void test_check_sec(void)
{
        unsigned v = 7;

        CHECK_INT(0, watch_parse_check_sec("60", &v));
        CHECK_INT(60, v);
        CHECK_INT(0, watch_parse_check_sec("1", &v));
        CHECK_INT(1, v);
        CHECK_INT(0, watch_parse_check_sec("86400", &v));
        CHECK_INT(86400, v);
        v = 7;
        CHECK_INT(-EINVAL, watch_parse_check_sec("0", &v));
        CHECK_INT(-EINVAL, watch_parse_check_sec("86401", &v));
        CHECK_INT(-EINVAL, watch_parse_check_sec("-5", &v));
        CHECK_INT(-EINVAL, watch_parse_check_sec(" 5", &v));
        CHECK_INT(-EINVAL, watch_parse_check_sec("5s", &v));
        CHECK_INT(-EINVAL, watch_parse_check_sec("", &v));
        CHECK_INT(-EINVAL, watch_parse_check_sec("99999999999999999999", &v));
        CHECK_INT(-EINVAL, watch_parse_check_sec(NULL, &v));
        /* Written only on success. */
        CHECK_INT(7, v);
}

static void test_poll_timeout(void)
{
        CHECK_INT(1500, watch_poll_timeout_ms(1000, 2500));
        CHECK_INT(0, watch_poll_timeout_ms(2500, 2500));
        CHECK_INT(0, watch_poll_timeout_ms(3000, 2500));
        CHECK_INT(2147483647, watch_poll_timeout_ms(0, UINT64_MAX));
}

/* Two periods and 20 s after the last check: a 60 s check is hung after 140 s. */
static void test_alive(void)
{
        CHECK_INT(true, watch_alive(1000000, 1000000, 60));
        CHECK_INT(true, watch_alive(1000000 + 140000, 1000000, 60));
        CHECK_INT(false, watch_alive(1000000 + 140001, 1000000, 60));
        /* The test's 2 s check: hung after 24 s. */
        CHECK_INT(true, watch_alive(24000, 0, 2));
        CHECK_INT(false, watch_alive(24001, 0, 2));
        /* A beat after now (the file of an earlier boot): not alive. */
        CHECK_INT(false, watch_alive(1000, 5000, 60));
        /* The longest period does not overflow. */
        CHECK_INT(true, watch_alive(UINT64_MAX, UINT64_MAX - 1000, WATCH_CHECK_SEC_MAX));
}

static void test_advise_sec(void)
{
        unsigned v = 7;
        CHECK_INT(0, watch_parse_advise_sec("5", &v));
        CHECK_INT(5, v);
        CHECK_INT(0, watch_parse_advise_sec("86400", &v));
        CHECK_INT(86400, v);
        v = 7;
        CHECK_INT(-EINVAL, watch_parse_advise_sec("0", &v));
        CHECK_INT(-EINVAL, watch_parse_advise_sec("86401", &v));
        CHECK_INT(-EINVAL, watch_parse_advise_sec("5s", &v));
        CHECK_INT(-EINVAL, watch_parse_advise_sec("", &v));
        CHECK_INT(-EINVAL, watch_parse_advise_sec(NULL, &v));
        CHECK_INT(7, v);
}

/* Off: no timeout, never due. A 3 s window: samples at 1, 2 and 3 s, the
 * last one ends it; a late sample skips the seconds it missed. */
static void test_advise_clock(void)
{
        struct advise_clock off = {};
        CHECK_INT(-1, advise_clock_timeout_ms(&off, 5000));
        CHECK_INT(false, advise_clock_due(&off, UINT64_MAX));

        struct advise_clock c = { .window_sec = 3 };
        advise_clock_start(&c, 10000);
        CHECK_INT(1000, advise_clock_timeout_ms(&c, 10000));
        CHECK_INT(false, advise_clock_due(&c, 10999));
        CHECK_INT(true, advise_clock_due(&c, 11000));
        CHECK_INT(false, advise_clock_sampled(&c, 11003));
        CHECK_INT(997, advise_clock_timeout_ms(&c, 11003));
        CHECK_INT(false, advise_clock_sampled(&c, 12000));
        CHECK_INT(13000, (int) c.next_ms);
        CHECK_INT(true, advise_clock_sampled(&c, 13001));

        /* late: at 2.5 s of a 10 s window, the next sample is at 3 s */
        advise_clock_start(&c, 0);
        c.window_sec = 10;
        CHECK_INT(false, advise_clock_sampled(&c, 2500));
        CHECK_INT(3000, (int) c.next_ms);
        /* never past the window's end */
        CHECK_INT(false, advise_clock_sampled(&c, 9999));
        CHECK_INT(10000, (int) c.next_ms);
        CHECK_INT(true, advise_clock_sampled(&c, 10000));
}

int main(void)
{
        TEST_MAIN_BEGIN;
        RUN(test_classify_block);
        RUN(test_classify_bdi);
        RUN(test_check_sec);
        RUN(test_poll_timeout);
        RUN(test_alive);
        RUN(test_advise_sec);
        RUN(test_advise_clock);
        TEST_MAIN_END;
}
