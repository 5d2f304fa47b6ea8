/* SPDX-License-Identifier: MIT */
/*
 * journald's native protocol, spoken here: one datagram of KEY=value lines
 * to /run/systemd/journal/socket (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/).
 * Loading libsystemd for sd_journal_sendv() cost about 0.8 M instructions
 * and 1.2 MiB, twice what the rest of an event costs: too much to log every
 * event's outcome, as the agent does (carry-out.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "journal.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define MAX_FIELDS 16

/* KEY=value, or, where value has a newline, KEY\n, its length as a
 * little-endian 64-bit number, value and \n. Returns the new end, or -1. */
static ssize_t append_field(char *buf, size_t size, size_t at, const char *field) {
        const char *eq = strchr(field, '=');

        if (!eq)
                return at; /* no field */
        size_t key_len = (size_t) (eq - field), value_len = strlen(eq + 1);
        bool binary = memchr(eq + 1, '\n', value_len) != NULL;
        size_t need = key_len + 1 + (binary ? 8 : 0) + value_len + 1;
        if (need > size - at)
                return -1;
        memcpy(buf + at, field, key_len);
        at += key_len;
        if (binary) {
                buf[at++] = '\n';
                for (unsigned i = 0; i < 8; i++)
                        buf[at++] = (char) ((uint64_t) value_len >> (8 * i));
        } else
                buf[at++] = '=';
        memcpy(buf + at, eq + 1, value_len);
        at += value_len;
        buf[at++] = '\n';
        return (ssize_t) at;
}

ssize_t agent_journal_format(char *buf, size_t size, int priority, const char *message,
                             const char *const *fields, size_t n_fields) {
        char msg[AGENT_LOG_MAX + 16], prio[16];
        ssize_t at = 0;

        snprintf(msg, sizeof(msg), "MESSAGE=%s", message);
        snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
        at = append_field(buf, size, (size_t) at, msg);
        if (at >= 0)
                at = append_field(buf, size, (size_t) at, prio);
        if (at >= 0)
                at = append_field(buf, size, (size_t) at, "SYSLOG_IDENTIFIER=readahead-agent");
        for (size_t i = 0; at >= 0 && i < n_fields && i < MAX_FIELDS; i++)
                at = append_field(buf, size, (size_t) at, fields[i]);
        return at < 0 ? -EMSGSIZE : at;
}

int agent_journal_send(const char *socket_path, int priority, const char *message, const char *const *fields,
                       size_t n_fields) {
        char buf[4 * AGENT_LOG_MAX + 8 * 1024];
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        if (strlen(socket_path) >= sizeof(sa.sun_path))
                return -EINVAL;
        strncpy(sa.sun_path, socket_path, sizeof(sa.sun_path) - 1);
        ssize_t len = agent_journal_format(buf, sizeof(buf), priority, message, fields, n_fields);
        if (len < 0)
                return (int) len;
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        ssize_t n = sendto(fd, buf, (size_t) len, MSG_NOSIGNAL, (const struct sockaddr *) &sa, sizeof(sa));
        int r = n < 0 ? -errno : 0;
        close(fd);
        return r;
}

void agent_log(int priority, const char *const *fields, size_t n_fields, const char *fmt, ...) {
        static const char prefix[] = "readahead-agent: ";
        char line[sizeof(prefix) - 1 + AGENT_LOG_MAX + 2], *message = line + sizeof(prefix) - 1;
        va_list ap;

        memcpy(line, prefix, sizeof(prefix) - 1);
        va_start(ap, fmt);
        vsnprintf(message, AGENT_LOG_MAX, fmt, ap);
        va_end(ap);
        /* No journal (a container, a test): stderr, which udevd logs at
         * debug; one write, with its prefix. */
        if (access(JOURNAL_SOCKET, W_OK) < 0 ||
            agent_journal_send(JOURNAL_SOCKET, priority, message, fields, n_fields) < 0) {
                size_t n = strlen(line);
                line[n] = '\n';
                line[n + 1] = 0;
                fputs(line, stderr);
        }
}
