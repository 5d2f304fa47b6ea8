/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Runs fn(arg) in a child process and waits at most timeout_ms for it.
 * For calls that only a fatal signal interrupts (statfs() on a FUSE mount
 * whose daemon has not answered FUSE_INIT waits killably): a caught signal
 * would not end them, an uncaught alarm would kill the caller before it
 * could log. Returns 0 once fn returned, -ETIMEDOUT when it did not in time
 * (the child is killed and reaped), or a negative errno when no child could
 * be started.
 */
int run_bounded(void (*fn)(const void *arg), const void *arg, unsigned timeout_ms);
