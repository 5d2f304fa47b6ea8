/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The mount work that systemd runs for us (readahead-agent-bdi@.service),
 * seen through sd-bus. Everything here degrades to "nothing known" where
 * systemd is not PID 1.
 */

#define RA_BDI_UNIT_PREFIX "readahead-agent-bdi@"

#include "host.h" /* systemd_running() */

/* Names of failed readahead-agent-bdi@*.service units; NULL-terminated, caller frees with strv_free. */
int systemd_failed_bdi_units(char ***ret);

/* Clears the failed state of the unit for bdi, after the work was redone by hand. */
int systemd_reset_failed_bdi_unit(const char *bdi);

void strv_free(char **l);
