/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "facts.h"

/*
 * decide(): facts and profile in, target out. No I/O, no logging: the agent,
 * readahead-ctl and the tests all call this one function.
 *
 * Rules are tried in order and the last one that matches wins, so a drop-in
 * rule for one disk overrides the vendor rule for its class. Then:
 *   value = clamp(rule Size, rule Minimum, rule Maximum), at most profile Maximum
 *   value = min(value, memory cap, small-device cap)
 *   value = whole pages, at least one
 */

enum ra_verdict {
        RA_VERDICT_NO_MATCH,
        RA_VERDICT_NOT_APPLICABLE, /* matched, but Size needs a fact this device lacks */
        RA_VERDICT_MATCHED,
        RA_VERDICT_OVERRIDDEN, /* matched, a later rule also matched */
        RA_VERDICT_FAILED,     /* Size could not be evaluated */
};

struct ra_rule_trace {
        const struct ra_rule *rule;
        enum ra_verdict verdict;
        uint64_t value_kb;
        char why[160];
};

struct ra_decision {
        bool keep; /* leave the kernel's value alone */
        int error; /* < 0: the deciding rule failed; nothing may be written */
        const struct ra_rule *rule;
        uint64_t rule_kb;       /* what Size= gave */
        uint64_t clamped_kb;    /* after Minimum/Maximum */
        uint64_t memory_cap_kb; /* 0: not in force */
        uint64_t device_cap_kb; /* 0: not in force */
        uint64_t target_kb;
        char reason[200];
        /* Not now: writing could block (facts.write_blocked). The next change
         * event (the map resumed, a path came back) brings the write. */
        const char *deferred;
};

int ra_decide(const struct ra_profile *p, const struct ra_facts *f, struct ra_decision *ret,
              struct ra_rule_trace *trace, size_t trace_size);

/* Wu's memory cap is never below 32 KiB, whatever a profile's Minimum=
 * (the default profile's is 8K, for advise on SSDs: bench/README-apps.md). */
#define RA_MEMORY_CAP_MIN_KB 32

/* 1 KiB per MiB of RAM, rounded up to a power of two, at least floor_kb and
 * RA_MEMORY_CAP_MIN_KB. */
uint64_t ra_memory_cap_kb(uint64_t mem_total_kb, uint64_t floor_kb);

/*
 * Readahead doubles each time the device size quadruples:
 * 4 KiB * 2^floor(floor(log2(size / 256 KiB)) / 2); 4 KiB below 256 KiB.
 * Returns 0 (no cap) for size 0.
 */
uint64_t ra_small_device_cap_kb(uint64_t size_bytes);

/* Floors kb to whole pages of page_kb, at least one page. */
uint64_t ra_round_to_pages_kb(uint64_t kb, unsigned page_kb);

const char *ra_verdict_to_string(enum ra_verdict v);
