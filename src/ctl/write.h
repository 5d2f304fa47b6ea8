/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "ctl.h"
#include "devices.h"

/* What apply and reset share: writing one value, and walking devices. */

enum write_result {
        WRITE_OK,     /* written, or nothing to do */
        WRITE_FAILED, /* this device failed; go on with the others */
        WRITE_DENIED, /* not root: the others would fail alike */
};

/* Writes target_kb (whole pages) to f's read_ahead_kb and prints one line,
 * "sda 128K -> 512K (why)" or "sda 512K, unchanged (why)". */
enum write_result write_target(const char *verb, const struct ra_facts *f, uint64_t target_kb,
                               const char *why);

/* apply for one device: its decision written, "left alone" or the failure
 * printed. */
enum write_result apply_device(const struct device *d);

/* Calls fn for each device named in argv, or for all when argc is 0; stops
 * after WRITE_DENIED. Returns the verb's exit code. */
int for_each_device(struct ctl *ctl, const char *verb, int argc, char **argv,
                    enum write_result (*fn)(const struct device *d));
