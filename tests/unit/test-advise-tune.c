/* SPDX-License-Identifier: MIT */
/* Tune=yes (advise-tune.h): one case per guard rail, each on the window
 * sequence that would break it, and the states' file read back. A window
 * is ten minutes (600 s) unless a case says otherwise. */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise-tune.h"
#include "test-util.h"
#include "test.h"

#define BOOT "0f3c2f5c-2b6e-4c1f-9a57-7d0a4c1e2b33"
#define T0   1795000000

/* The lab's HDD model under the default profile: 512K, within 32K..16M; a
 * case that starts elsewhere sets the profile's value there. */
static struct ra_tune_bounds bounds = { .target_kb = 512, .low_kb = 32, .high_kb = 16384, .page_kb = 4 };

static struct ra_advice advice(enum ra_advice_kind kind, uint64_t kb, double mib_per_s) {
        struct ra_advice v = { .kind = kind, .suggested_kb = kb, .read_bytes_per_s = mib_per_s * (1 << 20) };
        snprintf(v.reason, sizeof(v.reason), "the lab's reason");
        return v;
}

static struct ra_advice faults(enum ra_advice_kind kind, uint64_t kb, double per_s) {
        struct ra_advice v = advice(kind, kb, per_s * kb / 1024.0);
        v.majfaults_per_s = per_s;
        v.fault_share = 0.9;
        return v;
}

/* One window at t; the action, and *kb what it wrote (0 for none). */
static enum ra_tune_action window(struct ra_tune_state *s, uint64_t current_kb, struct ra_advice v, int64_t t,
                                  uint64_t *kb) {
        char why[512];
        *kb = 0;
        return ra_tune_window(s, &bounds, current_kb, &v, t, BOOT, kb, why, sizeof(why));
}

/* One stream at 128K raised to 512K, then 2M, then kept: one step (of the
 * advice's size) a window, and nothing at the bound. */
static void test_one_step_a_window_within_bounds(void) {
        struct ra_tune_state s = {};
        const struct ra_tune_bounds narrow = { .target_kb = 128, .low_kb = 64, .high_kb = 1024, .page_kb = 4 };
        uint64_t kb = 0;
        char why[512];

        struct ra_advice v = advice(RA_ADVICE_RAISE, 512, 15);
        CHECK_INT(RA_TUNE_WRITE, ra_tune_window(&s, &narrow, 128, &v, T0, BOOT, &kb, why, sizeof(why)));
        CHECK_U64(512, kb);
        /* advise asks for 2M: Maximum= 1M is the most */
        v = advice(RA_ADVICE_RAISE, 2048, 40);
        CHECK_INT(RA_TUNE_WRITE, ra_tune_window(&s, &narrow, 512, &v, T0 + 600, BOOT, &kb, why, sizeof(why)));
        CHECK_U64(1024, kb);
        /* at the bound: nothing to do, and it says so */
        v = advice(RA_ADVICE_RAISE, 4096, 45);
        CHECK_INT(RA_TUNE_NONE, ra_tune_window(&s, &narrow, 1024, &v, T0 + 1200, BOOT, &kb, why, sizeof(why)));
        CHECK_CONTAINS(why, "bound");
        /* a lower below Minimum= stops there */
        struct ra_tune_state low = {};
        v = faults(RA_ADVICE_LOWER, 32, 20);
        CHECK_INT(RA_TUNE_WRITE, ra_tune_window(&low, &narrow, 128, &v, T0, BOOT, &kb, why, sizeof(why)));
        CHECK_U64(64, kb);
        /* keep and no signal change nothing */
        v = advice(RA_ADVICE_KEEP, 1024, 45);
        CHECK_INT(RA_TUNE_NONE, ra_tune_window(&s, &narrow, 1024, &v, T0 + 1800, BOOT, &kb, why, sizeof(why)));
        v = advice(RA_ADVICE_NO_SIGNAL, 1024, 0);
        CHECK_INT(RA_TUNE_NONE, ra_tune_window(&s, &narrow, 1024, &v, T0 + 2400, BOOT, &kb, why, sizeof(why)));
        /* the bounds of a rule, the caps: ra_tune_bounds_of() */
        struct ra_profile p = { .minimum_kb = 16, .maximum_kb = 8192 };
        struct ra_rule r = { .tune = true, .min_kb = 64, .max_kb = 16384 };
        struct ra_decision d = { .rule = &r, .target_kb = 512, .memory_cap_kb = 4096 };
        struct ra_tune_bounds b;
        CHECK(ra_tune_bounds_of(&p, &d, 4, &b));
        CHECK_U64(64, b.low_kb);
        CHECK_U64(4096, b.high_kb); /* the memory cap below the profile's 8M below the rule's 16M */
        d.device_cap_kb = 256;
        CHECK(ra_tune_bounds_of(&p, &d, 4, &b));
        CHECK_U64(256, b.high_kb);
        r.tune = false;
        CHECK(!ra_tune_bounds_of(&p, &d, 4, &b));
        r.tune = true;
        d.keep = true;
        CHECK(!ra_tune_bounds_of(&p, &d, 4, &b));
}

