/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "config.h"
#include "devices.h"
#include "output.h"

/* Shared by status and explain. */
bool device_drifts(const struct ctl_device *d);
void json_device_fields(struct json *j, const struct ctl_device *d);
uint64_t host_memory_cap_kb(const struct ra_config *c, uint64_t *ret_mem_kb);
