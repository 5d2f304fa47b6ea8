/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "output.h"

/*
 * The status table's columns, each described once (as lsblk's infos[]):
 * the table, -o's names and its error, --list-columns and --help read
 * them; a column names its field of --json's device objects (docs/json.md,
 * checked by tests/tables), and a value column its Prometheus gauge; both
 * print a value column's value from here. A new column is
 * a row below, its text in status_column_text() and, for a value, in
 * status_column_value(); tests/tables holds the completion and the man page
 * to the table.
 */
enum column_id {
        COL_NAME,
        COL_KIND,
        COL_CLASS,
        COL_BUS,
        COL_TRANSPORT,
        COL_FSTYPE,
        COL_FACTS,
        COL_MOUNTPOINT,
        COL_SIZE,
        COL_STRIPE,
        COL_TARGET,
        COL_CURRENT,
        COL_DRIFT,
        COL_KERNEL,
        COL_RULE,
        COL_REASON,
        COL_MAJMIN,
        _COL_MAX,
};

enum column_value {
        VALUE_NONE, /* text only */
        VALUE_KB,   /* --json: NAME_kb, null when unknown; Prometheus: in bytes */
        VALUE_BOOL, /* --json: true/false; Prometheus: 1/0 */
};

struct status_column {
        const char *name; /* the heading and -o's name */
        double width_hint;
        int flags;       /* SCOLS_FL_* */
        bool in_default; /* shown without -o, in this order */
        const char *help;
        enum column_value value;
        const char *json;   /* the field of --json's device objects, NULL: none */
        const char *metric; /* the Prometheus gauge, NULL: none */
        const char *metric_help;
};

extern const struct status_column status_columns[_COL_MAX];

/* The index of the column named name (len bytes, any case), or -1. */
int status_column_by_name(const char *name, size_t len);

/* The text of one cell: a constant, the facts' own string, buf, or *alloc
 * (the caller frees it; a mount point has any length and is never cut).
 * NULL: out of memory. Strings from devices and mounts are not escaped
 * here: libsmartcols escapes them when it prints. */
const char *status_column_text(const struct ctl_device *d, enum column_id id, char *buf, size_t size,
                               char **alloc);

/* A value column's number (VALUE_KB in KiB, VALUE_BOOL 0 or 1); false when
 * it is not known (no target, an unreadable current). */
bool status_column_value(const struct ctl_device *d, enum column_id id, uint64_t *ret);

/* The value columns' --json fields, in table order, into the open device
 * object. */
void status_columns_json(struct json *j, const struct ctl_device *d);

/* "NAME,CLASS,...": the default columns, for --help. */
const char *status_default_columns(char *buf, size_t size);
