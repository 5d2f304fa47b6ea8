/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/*
 * Structured logging for the agent, to the journal by its native protocol
 * (journal.c: no libsystemd, which would add ~0.8 M instructions and
 * ~1.2 MiB RSS to every udev event that logs, see bench/). Without a
 * journal, the message goes to stderr (udevd shows it at debug).
 *
 * The one way the agent logs: the message is formatted here, so the compiler
 * checks every format against its arguments.
 * fields: "KEY=value" strings; MESSAGE=, PRIORITY= and SYSLOG_IDENTIFIER=
 * are added here.
 */
void agent_log(int priority, const char *const *fields, size_t n_fields, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* The longest message; longer ones are cut. */
#define AGENT_LOG_MAX 512

/* The datagram agent_log() sends: its length, or -EMSGSIZE. */
ssize_t agent_journal_format(char *buf, size_t size, int priority, const char *message,
                             const char *const *fields, size_t n_fields);

/* Sends it to the journal's socket at socket_path: 0 or a negative errno. */
int agent_journal_send(const char *socket_path, int priority, const char *message, const char *const *fields,
                       size_t n_fields);
