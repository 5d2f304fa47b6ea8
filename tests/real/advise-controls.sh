#!/bin/bash
# SPDX-License-Identifier: MIT
# advise, negative controls at 4M on the HDD model, where readahead has no
# part and advise must not blame it:
#   (d) an idle device -> "no signal", exit 0, and the table says so;
#   (e) O_DIRECT reads of 1M -> "no signal" (they bypass the page cache);
#   (f) random 4K read() calls -> "keep" (x1.00 amplification at every size).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_hdd dev
ra_set_ra "$dev" 4096
out=$RA_TMP/advise.json

# (d)
ra_advise "$dev" 3 "$out"
ra_expect_advice "$out" "no signal" 4096
ra_expect_eq "reason" "$(ra_json "$out" 'j["devices"][0]["reason"]')" "no reads in 3 s"
rc=0
"$RA_CTL" --root "$ROOT" advise --time 2 "$dev" >"$RA_TMP/table.txt" || rc=$?
cat "$RA_TMP/table.txt" >&2
ra_expect_eq "advise (table) exit status" "$rc" 0
grep -qx "$dev: no signal: no reads in 2 s." "$RA_TMP/table.txt" || ra_fail "the table does not say 'no signal'"

# (e)
ra_workload_bg "$dev" "$RA_TMP/direct" rand 1024 7 direct
sleep 1
ra_advise "$dev" 5 "$out"
ra_workload_wait "$dev" "$RA_TMP/direct"
ra_expect_advice "$out" "no signal" 4096
# (99% or 100%: another process's pins in the same seconds count too)
ra_expect_eq "reason" "$(ra_json "$out" 'j["devices"][0]["reason"].split("% ", 1)[1]')" \
        "of the reads bypass the page cache (O_DIRECT): readahead plays no part"

# (f)
ra_workload_bg "$dev" "$RA_TMP/rand" rand 4 7
sleep 1
ra_advise "$dev" 5 "$out"
ra_workload_wait "$dev" "$RA_TMP/rand"
ra_expect_advice "$out" keep 4096
ra_expect_eq "reason" "$(ra_json "$out" 'j["devices"][0]["reason"]')" \
        "requests average 4K against read_ahead_kb 4M: readahead does not drive these reads (random or small reads)"
ra_expect_ra "$dev" 4096
