/* SPDX-License-Identifier: MIT */
/* The long-running mode's pure parts: which events count, its options. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"
#include "watch.h"

static bool streq_ptr(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* The udev rule's guards, for events that reach us without the rule. */
enum watch_event watch_classify(const char *subsystem, const char *devtype, const char *action,
                                const char *sysname) {
        if (streq_ptr(subsystem, "block") && streq_ptr(devtype, "disk") &&
            (streq_ptr(action, "add") || streq_ptr(action, "change")))
                return WATCH_BLOCK;
        if (streq_ptr(subsystem, "bdi") && streq_ptr(action, "add") && sysname && ra_bdi_is_ours(sysname))
                return WATCH_BDI;
        return WATCH_IGNORE;
}

int watch_parse_check_sec(const char *s, unsigned *ret) {
        char *end;

        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || v < 1 || v > WATCH_CHECK_SEC_MAX)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
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
