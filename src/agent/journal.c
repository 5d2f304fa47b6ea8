/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "journal.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define MAX_FIELDS 16

typedef int (*sendv_fn)(const struct iovec *iov, int n);

/* sd_journal_sendv() while the journal's socket takes messages, else NULL
 * (stderr). The library is opened at the first message and kept for the
 * process's life: --watch logs for days with one dlopen(). */
static sendv_fn load_sendv(void) {
        static sendv_fn sendv;
        static bool tried;

        if (access(JOURNAL_SOCKET, W_OK) < 0)
                return NULL;
        if (!tried) {
                void *lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
                tried = true;
                if (lib)
                        sendv = (sendv_fn) (uintptr_t) dlsym(lib, "sd_journal_sendv");
        }
        return sendv;
}

static void journal_send(int priority, const char *message, const char *const *fields, size_t n_fields) {
        char prio[16], msg[512];
        struct iovec iov[MAX_FIELDS + 3];
        int n = 0;

        sendv_fn sendv = load_sendv();
        if (!sendv) {
                fprintf(stderr, "readahead-agent: %s\n", message);
                return;
        }

        snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
        snprintf(msg, sizeof(msg), "MESSAGE=%s", message);
        iov[n++] = (struct iovec){ .iov_base = msg, .iov_len = strlen(msg) };
        iov[n++] = (struct iovec){ .iov_base = prio, .iov_len = strlen(prio) };
        iov[n++] = (struct iovec){ .iov_base = (char *) "SYSLOG_IDENTIFIER=readahead-agent",
                                   .iov_len = strlen("SYSLOG_IDENTIFIER=readahead-agent") };
        for (size_t i = 0; i < n_fields && i < MAX_FIELDS; i++)
                iov[n++] = (struct iovec){ .iov_base = (char *) fields[i], .iov_len = strlen(fields[i]) };

        if (sendv(iov, n) < 0)
                fprintf(stderr, "readahead-agent: %s\n", message);
}

void agent_log(int priority, const char *const *fields, size_t n_fields, const char *fmt, ...) {
        char message[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);
        journal_send(priority, message, fields, n_fields);
}
