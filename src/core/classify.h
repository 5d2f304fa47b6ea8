/* SPDX-License-Identifier: MIT */
#pragma once

#include "facts.h"

/*
 * Pure: class, transport refinements and stripe geometry from the raw
 * numbers in f, including the guard against bogus io_opt. Gathering
 * (gather.c, mountinfo.c) calls it once the numbers are read.
 */
void ra_facts_classify(struct ra_facts *f);