/* A raise, then advise asks to lower at once: held for the windows the
 * step is judged in, allowed after. */
static void test_no_reversal_within_windows(void) {
        struct ra_tune_state s = {};
        uint64_t kb;

        CHECK_INT(RA_TUNE_WRITE, window(&s, 512, advice(RA_ADVICE_RAISE, 2048, 30), T0, &kb));
        for (int w = 1; w < RA_TUNE_JUDGE_WINDOWS; w++)
                CHECK_INT(RA_TUNE_HOLD, window(&s, 2048, advice(RA_ADVICE_LOWER, 512, 31), T0 + 600 * w, &kb));
        CHECK_INT(RA_TUNE_WRITE,
                  window(&s, 2048, advice(RA_ADVICE_LOWER, 512, 31), T0 + 600 * RA_TUNE_JUDGE_WINDOWS, &kb));
        CHECK_U64(512, kb);
        /* the same direction again is no reversal */
        struct ra_tune_state up = {};
        bounds.target_kb = 128;
        CHECK_INT(RA_TUNE_WRITE, window(&up, 128, advice(RA_ADVICE_RAISE, 512, 15), T0, &kb));
        CHECK_INT(RA_TUNE_WRITE, window(&up, 512, advice(RA_ADVICE_RAISE, 2048, 40), T0 + 600, &kb));
}

/* A raise after which the reads a second fell by more than RA_TUNE_WORSE:
 * not judged in the first window after it (that window still reads files
 * opened before the step), back to the value before after the second and
 * third, once, and not there again within the hour. */
