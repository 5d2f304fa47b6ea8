#!/bin/bash
# SPDX-License-Identifier: MIT
# advise on an application (issue 31, point 6): RocksDB's db_bench readrandom
# through mmap (KML's setup) on the HDD model, in 64 MiB of memory with a
# database of ~125 MiB, at 2M: every random read faults in the whole window
# around it -> "lower"; following it, db_bench does more ops/s (bench/apps,
# by hand on this setup: 78 ops/s at 2M, 204 at 512K).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_db_lab 200000
ra_app_cold "$dev" db
ra_set_ra "$dev" 2048
out=$RA_TMP/advise.json

ra_db_bench_bg group "$db" "$RA_TMP/before" readrandom --num=200000 --duration=10 --mmap_read=1
sleep 2
ra_advise_devices "$out" 5 "$dev"
ra_db_bench_wait "$RA_TMP/before" readrandom
before=$RA_DB_OPS
ra_expect_eq "advise exit status" "$RA_ADVISE_RC" 0
ra_expect_eq "advice" "$(ra_device_json "$out" "$dev" 'd["advice"]')" lower
suggested=$(ra_device_json "$out" "$dev" 'd["suggested_kb"]')
ra_expect_eq "suggested below 2048K ($suggested)" "$((suggested < 2048))" 1

ra_app_cold "$dev" db
ra_set_ra "$dev" "$suggested"
ra_db_bench_bg group "$db" "$RA_TMP/after" readrandom --num=200000 --duration=8 --mmap_read=1
ra_db_bench_wait "$RA_TMP/after" readrandom
after=$RA_DB_OPS
ra_expect_better "db_bench readrandom (mmap) ops/s, 2048K -> ${suggested}K" "$before" "$after" higher
