/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry point; replay.c calls it without libFuzzer. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message when an invariant does not hold: a finding. */
#define FUZZ_ASSERT(cond)                                                               \
        do {                                                                            \
                if (!(cond)) {                                                          \
                        fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,      \
                                __LINE__, #cond);                                       \
                        abort();                                                        \
                }                                                                       \
        } while (0)