static void test_worse_goes_back(void) {
        struct ra_tune_state s = {};
        uint64_t kb;

        bounds.target_kb = 512;
        CHECK_INT(RA_TUNE_WRITE, window(&s, 512, advice(RA_ADVICE_RAISE, 2048, 40), T0, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&s, 2048, advice(RA_ADVICE_KEEP, 2048, 30), T0 + 600, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&s, 2048, advice(RA_ADVICE_KEEP, 2048, 30), T0 + 1200, &kb));
        CHECK_INT(RA_TUNE_WRITE, window(&s, 2048, advice(RA_ADVICE_KEEP, 2048, 30), T0 + 1800, &kb));
        CHECK_U64(512, kb);
        CHECK(s.stepped_back);
        CHECK_CONTAINS(s.reason, "worse");
        /* back at 512K and worse again: a step back is not itself taken back */
        for (int w = 4; w <= 6; w++)
                CHECK_INT(RA_TUNE_NONE, window(&s, 512, advice(RA_ADVICE_KEEP, 512, 10), T0 + 600 * w, &kb));
        /* advise asks for 2M again within the hour: held */
        CHECK_INT(RA_TUNE_HOLD, window(&s, 512, advice(RA_ADVICE_RAISE, 2048, 40), T0 + 4200, &kb));
        /* after it, allowed */
        CHECK_INT(RA_TUNE_WRITE, window(&s, 512, advice(RA_ADVICE_RAISE, 2048, 40), T0 + 1800 + 3600 + 60, &kb));
        /* within RA_TUNE_WORSE is noise, not worse */
        struct ra_tune_state n = {};
        CHECK_INT(RA_TUNE_WRITE, window(&n, 512, advice(RA_ADVICE_RAISE, 2048, 40), T0, &kb));
        for (int w = 1; w <= RA_TUNE_JUDGE_WINDOWS; w++)
                CHECK_INT(RA_TUNE_NONE, window(&n, 2048, advice(RA_ADVICE_KEEP, 2048, 37), T0 + 600 * w, &kb));
        /* a lower for faults is judged by the faults served a second; worse
         * in one window only is noise (the trixie guest's 64K: 30.2 faults
         * a second against 34.2 at 256K, then as many) */
        struct ra_tune_state f = {};
        bounds.target_kb = 4096;
        CHECK_INT(RA_TUNE_WRITE, window(&f, 4096, faults(RA_ADVICE_LOWER, 1024, 22), T0, &kb));
        CHECK_INT(RA_TUNE_WRITE, window(&f, 1024, faults(RA_ADVICE_LOWER, 256, 60), T0 + 600, &kb));
        struct ra_tune_state once = f;
        CHECK_INT(RA_TUNE_NONE, window(&f, 256, faults(RA_ADVICE_KEEP, 256, 30), T0 + 1200, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&f, 256, faults(RA_ADVICE_KEEP, 256, 30), T0 + 1800, &kb));
        CHECK_INT(RA_TUNE_WRITE, window(&f, 256, faults(RA_ADVICE_KEEP, 256, 30), T0 + 2400, &kb));
        CHECK_U64(1024, kb);
        CHECK_INT(RA_TUNE_NONE, window(&once, 256, faults(RA_ADVICE_KEEP, 256, 61), T0 + 1200, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&once, 256, faults(RA_ADVICE_KEEP, 256, 30), T0 + 1800, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&once, 256, faults(RA_ADVICE_KEEP, 256, 59), T0 + 2400, &kb));
        for (int w = 5; w <= 8; w++)
                CHECK_INT(RA_TUNE_NONE, window(&once, 256, faults(RA_ADVICE_KEEP, 256, 30), T0 + 600 * w, &kb));
        CHECK_U64(256, once.tuned_kb);
        /* a lower of readahead thrown away is judged by the share of reads
         * kept, not the bytes a second, which count the waste of the larger
         * value (the lab's 32 streams in 48 MiB: 2560K read 47 MB/s with 14%
         * refaults, 640K 36 MB/s with 2%) */
        struct ra_tune_state t = {};
        struct ra_advice thrash = advice(RA_ADVICE_LOWER, 640, 44.7);
        thrash.refault_share = 0.14;
        struct ra_advice after = advice(RA_ADVICE_KEEP, 640, 34.3);
        after.refault_share = 0.02;
        bounds.target_kb = 2560;
        CHECK_INT(RA_TUNE_WRITE, window(&t, 2560, thrash, T0, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&t, 640, after, T0 + 600, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&t, 640, after, T0 + 1200, &kb));
        /* the same lower that left more refaulted: back */
        after.refault_share = 0.30;
        struct ra_tune_state u = {};
        CHECK_INT(RA_TUNE_WRITE, window(&u, 2560, thrash, T0, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&u, 640, after, T0 + 600, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&u, 640, after, T0 + 1200, &kb));
        CHECK_INT(RA_TUNE_WRITE, window(&u, 640, after, T0 + 1800, &kb));
        CHECK_U64(2560, kb);
        bounds.target_kb = 512;
}

/* The lab's 32 streams in 48 MiB at 2560K, lowered to 640K on 26% of
 * refaults in s's first window (T0); that window's advice. */
static struct ra_advice thrash_lowered(struct ra_tune_state *s) {
        struct ra_advice thrash = advice(RA_ADVICE_LOWER, 640, 44.7);
        uint64_t kb;

        bounds.target_kb = 2560;
        thrash.refault_share = 0.26;
        CHECK_INT(RA_TUNE_WRITE, window(s, 2560, thrash, T0, &kb));
        CHECK_U64(640, kb);
        return thrash;
}

/* A lower of readahead thrown away, then the next window's refaults ask
 * for another: held (they still count what the larger value read), taken
 * in the window after if they are RA_TUNE_THRASH_AGAIN_SHARE_MIN or more.
 * A lower for faults waits for nothing. */
static void test_thrashing_lower_waits_a_window(void) {
        struct ra_tune_state s = {};
        uint64_t kb;

        struct ra_advice thrash = thrash_lowered(&s);
        thrash.suggested_kb = 160;
        CHECK_INT(RA_TUNE_HOLD, window(&s, 640, thrash, T0 + 600, &kb));
        CHECK_U64(0, kb);
        CHECK_INT(RA_TUNE_WRITE, window(&s, 640, thrash, T0 + 1200, &kb));
        CHECK_U64(160, kb);
        /* ...but not on the refaults a value near the best still has (the
         * trixie guest's 640K: 12%, reclaim 63%, memory stalls 1.8%) */
        struct ra_tune_state m = {};
        thrash = thrash_lowered(&m);
        thrash.refault_share = 0.12;
        thrash.suggested_kb = 160;
        CHECK_INT(RA_TUNE_HOLD, window(&m, 640, thrash, T0 + 600, &kb));
        for (int w = 2; w <= 8; w++)
                CHECK_INT(RA_TUNE_HOLD, window(&m, 640, thrash, T0 + 600 * w, &kb));
        CHECK_U64(640, m.tuned_kb);
        /* faults: one step a window */
        struct ra_tune_state f = {};
        bounds.target_kb = 4096;
        CHECK_INT(RA_TUNE_WRITE, window(&f, 4096, faults(RA_ADVICE_LOWER, 1024, 22), T0, &kb));
        CHECK_INT(RA_TUNE_WRITE, window(&f, 1024, faults(RA_ADVICE_LOWER, 256, 60), T0 + 600, &kb));
        CHECK_U64(256, kb);
        bounds.target_kb = 512;
}

