/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "devices.h"

/*
 * status in the Prometheus text exposition format, for node_exporter's
 * textfile collector: the gauge of each value column (status-columns.h),
 * labelled device, kind and class.
 */
void status_prometheus(FILE *out, const struct ctl_device *list, size_t n);

/* The gauges of the last advise run (advise-record.h) in ROOT, for the
 * devices of list only; a device gone since, or a file that cannot be read,
 * leaves them out. */
void status_prometheus_last_advice(FILE *out, const char *root, const struct ctl_device *list, size_t n);

