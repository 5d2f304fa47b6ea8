/* SPDX-License-Identifier: MIT */
/*
 * The memory cap (1 KiB per MiB of RAM, a power of two, at least 32 KiB), the
 * small-device cap (readahead doubles each time the size quadruples) and page
 * rounding, with Wu's examples: 512 MiB -> 512 KiB, 1 GiB -> 256 KiB.
 */

#include "decide.h"
#include "test.h"

#define MIB_KB(n) ((uint64_t)(n) * 1024)             /* n MiB in KiB */
#define KIB_BYTES(n) ((uint64_t)(n) * 1024)          /* n KiB in bytes */
#define MIB_BYTES(n) ((uint64_t)(n) * 1024 * 1024)   /* n MiB in bytes */
#define GIB_BYTES(n) ((uint64_t)(n) * 1024 * 1024 * 1024)

static void test_memory_cap(void) {
        /* 1 KiB of readahead per MiB of RAM, power of two, at least 32 KiB. */
        CHECK_U64(512, ra_memory_cap_kb(MIB_KB(512), 32));
        CHECK_U64(256, ra_memory_cap_kb(MIB_KB(256), 32));
        CHECK_U64(64, ra_memory_cap_kb(MIB_KB(64), 32));
        CHECK_U64(32, ra_memory_cap_kb(MIB_KB(16), 32));
        CHECK_U64(32, ra_memory_cap_kb(MIB_KB(1), 32));
        CHECK_U64(32, ra_memory_cap_kb(MIB_KB(1), 8)); /* never below 32K, whatever Minimum= */
        CHECK_U64(64, ra_memory_cap_kb(MIB_KB(1), 64));
        CHECK_U64(32768, ra_memory_cap_kb(MIB_KB(24 * 1024), 32)); /* 24 GiB */
        CHECK_U64(16384, ra_memory_cap_kb(MIB_KB(16 * 1024), 32)); /* 16 GiB */
}

static void test_memory_cap_rounds_up(void) {
        /* 3000 MiB -> 3000 KiB -> next power of two. */
        CHECK_U64(4096, ra_memory_cap_kb(MIB_KB(3000), 32));
        CHECK_U64(1024, ra_memory_cap_kb(MIB_KB(513), 32));
        CHECK_U64(128, ra_memory_cap_kb(MIB_KB(100), 32));
        /* MemTotal is a little below the nominal size: 505000 KiB on a
         * "512 MiB" board is 493 MiB, which still rounds up to 512. */
        CHECK_U64(512, ra_memory_cap_kb(505000, 32));
        /* readahead-ctl's example host: MemTotal 16384000 KiB = 16000 MiB. */
        CHECK_U64(16384, ra_memory_cap_kb(16384000, 32));
}

static void test_memory_cap_floor(void) {
        CHECK_U64(64, ra_memory_cap_kb(MIB_KB(16), 64));
        CHECK_U64(512, ra_memory_cap_kb(MIB_KB(512), 64));
        CHECK_U64(128, ra_memory_cap_kb(MIB_KB(100), 128));
        /* A floor that is not a power of two is kept as it is. */
        CHECK_U64(48, ra_memory_cap_kb(MIB_KB(16), 48));
}

static void test_memory_cap_huge(void) {
        /* 16 TiB of RAM: 16 GiB of readahead, no overflow. */
        CHECK_U64(16777216, ra_memory_cap_kb(MIB_KB(16ULL * 1024 * 1024), 32));
        /* The largest MemTotal: 2^54 - 1 MiB and a bit -> 2^54 KiB, without
         * wrapping to a small number (rounding up must not overflow). */
        CHECK_U64(18014398509481984ULL, ra_memory_cap_kb(UINT64_MAX, 32));
        CHECK_U64(18014398509481984ULL, ra_memory_cap_kb(UINT64_MAX - 1023, 32));
        CHECK_U64(9007199254740992ULL, ra_memory_cap_kb(UINT64_MAX / 2, 32));
}

static void test_small_device_cap(void) {
        /* Doubles as the size quadruples, 4 KiB below 256 KiB. */
        CHECK_U64(8, ra_small_device_cap_kb(MIB_BYTES(1)));
        CHECK_U64(32, ra_small_device_cap_kb(MIB_BYTES(16)));
        CHECK_U64(64, ra_small_device_cap_kb(MIB_BYTES(64)));
        CHECK_U64(128, ra_small_device_cap_kb(MIB_BYTES(256)));
        CHECK_U64(256, ra_small_device_cap_kb(GIB_BYTES(1)));
        CHECK_U64(512, ra_small_device_cap_kb(GIB_BYTES(4)));
        CHECK_U64(4, ra_small_device_cap_kb(KIB_BYTES(100)));
        CHECK_U64(0, ra_small_device_cap_kb(0));
}

static void test_small_device_cap_steps(void) {
        CHECK_U64(4, ra_small_device_cap_kb(1));
        CHECK_U64(4, ra_small_device_cap_kb(505000));       /* Linus' 505 KB key */
        CHECK_U64(4, ra_small_device_cap_kb(KIB_BYTES(256)));
        CHECK_U64(4, ra_small_device_cap_kb(KIB_BYTES(512)));
        CHECK_U64(4, ra_small_device_cap_kb(MIB_BYTES(1) - 1));
        CHECK_U64(8, ra_small_device_cap_kb(MIB_BYTES(2)));
        CHECK_U64(8, ra_small_device_cap_kb(MIB_BYTES(4) - 1));
        CHECK_U64(16, ra_small_device_cap_kb(MIB_BYTES(4)));
        CHECK_U64(16, ra_small_device_cap_kb(MIB_BYTES(8)));
        CHECK_U64(128, ra_small_device_cap_kb(MIB_BYTES(1000))); /* 1000 MiB < 1 GiB */
        CHECK_U64(256, ra_small_device_cap_kb(GIB_BYTES(2)));
        CHECK_U64(1024, ra_small_device_cap_kb(GIB_BYTES(16)));
        /* A 1 TB disk: far above any rule value. */
        CHECK_U64(4096, ra_small_device_cap_kb(1000204886016ULL));
        /* The largest size: 2^46 units of 256 KiB -> 4 KiB * 2^22. */
        CHECK_U64(16777216, ra_small_device_cap_kb(UINT64_MAX));
}

static void test_round_to_pages(void) {
        CHECK_U64(1232, ra_round_to_pages_kb(1234, 4));
        CHECK_U64(4, ra_round_to_pages_kb(2, 4));
        CHECK_U64(64, ra_round_to_pages_kb(100, 64));
        CHECK_U64(512, ra_round_to_pages_kb(512, 4));
        CHECK_U64(512, ra_round_to_pages_kb(512, 64));
        CHECK_U64(128, ra_round_to_pages_kb(130, 64));
        CHECK_U64(4, ra_round_to_pages_kb(0, 4));
        CHECK_U64(64, ra_round_to_pages_kb(1, 64));
        CHECK_U64(3072, ra_round_to_pages_kb(3072, 4));
        CHECK_U64(1216, ra_round_to_pages_kb(1234, 64));
        CHECK_U64(1232, ra_round_to_pages_kb(1235, 16));
}

int main(void) {
        TEST_MAIN_BEGIN;
        RUN(test_memory_cap);
        RUN(test_memory_cap_rounds_up);
        RUN(test_memory_cap_floor);
        RUN(test_memory_cap_huge);
        RUN(test_small_device_cap);
        RUN(test_small_device_cap_steps);
        RUN(test_round_to_pages);
        TEST_MAIN_END;
}
