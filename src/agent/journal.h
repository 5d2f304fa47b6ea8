/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/*
 * Structured logging for the agent. libsystemd is loaded only when there is
 * something to log and journald listens: linking it would add ~0.8 M
 * instructions and ~1.2 MiB RSS to every udev event (see bench/).
 * Without a journal, the message goes to stderr (udevd shows it at debug).
 *
 * The one way the agent logs: the message is formatted here, so the compiler
 * checks every format against its arguments.
 * fields: "KEY=value" strings; MESSAGE= and PRIORITY= are added here.
 */
void agent_log(int priority, const char *const *fields, size_t n_fields, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
