/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * --watch, the long-running mode for hosts where no udev rule can be
 * installed (a DaemonSet on Kubernetes nodes): one pass over every disk and
 * every bdi of ours at start, then udev's events and mount table changes,
 * and a pass every check period that puts back values that drifted. Each
 * device goes through the udev helper's own handlers (block.c, bdi.c).
 * watch-filter.c holds its pure parts, tested in tests/unit/test-watch.c.
 */

enum watch_event {
        WATCH_IGNORE,
        WATCH_BLOCK, /* a whole disk's add or change */
        WATCH_BDI,   /* a bdi's add: handle_event() keeps network, FUSE and btrfs ones */
};

/* What an event asks for by the udev rule's guards, whatever mode received
 * it (handle_event()); any argument may be NULL. The bdi's name is looked at
 * only once the event's identity is checked. */
enum watch_event watch_classify(const char *subsystem, const char *devtype, const char *action);

/* --check-sec: a whole number of seconds, 1 to 86400. -EINVAL otherwise. */
#define WATCH_CHECK_SEC_DEFAULT 60
#define WATCH_CHECK_SEC_MAX 86400u
int watch_parse_check_sec(const char *s, unsigned *ret);

/* How long poll() may sleep until the check due at due_ms: 0 when it is due. */
int watch_poll_timeout_ms(uint64_t now_ms, uint64_t due_ms);

/* The liveness file (alive.c): --watch writes it at start and after every
 * check, --check-alive reads it. The default path is on the pod's own
 * emptyDir (deploy/kubernetes). */
#define WATCH_ALIVE_FILE "/run/readahead-agent/watch.alive"
int alive_write(const char *path, unsigned check_sec);
int alive_check(const char *path);

/* Whether a loop that last finished a check at beat_ms (a check every
 * check_sec) is alive at now_ms: up to two periods and WATCH_ALIVE_SLACK_SEC
 * (a check over many devices, an event storm) after its last check. */
#define WATCH_ALIVE_SLACK_SEC 20u
bool watch_alive(uint64_t now_ms, uint64_t beat_ms, unsigned check_sec);

/*
 * --advise-sec (advise-agent.c): a window of N seconds of advise's samples,
 * one a second, on the loop's poll() timeout; off (no timeout, no wakeup)
 * when N is 0. A sample that comes late (a long pass) is taken once, and
 * the next one is due at the next whole second of the window: missed
 * seconds are not made up.
 */
#define WATCH_ADVISE_SEC_MAX 86400u
int watch_parse_advise_sec(const char *s, unsigned *ret);

struct advise_clock {
        unsigned window_sec; /* 0: off */
        uint64_t start_ms;   /* the window's first sample */
        uint64_t next_ms;    /* the next sample */
};

/* A new window from a first sample taken at now_ms. */
void advise_clock_start(struct advise_clock *c, uint64_t now_ms);
/* poll()'s timeout until the next sample: -1 when off, 0 when due. */
int advise_clock_timeout_ms(const struct advise_clock *c, uint64_t now_ms);
/* Whether a sample is due at now_ms. */
bool advise_clock_due(const struct advise_clock *c, uint64_t now_ms);
/* After a sample at now_ms: true when it ended the window (the advice is
 * made then, and the next window starts); else the next sample's time is
 * set. */
bool advise_clock_sampled(struct advise_clock *c, uint64_t now_ms);