/* A raise after a lower of readahead thrown away: none within
 * RA_TUNE_RAISE_AFTER_THRASH_SEC, however many windows advise it, and then
 * only on raise advice in RA_TUNE_RAISE_AFTER_THRASH_WINDOWS windows
 * running: the lab's 32 streams, lowered 2560K -> 640K, were raised to
 * 1280K, where they refault 14%, on one window without refaults and on two. */
static void test_raise_after_thrash_waits(void) {
        struct ra_tune_state s = {};
        uint64_t kb;
        char why[512];

        thrash_lowered(&s);
        struct ra_advice keep = advice(RA_ADVICE_KEEP, 640, 50), raise = advice(RA_ADVICE_RAISE, 1280, 50);
        CHECK_INT(RA_TUNE_NONE, window(&s, 640, keep, T0 + 600, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&s, 640, keep, T0 + 1200, &kb));
        /* past the reversal rail, raise in windows running: the hour holds */
        for (int w = 3; w < 6; w++)
                CHECK_INT(RA_TUNE_HOLD, window(&s, 640, raise, T0 + 600 * w, &kb));
        CHECK_INT(RA_TUNE_HOLD, ra_tune_window(&s, &bounds, 640, &raise, T0 + 3599, BOOT, &kb, why, sizeof(why)));
        CHECK_CONTAINS(why, "2560K threw readahead away");
        CHECK_CONTAINS(why, "waits 60 minutes");
        CHECK_U64(640, s.tuned_kb);
        /* past the hour: one window of raise, keep, one again */
        CHECK_INT(RA_TUNE_NONE, window(&s, 640, keep, T0 + 3600, &kb));
        CHECK_INT(RA_TUNE_HOLD, window(&s, 640, raise, T0 + 4200, &kb));
        CHECK_INT(RA_TUNE_NONE, window(&s, 640, keep, T0 + 4800, &kb));
        CHECK_INT(RA_TUNE_HOLD, window(&s, 640, raise, T0 + 5400, &kb));
        CHECK_U64(640, s.tuned_kb);
        CHECK_INT(RA_TUNE_WRITE, window(&s, 640, raise, T0 + 6000, &kb));
        CHECK_U64(1280, kb);
        /* after a lower for random page faults, a raise needs one window
         * (a workload that turns to a stream is followed at once) */
        struct ra_tune_state f = {};
        bounds.target_kb = 4096;
        CHECK_INT(RA_TUNE_WRITE, window(&f, 4096, faults(RA_ADVICE_LOWER, 1024, 22), T0, &kb));
        for (int w = 1; w <= 2; w++)
                CHECK_INT(RA_TUNE_NONE, window(&f, 1024, faults(RA_ADVICE_KEEP, 1024, 60), T0 + 600 * w, &kb));
        CHECK_INT(RA_TUNE_WRITE, window(&f, 1024, advice(RA_ADVICE_RAISE, 4096, 50), T0 + 1800, &kb));
        CHECK_U64(4096, kb);
        bounds.target_kb = 512;
}

/* Advice that alternates as fast as the other rails allow: at most
 * RA_TUNE_CHANGES_PER_HOUR changes an hour. */
static void test_changes_per_hour(void) {
        struct ra_tune_state s = {};
        uint64_t kb, current = 512;
        unsigned writes = 0;

        /* a window a minute for an hour, advise raising and lowering by turns
         * of four windows */
        for (int w = 0; w < 60; w++) {
                bool up = (w / 4) % 2 == 0;
                struct ra_advice v = up ? advice(RA_ADVICE_RAISE, current * 4, 40)
                                        : advice(RA_ADVICE_LOWER, current / 4, 40);
                if (window(&s, current, v, T0 + 60 * w, &kb) == RA_TUNE_WRITE) {
                        current = kb;
                        writes++;
                }
        }
        CHECK_INT(RA_TUNE_CHANGES_PER_HOUR, (int) writes);
        /* the next hour allows more */
        CHECK_INT(RA_TUNE_WRITE, window(&s, current, advice(RA_ADVICE_RAISE, current * 4, 40), T0 + 7200, &kb));
}

