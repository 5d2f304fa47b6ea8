/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "devices.h"

/*
 * status in the Prometheus text exposition format, for node_exporter's
 * textfile collector: readahead_target_bytes, readahead_current_bytes and
 * readahead_drift, labelled device, kind and class.
 */
void status_prometheus(FILE *out, const struct device *list, size_t n);
