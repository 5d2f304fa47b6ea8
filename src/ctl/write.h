/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "devices.h"
#include "plan.h"

/* What apply and reset share: writing one value. */

enum write_result {
        WRITE_OK,     /* written, or nothing to do */
        WRITE_FAILED, /* this device failed; go on with the others */
        WRITE_DENIED, /* not root: the others would fail alike */
};

/* Carries out action (unchanged, deferred or write, from ra_action_for_target()
 * or a plan) for target_kb (whole pages) on f's read_ahead_kb and prints one
 * line, "sda 128K -> 512K (why)" or "sda 512K, unchanged (why)". */
enum write_result carry_out_write(const char *verb, const struct ra_facts *f, enum ra_action action,
                                  uint64_t target_kb, const char *why);

/* apply for one device: its decision written, "left alone" or the failure
 * printed. */
enum write_result apply_device(const struct ctl_device *d);
