#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (c): random page faults through a read-only mapping at 4M read
# x1024 of what they use (bench/benefit: 21 faults/s) -> "lower" to 1M; at
# 1M the same workload takes more faults a second and reads less per fault.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_hdd dev
ra_set_ra "$dev" 4096
out=$RA_TMP/advise.json

ra_workload_bg "$dev" "$RA_TMP/before" faults 8
sleep 1
ra_advise "$dev" 5 "$out"
ra_workload_wait "$dev" "$RA_TMP/before"
ra_expect_advice "$out" lower 1024
ra_expect_eq "reason" "$(ra_json "$out" 'j["devices"][0]["reason"].split(":")[0]')" \
        "random page faults pay for read-around"
ra_expect_ra "$dev" 4096

ra_set_ra "$dev" 1024
ra_workload_bg "$dev" "$RA_TMP/after" faults 4
ra_workload_wait "$dev" "$RA_TMP/after"
ra_expect_better "faults a second" "$(ra_field "$RA_TMP/before" ops_per_s)" \
        "$(ra_field "$RA_TMP/after" ops_per_s)" higher
per_fault() { echo $(($(ra_field "$1" device_bytes) / $(ra_field "$1" ops))); }
ra_expect_better "bytes read per fault" "$(per_fault "$RA_TMP/before")" "$(per_fault "$RA_TMP/after")" lower
