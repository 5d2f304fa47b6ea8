/* SPDX-License-Identifier: MIT */
/* The long-running mode's pure parts: which events count, its options. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"
#include "watch.h"

static bool streq_ptr(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* The udev rule's guards, for events that reach us without the rule. */
enum watch_event watch_classify(const char *subsystem, const char *devtype, const char *action) {
        if (streq_ptr(subsystem, "block") && streq_ptr(devtype, "disk") &&
            (streq_ptr(action, "add") || streq_ptr(action, "change")))
                return WATCH_BLOCK;
        if (streq_ptr(subsystem, "bdi") && streq_ptr(action, "add"))
                return WATCH_BDI;
        return WATCH_IGNORE;
}

int watch_parse_check_sec(const char *s, unsigned *ret) {
        return ra_parse_uint(s, 1, WATCH_CHECK_SEC_MAX, ret) < 0 ? -EINVAL : 0;
}

int watch_poll_timeout_ms(uint64_t now_ms, uint64_t due_ms) {
        if (due_ms <= now_ms)
                return 0;
        uint64_t left = due_ms - now_ms;
        return left > INT_MAX ? INT_MAX : (int) left;
}

bool watch_alive(uint64_t now_ms, uint64_t beat_ms, unsigned check_sec) {
        uint64_t bound_ms = (2 * (uint64_t) check_sec + WATCH_ALIVE_SLACK_SEC) * 1000;
        /* A beat from the future (a file from before a reboot): not ours. */
        return beat_ms <= now_ms && now_ms - beat_ms <= bound_ms;
}

int watch_parse_advise_sec(const char *s, unsigned *ret) {
        return ra_parse_uint(s, 1, WATCH_ADVISE_SEC_MAX, ret) < 0 ? -EINVAL : 0;
}

void advise_clock_start(struct advise_clock *c, uint64_t now_ms) {
        c->start_ms = now_ms;
        c->next_ms = now_ms + 1000;
}

int advise_clock_timeout_ms(const struct advise_clock *c, uint64_t now_ms) {
        if (c->window_sec == 0)
                return -1;
        return watch_poll_timeout_ms(now_ms, c->next_ms);
}

bool advise_clock_due(const struct advise_clock *c, uint64_t now_ms) {
        return c->window_sec > 0 && now_ms >= c->next_ms;
}

bool advise_clock_sampled(struct advise_clock *c, uint64_t now_ms) {
        uint64_t end_ms = c->start_ms + (uint64_t) c->window_sec * 1000;
        if (now_ms >= end_ms)
                return true;
        /* the next whole second of the window after now, at most its end */
        uint64_t step = (now_ms - c->start_ms) / 1000 + 1;
        c->next_ms = c->start_ms + step * 1000;
        if (c->next_ms > end_ms)
                c->next_ms = end_ms;
        return false;
}
