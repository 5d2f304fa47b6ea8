/* SPDX-License-Identifier: MIT */
#pragma once

#include "ctl.h"
#include "write.h"

/* Calls fn for each device named in argv, or for all when argc is 0; stops
 * after WRITE_DENIED. Returns the verb's exit code. */
int for_each_device(struct ctl *ctl, const char *verb, int argc, char **argv,
                    enum write_result (*fn)(const struct ctl_device *d));
