/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * The mount waiter's loop: look the bdi's mount up until it is there, the
 * bdi is gone, or timeout_sec have passed. The clock, the mount-table lookup
 * and the sleep are passed in, so that a test drives the loop with a fake
 * clock. Between lookups it sleeps 50 ms, doubling up to 1 s, never past the
 * deadline: a wait that ends early on a mount-table change looks again at
 * once, and one that misses the change still looks again soon.
 */
enum mount_wait_result {
        MOUNT_WAIT_FOUND,   /* lookup() returned 0 */
        MOUNT_WAIT_GONE,    /* lookup() returned -ENODEV: the bdi went away */
        MOUNT_WAIT_TIMEOUT, /* still -ENOENT at the deadline */
        MOUNT_WAIT_ERROR,   /* any other error: waiting cannot help */
};

struct mount_wait_ops {
        uint64_t (*now_ms)(void *userdata); /* a monotonic clock */
        /* 0: the mount is there; -ENOENT: not yet; -ENODEV: the bdi is gone. */
        int (*lookup)(void *userdata);
        /* Returns after ms, or earlier once the mount table changed. */
        void (*sleep)(void *userdata, unsigned ms);
        void *userdata;
};

#define MOUNT_WAIT_FIRST_STEP_MS 50
#define MOUNT_WAIT_MAX_STEP_MS 1000

/* *ret_error: lookup()'s error for MOUNT_WAIT_ERROR. */
enum mount_wait_result mount_wait(const struct mount_wait_ops *ops, unsigned timeout_sec, int *ret_error);
