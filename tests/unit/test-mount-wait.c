/* SPDX-License-Identifier: MIT */
/*
 * The mount waiter's loop with a fake clock and a fake mount table: the
 * mount appears late, never appears, the bdi goes away, the table cannot be
 * read. And the bounded child that waits for FUSE_INIT.
 */

#include <time.h>

#include "bounded.h"
#include "mount-wait.h"
#include "test.h"

#define NEVER UINT64_MAX

struct fake_table {
        uint64_t now_ms;
        uint64_t appears_at_ms; /* the mount is in the table from then on */
        uint64_t gone_at_ms;    /* the bdi is gone from then on */
        int error;              /* lookup fails with this, when not 0 */
        unsigned lookups;
        unsigned sleeps_ms[64];
        unsigned n_sleeps;
};

static uint64_t fake_now(void *userdata) {
        return ((struct fake_table *)userdata)->now_ms;
}

static int fake_lookup(void *userdata) {
        struct fake_table *t = userdata;

        t->lookups++;
        if (t->error)
                return t->error;
        if (t->now_ms >= t->gone_at_ms)
                return -ENODEV;
        return t->now_ms >= t->appears_at_ms ? 0 : -ENOENT;
}

static void fake_sleep(void *userdata, unsigned ms) {
        struct fake_table *t = userdata;

        if (t->n_sleeps < sizeof(t->sleeps_ms) / sizeof(t->sleeps_ms[0]))
                t->sleeps_ms[t->n_sleeps++] = ms;
        t->now_ms += ms;
}

static enum mount_wait_result run_wait(struct fake_table *t, unsigned timeout_sec, int *error) {
        const struct mount_wait_ops ops = {
                .now_ms = fake_now,
                .lookup = fake_lookup,
                .sleep = fake_sleep,
                .userdata = t,
        };
        return mount_wait(&ops, timeout_sec, error);
}

#define CHECK_SLEEPS(t, ...)                                                            \
        do {                                                                            \
                const unsigned want_[] = { __VA_ARGS__ };                               \
                const unsigned n_ = sizeof(want_) / sizeof(want_[0]);                   \
                CHECK_INT(n_, (t)->n_sleeps);                                           \
                for (unsigned i_ = 0; i_ < n_ && i_ < (t)->n_sleeps; i_++)              \
                        CHECK_INT(want_[i_], (t)->sleeps_ms[i_]);                       \
        } while (0)

static void test_mounted_already(void) {
        struct fake_table t = { .now_ms = 1000, .appears_at_ms = 0, .gone_at_ms = NEVER };

        CHECK_INT(MOUNT_WAIT_FOUND, run_wait(&t, 30, NULL));
        CHECK_INT(1, t.lookups);
        CHECK_INT(0, t.n_sleeps);
}

static void test_mount_appears_late(void) {
        struct fake_table t = { .now_ms = 1000, .appears_at_ms = 1300, .gone_at_ms = NEVER };

        CHECK_INT(MOUNT_WAIT_FOUND, run_wait(&t, 30, NULL));
        /* 50, 100, 200 ms: seen at 1350, the first look after 1300. */
        CHECK_SLEEPS(&t, 50, 100, 200);
        CHECK_INT(4, t.lookups);
        CHECK_U64(1350, t.now_ms);
}

static void test_mount_never_appears(void) {
        struct fake_table t = { .now_ms = 5000, .appears_at_ms = NEVER, .gone_at_ms = NEVER };

        CHECK_INT(MOUNT_WAIT_TIMEOUT, run_wait(&t, 2, NULL));
        /* Doubling from 50 ms, the last sleep cut to end at the deadline. */
        CHECK_SLEEPS(&t, 50, 100, 200, 400, 800, 450);
        CHECK_INT(7, t.lookups);
        CHECK_U64(7000, t.now_ms);
}

static void test_step_stops_at_one_second(void) {
        struct fake_table t = { .now_ms = 0, .appears_at_ms = NEVER, .gone_at_ms = NEVER };

        CHECK_INT(MOUNT_WAIT_TIMEOUT, run_wait(&t, 5, NULL));
        CHECK_SLEEPS(&t, 50, 100, 200, 400, 800, 1000, 1000, 1000, 450);
        CHECK_U64(5000, t.now_ms);
}

static void test_bdi_gone(void) {
        struct fake_table t = { .now_ms = 0, .appears_at_ms = NEVER, .gone_at_ms = 120 };

        CHECK_INT(MOUNT_WAIT_GONE, run_wait(&t, 30, NULL));
        CHECK_SLEEPS(&t, 50, 100);
        CHECK_INT(3, t.lookups);
}

static void test_lookup_error_does_not_wait(void) {
        struct fake_table t = { .appears_at_ms = NEVER, .gone_at_ms = NEVER, .error = -EFBIG };
        int error = 0;

        CHECK_INT(MOUNT_WAIT_ERROR, run_wait(&t, 30, &error));
        CHECK_INT(-EFBIG, error);
        CHECK_INT(1, t.lookups);
        CHECK_INT(0, t.n_sleeps);
}

static void test_no_wait_configured(void) {
        struct fake_table t = { .now_ms = 10, .appears_at_ms = NEVER, .gone_at_ms = NEVER };

        CHECK_INT(MOUNT_WAIT_TIMEOUT, run_wait(&t, 0, NULL));
        CHECK_INT(1, t.lookups);
        CHECK_INT(0, t.n_sleeps);
}

static uint64_t monotonic_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void returns_at_once(const void *arg) {
        (void)arg;
}

/* What statfs() on a FUSE mount without its FUSE_INIT answer does: it
 * never returns, and only a fatal signal ends it. */
static void hangs(const void *arg) {
        (void)arg;
        for (;;)
                pause();
}

static void test_bounded_returns(void) {
        uint64_t start = monotonic_ms();

        CHECK_INT(0, run_bounded(returns_at_once, NULL, 5000));
        CHECK(monotonic_ms() - start < 2000);
}

static void test_bounded_times_out(void) {
        uint64_t start = monotonic_ms();

        CHECK_INT(-ETIMEDOUT, run_bounded(hangs, NULL, 200));
        uint64_t took = monotonic_ms() - start;
        CHECK(took >= 200);
        CHECK(took < 3000);
        /* The child was reaped: nothing is left to wait for. */
        CHECK_INT(-1, waitpid(-1, NULL, WNOHANG));
        CHECK_INT(ECHILD, errno);
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_mounted_already);
        RUN(test_mount_appears_late);
        RUN(test_mount_never_appears);
        RUN(test_step_stops_at_one_second);
        RUN(test_bdi_gone);
        RUN(test_lookup_error_does_not_wait);
        RUN(test_no_wait_configured);
        RUN(test_bounded_returns);
        RUN(test_bounded_times_out);
        TEST_MAIN_END;
}
