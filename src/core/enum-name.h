/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/*
 * The one pattern of every *_to_string(): names[] is indexed by the enum with
 * designated initializers, and a value out of range or without a name reads
 * "unknown". Such a value is a bug, never input, so no output depends on
 * the fallback.
 */
static inline const char *ra_enum_name(const char *const *names, size_t n_names, long value) {
        return value >= 0 && (size_t) value < n_names && names[value] ? names[value] : "unknown";
}

#define RA_ENUM_NAME(names, value) ra_enum_name((names), sizeof(names) / sizeof((names)[0]), (long) (value))
