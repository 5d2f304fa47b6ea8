/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "advise-suggest.h"
#include "decide.h"
#include "enum-name.h"
#include "size.h"

struct ra_advise_limits ra_advise_limits_of(const struct ra_facts *f, const struct ra_profile *p,
                                            bool lowered_here, uint64_t raised_from_kib_s) {
        return (struct ra_advise_limits){
                .read_ahead_kb = f->current_kb,
                .max_sectors_kb = f->max_sectors_kb,
                .minimum_kb = p->minimum_kb,
                .maximum_kb = p->maximum_kb,
                /* the design's cap: 1 KiB per MiB of RAM, never below 32 KiB */
                .memory_cap_kb = f->mem_total_kb ? ra_memory_cap_kb(f->mem_total_kb, RA_MEMORY_CAP_MIN_KB) : 0,
                .page_kb = f->page_kb,
                .network = f->kind != RA_KIND_BLOCK,
                .rotational = f->rotational,
                .lowered_here = lowered_here,
                .raised_from_kib_s = raised_from_kib_s,
                .raised_here = raised_from_kib_s != 0,
        };
}

/* want_kb within the profile's Maximum=, the host's memory cap, floor_kb
 * (0: none; floor_why names it) and the profile's Minimum=; whole pages. */
static uint64_t clamp_kb(uint64_t kb, uint64_t floor_kb, const char *floor_why, const struct ra_advise_limits *l,
                         const char **why) {
        *why = NULL;
        if (l->maximum_kb && kb > l->maximum_kb) {
                kb = l->maximum_kb;
                *why = "the profile's Maximum=";
        }
        if (l->memory_cap_kb && kb > l->memory_cap_kb) {
                kb = l->memory_cap_kb;
                *why = "the host's memory cap";
        }
        if (kb < floor_kb) {
                kb = floor_kb;
                *why = floor_why;
        }
        if (l->minimum_kb && kb < l->minimum_kb) {
                kb = l->minimum_kb;
                *why = "the profile's Minimum=";
        }
        return ra_round_to_pages_kb(kb, l->page_kb ? l->page_kb : 4);
}

void ra_advise_suggest(struct ra_advice *a, const struct ra_advise_limits *l, enum ra_advice_kind kind,
                       uint64_t want_kb, uint64_t floor_kb, const char *floor_why, const char *evidence) {
        const char *why;
        uint64_t kb = clamp_kb(want_kb, floor_kb, floor_why, l, &why);
        char from[24], to[24];

        if ((kind == RA_ADVICE_RAISE && kb <= l->read_ahead_kb) || (kind == RA_ADVICE_LOWER && kb >= l->read_ahead_kb)) {
                a->kind = RA_ADVICE_KEEP;
                snprintf(a->reason, sizeof(a->reason), "%s; but %s is %s already", evidence,
                         why ? why : "one page", ra_format_size_kb(l->read_ahead_kb, from));
                return;
        }
        a->kind = kind;
        a->suggested_kb = kb;
        snprintf(a->reason, sizeof(a->reason), "%s; %s %s -> %s%s%s", evidence, ra_advice_to_string(kind),
                 ra_format_size_kb(l->read_ahead_kb, from), ra_format_size_kb(kb, to), why ? ", held by " : "",
                 why ? why : "");
}

const char *ra_advice_to_string(enum ra_advice_kind k) {
        static const char *const names[_RA_ADVICE_MAX] = {
                [RA_ADVICE_NO_SIGNAL] = "no signal",
                [RA_ADVICE_KEEP] = "keep",
                [RA_ADVICE_RAISE] = "raise",
                [RA_ADVICE_LOWER] = "lower",
        };
        return RA_ENUM_NAME(names, k);
}

bool ra_advice_to_gauge(enum ra_advice_kind k, int *ret) {
        switch (k) {
        case RA_ADVICE_KEEP:
                *ret = 0;
                return true;
        case RA_ADVICE_RAISE:
                *ret = 1;
                return true;
        case RA_ADVICE_LOWER:
                *ret = -1;
                return true;
        default:
                return false;
        }
}
