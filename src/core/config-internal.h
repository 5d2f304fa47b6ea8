/* SPDX-License-Identifier: MIT */
#pragma once

/* What config.c, conf-files.c and conf-parse.c share; nothing outside them uses it. */

#include <stddef.h>

#include "config.h"

/* Appends one zeroed element to a growing array of at most max; NULL when
 * full or out of memory. */
void *ra_config_append(void **array, size_t *n, size_t max, size_t elem_size);

/* Adds a diagnostic at file:line (line 0: the whole file); errors are counted
 * even beyond RA_DIAGS_MAX. */
void ra_config_diag(struct ra_config *c, enum ra_diag_level level, const char *file, unsigned line,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Parses readahead.conf ([Agent]) into settings, which a file with any error
 * leaves as they were. */
int ra_agent_parse_buffer(struct ra_config *c, struct ra_agent_settings *settings, const char *path,
                          const char *buf, size_t len);