/* A write by someone else: kept, until apply puts the profile's value back
 * (tuning starts again there) or the next boot. */
static void test_hand_write_is_kept(void) {
        struct ra_tune_state s = {};
        uint64_t kb;
        char why[512];

        CHECK_INT(RA_TUNE_WRITE, window(&s, 512, advice(RA_ADVICE_RAISE, 2048, 40), T0, &kb));
        /* the administrator writes 8M */
        CHECK_INT(RA_TUNE_HOLD, window(&s, 8192, advice(RA_ADVICE_LOWER, 2048, 40), T0 + 600, &kb));
        CHECK_U64(8192, s.hand_kb);
        for (int w = 2; w < 10; w++)
                CHECK_INT(RA_TUNE_HOLD, window(&s, 8192, advice(RA_ADVICE_LOWER, 2048, 40), T0 + 600 * w, &kb));
        /* apply puts 512K back: tuning again, from there */
        CHECK_INT(RA_TUNE_WRITE, window(&s, 512, advice(RA_ADVICE_RAISE, 2048, 40), T0 + 6000, &kb));
        CHECK_U64(2048, kb);
        CHECK_U64(0, s.hand_kb);
        /* another hand write, then a new boot: tuning again */
        CHECK_INT(RA_TUNE_HOLD, window(&s, 256, advice(RA_ADVICE_RAISE, 1024, 40), T0 + 9000, &kb));
        struct ra_advice v = advice(RA_ADVICE_RAISE, 1024, 40);
        CHECK_INT(RA_TUNE_HOLD, ra_tune_window(&s, &bounds, 256, &v, T0 + 9600, BOOT, &kb, why, sizeof(why)));
        CHECK_CONTAINS(why, "next boot or readahead-ctl apply");
        CHECK_INT(RA_TUNE_HOLD, ra_tune_window(&s, &bounds, 256, &v, T0 + 20000, "new-boot", &kb, why, sizeof(why)));
        /* (the new boot forgot the old hand value, but 256K is still not the
         * profile's 512K: someone else's again, this boot's); once the
         * profile's value is back, tuning goes on */
        CHECK_STR("new-boot", s.boot_id);
        CHECK_INT(RA_TUNE_WRITE, ra_tune_window(&s, &bounds, 512, &v, T0 + 20600, "new-boot", &kb, why, sizeof(why)));
        CHECK_U64(1024, kb);
}

/* The value an event writes: the tuned one while in bounds. */
static void test_value(void) {
        struct ra_tune_state s = { .tuned_kb = 2048, .direction = 1 };
        CHECK_U64(2048, ra_tune_value(&s, &bounds));
        CHECK_U64(512, ra_tune_value(NULL, &bounds));
        const struct ra_tune_bounds lower = { .target_kb = 512, .low_kb = 32, .high_kb = 1024, .page_kb = 4 };
        CHECK_U64(512, ra_tune_value(&s, &lower)); /* Maximum= was lowered since */
}

