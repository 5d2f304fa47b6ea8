/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Largest read_ahead_kb any profile may ask for: 1 GiB. */
#define RA_SIZE_MAX_KB (UINT64_C(1) << 20)

/*
 * Parses "512", "512K", "512KiB", "4M", "1G" into KiB. A bare number is KiB,
 * as in read_ahead_kb. Whole numbers only, so the value is exact; anything
 * above RA_SIZE_MAX_KB is -ERANGE, anything malformed -EINVAL.
 */
int ra_parse_size_kb(const char *s, uint64_t *ret_kb);

/* Formats KiB the way a person writes it: "512K", "4M", "1536K". */
const char *ra_format_size_kb(uint64_t kb, char buf[static 24]);

/*
 * Parses a whole number from lo to hi, written in decimal digits and nothing
 * else: no sign, no blank, no unit. -EINVAL when malformed, -ERANGE when out
 * of [lo, hi]; *ret is written only on success. Every count and number of
 * seconds readahead-ctl, the agent and the configuration take goes through
 * it, so that they all take and refuse the same text.
 */
int ra_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *ret);

/* Parses yes/no/true/false/1/0/on/off. */
int ra_parse_bool(const char *s, bool *ret);
