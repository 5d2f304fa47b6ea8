#!/bin/bash
# SPDX-License-Identifier: MIT
# advise on an application: RocksDB's db_bench readreverse through mmap
# (KML's reverse class) on the HDD model, in 64 MiB of memory with a
# database of ~250 MiB. Each fault reads the half of its window the fault
# before did not, and nothing is read again: a scan through a mapping, not
# random read-around (lowered as random faults, it read 20% of its best on
# bench/apps' ssd model). At the kernel's 128K -> "raise", and at the
# profile's 512K it goes to -> "raise" again; each step followed does more
# ops/s (by hand on this setup: 8.1K ops/s at 128K, 30.5K at 512K, 42.9K
# at 2M).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_db_lab 400000
out=$RA_TMP/advise.json

# scan KB OUT [advise]: the whole reverse scan, cold, at KB (31 s at 128K,
# 8 s at 512K: db_bench's --duration does not stop it); its ops/s in
# RA_DB_OPS. With advise, advise watches 5 s of it and the advice must be
# a raise by the scan's reason; its value in SUGGESTED.
scan() {
        ra_app_cold "$dev" db
        ra_set_ra "$dev" "$1"
        ra_db_bench_bg group "$db" "$2" readreverse --mmap_read=1
        if [ "${3:-}" = advise ]; then
                sleep 1
                ra_advise_devices "$out" 5 "$dev"
        fi
        ra_db_bench_wait "$2" readreverse
        [ "${3:-}" = advise ] || return 0
        ra_expect_eq "advise exit status at ${1}K" "$RA_ADVISE_RC" 0
        ra_expect_eq "advice at ${1}K" "$(ra_device_json "$out" "$dev" 'd["advice"]')" raise
        ra_expect_eq "reason at ${1}K" "$(ra_device_json "$out" "$dev" 'd["reason"].split(":")[0]')" \
                "a scan through a mapping"
        SUGGESTED=$(ra_device_json "$out" "$dev" 'd["suggested_kb"]')
        ra_expect_eq "suggested above ${1}K ($SUGGESTED)" "$((SUGGESTED > $1))" 1
}

scan 128 "$RA_TMP/at128" advise
at128=$RA_DB_OPS first=$SUGGESTED
scan "$first" "$RA_TMP/at$first" advise
second=$RA_DB_OPS
ra_expect_better "db_bench readreverse (mmap) ops/s, 128K -> ${first}K" "$at128" "$second" higher
scan "$SUGGESTED" "$RA_TMP/at$SUGGESTED"
ra_expect_better "db_bench readreverse (mmap) ops/s, ${first}K -> ${SUGGESTED}K" "$second" "$RA_DB_OPS" higher 1.1
