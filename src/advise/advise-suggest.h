/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "facts.h"

/*
 * What both decisions of advise give, a disk's (advise-disk.h) and an NFS
 * mount's (advise-nfs.h): the kind of advice, the value suggested within the
 * device's limits, and the measures behind it. Pure.
 *
 * The thresholds both decisions share (readahead-ctl(8) lists them too):
 */
/* Less than this read in the window says nothing about readahead. */
#define RA_ADVISE_READ_BYTES_MIN (UINT64_C(1) << 20)
/* Reads that pinned user pages (O_DIRECT) bypass the page cache and
 * readahead: when they are most of what a device read, nothing to advise. */
#define RA_ADVISE_DIRECT_SHARE_MIN 0.8
/* One step: at most a factor of 4 either way. */
#define RA_ADVISE_STEP 4

struct ra_advise_limits {
        uint64_t read_ahead_kb;
        uint64_t max_sectors_kb; /* 0: unknown */
        uint64_t minimum_kb, maximum_kb; /* the profile's Minimum= and Maximum= */
        uint64_t memory_cap_kb;          /* the host's; 0: none */
        unsigned page_kb;
        bool network; /* a network mount: no device counters */
        bool rotational; /* one head: no gain from requests in flight beyond max_sectors_kb */
        bool lowered_here; /* the last advice (the record) lowered read_ahead_kb to this value */
        /* The device's read rate (KiB/s) when the last advice raised
         * read_ahead_kb to this value (the record's, kept by the keeps
         * there since); 0: no raise brought it here. */
        uint64_t raised_from_kib_s;
        /* A raise brought read_ahead_kb to this value: the record's
         * (raised_from_kib_s) or, in the agent, Tune=yes's state. Files
         * opened before it still read at the value before (the kernel
         * copies read_ahead_kb into a file at open). */
        bool raised_here;
};

/* A device's limits: its value and queue, the profile's Minimum= and
 * Maximum=, the memory cap (1 KiB per MiB of RAM, never below 32 KiB),
 * whether the last advice lowered it to the value it holds, and the rate
 * it read before the raise that brought it there (0: none; raised_here
 * follows it). */
struct ra_advise_limits ra_advise_limits_of(const struct ra_facts *f, const struct ra_profile *p,
                                            bool lowered_here, uint64_t raised_from_kib_s);

enum ra_advice_kind {
        RA_ADVICE_NO_SIGNAL,
        RA_ADVICE_KEEP,
        RA_ADVICE_RAISE,
        RA_ADVICE_LOWER,
        _RA_ADVICE_MAX,
};

struct ra_advice {
        enum ra_advice_kind kind;
        uint64_t suggested_kb; /* read_ahead_kb unless raise or lower */
        char reason[320];
        /* The measures, also for output. Shares are of bytes read. */
        double read_bytes_per_s;
        double request_kb; /* average read request; 0 without reads */
        double direct_share;
        /* A disk's (advise-disk.h); 0, and -1 for the stalls, for NFS. */
        double busy;                /* io_ticks over the time the device read */
        double io_stall, mem_stall; /* PSI some over that time; < 0: no PSI */
        double majfaults_per_s;
        double read_per_fault_kb; /* 0: no faults */
        double fault_share, refault_share, reclaim_share;
        /* An NFS mount's (advise-nfs.h): the READs' average RTT and the bytes
         * in flight (throughput x RTT); 0 for disks. */
        double rtt_ms, in_flight_kb;
        /* For the record (a disk's raise and the keeps after it): the read
         * rate while the device read, KiB/s, before the raise to the value
         * suggested; 0: none. */
        uint64_t raise_base_kib_s;
};

/* A raise or lower of a->kind to want_kb, held by the profile's limits, the
 * memory cap and floor_kb (0: none; floor_why names it in the reason), or
 * keep when they leave no room; evidence opens the reason. */
void ra_advise_suggest(struct ra_advice *a, const struct ra_advise_limits *l, enum ra_advice_kind kind,
                       uint64_t want_kb, uint64_t floor_kb, const char *floor_why, const char *evidence);

/* "no signal", "keep", "raise", "lower" */
const char *ra_advice_to_string(enum ra_advice_kind k);
/* -1 lower, 0 keep, 1 raise; no signal has no value (false) */
bool ra_advice_to_gauge(enum ra_advice_kind k, int *ret);
