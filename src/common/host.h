/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* What the agent and readahead-ctl both ask of the running system. */

/* A monotonic clock in milliseconds: for deadlines, never for dates. */
uint64_t now_ms(void);

/* Whether systemd is PID 1: what sd_booted() checks, without loading
 * libsystemd. */
bool systemd_running(void);
