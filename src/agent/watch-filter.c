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
