/* SPDX-License-Identifier: MIT */
#pragma once

#include "devices.h"
#include "output.h"

/* The fields of one device inside an open object: each element of status
 * --json's "devices" and explain --json's "device", so both say the same. */
void json_device_fields(struct json *j, const struct ctl_device *d);