/* The file: what is saved is read back; lines out of bounds are skipped. */
static void test_file(void) {
        char root[PATH_MAX], path[PATH_MAX + 64];
        const char *tmp = getenv("TMPDIR");
        snprintf(root, sizeof(root), "%s/ra-unit-tune.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        REQUIRE(mkdtemp(root));
        struct ra_tune_state s[2] = {}, *got = NULL;
        size_t n = 0;
        uint64_t kb;

        snprintf(s[0].key, sizeof(s[0].key), "ID_SERIAL=WDC_1234");
        CHECK_INT(RA_TUNE_WRITE, window(&s[0], 512, advice(RA_ADVICE_RAISE, 2048, 40), T0, &kb));
        snprintf(s[1].key, sizeof(s[1].key), "name=loop0,size=68719476736");
        CHECK_INT(RA_TUNE_HOLD, window(&s[1], 64, advice(RA_ADVICE_RAISE, 2048, 40), T0, &kb));
        int lock = ra_tune_lock(root);
        CHECK(lock >= 0);
        CHECK_INT(0, ra_tune_states_save(root, s, 2));
        ra_tune_unlock(lock);
        CHECK_INT(0, ra_tune_states_load(root, &got, &n));
        CHECK_INT(2, (int) n);
        CHECK_STR("ID_SERIAL=WDC_1234", got[0].key);
        CHECK_U64(2048, got[0].tuned_kb);
        CHECK_U64(512, got[0].previous_kb);
        CHECK_INT(1, got[0].direction);
        CHECK_INT(T0, (int) got[0].recent[0]);
        CHECK_STR("the lab's reason", got[0].reason);
        CHECK_U64(64, got[1].hand_kb);
        CHECK_STR(BOOT, got[1].boot_id);
        free(got);
        /* apply forgets one device */
        const char *keys[] = { "ID_SERIAL=WDC_1234" };
        CHECK_INT(0, ra_tune_states_forget(root, keys, 1));
        CHECK_INT(0, ra_tune_states_load(root, &got, &n));
        CHECK_INT(1, (int) n);
        CHECK_STR("name=loop0,size=68719476736", got[0].key);
        free(got);
        /* a file of lines the agent does not write: each skipped */
        snprintf(path, sizeof(path), "%s/var/lib/readahead-agent/tune", root);
        static const char lines[] = "k\t99999999\t0\t1\t0\t0\t0\t1\t1\t0,0,0,0\t0\t0\t0\t-\tr\t0\t0\n" /* KiB too large */
                              "k\t512\t128\t2\t0\t0\t0\t1\t1\t0,0,0,0\t0\t0\t0\t-\tr\t0\t0\n"          /* direction */
                              "k\t512\t128\t1\t0\t0\t0\t1\tnan\t0,0,0,0\t0\t0\t0\t-\tr\t0\t0\n"        /* measure */
                              "k\t0\t0\t0\t0\t0\t0\t0\t0\t0,0,0,0\t0\t0\t64\t-\tr\t0\t0\n"             /* hand, no boot */
                              "k\t512\t128\t1\t0\t0\t0\t1\t1\t0,0,0,0,0\t0\t0\t0\t-\tr\t0\t0\n"        /* 5 times */
                              "k\t512\t128\t1\t0\t0\t0\t1\t1\t0,0,0,0\t0\t0\t0\tXYZ\tr\t0\t0\n"        /* boot id */
                              "k\t512\t128\t1\t0\t0\t0\t1\t1\t0,0,0,0\t0\t0\t0\t-\tr\t9\t0\n"          /* worse windows */
                              "k\t512\t128\t1\t0\t0\t0\t1\t1\t0,0,0,0\t0\t0\t0\t-\tr\t0\t4\n"          /* raise windows */
                              "k\t512\t128\t1\t0\t0\t0\t1\t1\t0,0,0,0\t0\t0\t0\t-\tr\t0\n"             /* 16 fields */
                              "k\t512\t128\t1\t0\t0\t0\t1\t1\t0,0,0,0\t0\t0\t0\t-\tgood\t1\t2\n";
        test_write_bytes(path, lines, sizeof(lines) - 1);
        CHECK_INT(0, ra_tune_states_load(root, &got, &n));
        CHECK_INT(1, (int) n);
        CHECK_STR("good", got[0].reason);
        CHECK_INT(1, (int) got[0].worse_windows);
        CHECK_INT(2, (int) got[0].raise_windows);
        free(got);
        /* not a regular file: refused */
        CHECK(unlink(path) == 0);
        CHECK(symlink("/etc/passwd", path) == 0);
        CHECK(ra_tune_states_load(root, &got, &n) < 0);
        CHECK_INT(0, (int) n);
        /* a FIFO: refused at once, never waited on */
        CHECK(unlink(path) == 0);
        CHECK(mkfifo(path, 0644) == 0);
        CHECK_INT(-EBADFD, ra_tune_states_load(root, &got, &n));
        /* over the bound */
        CHECK(unlink(path) == 0);
        test_write_bytes(path, "", 0);
        CHECK(truncate(path, RA_TUNE_STATE_BYTES_MAX + 1) == 0);
        CHECK_INT(-EFBIG, ra_tune_states_load(root, &got, &n));
        CHECK_INT(0, (int) n);
        test_rm_rf(root);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_one_step_a_window_within_bounds);
        RUN(test_no_reversal_within_windows);
        RUN(test_worse_goes_back);
        RUN(test_thrashing_lower_waits_a_window);
        RUN(test_raise_after_thrash_waits);
        RUN(test_changes_per_hour);
        RUN(test_hand_write_is_kept);
        RUN(test_value);
        RUN(test_file);
        TEST_MAIN_END;
}
