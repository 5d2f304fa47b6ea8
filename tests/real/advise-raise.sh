#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (a): one sequential reader on the HDD model at 128K is limited by
# readahead -> "raise" to 512K. --write makes it a rule by the device's
# ID_SERIAL and applies it; the same reader is then ~4 x as fast (15 -> 59
# MiB/s in bench/benefit).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_install_rule
ra_hdd dev
serial="RA-ADVISE-$$-0001"
ra_add_rule "61-ra-advise-test-$$.rules" \
        "$(printf 'ACTION=="add|change", KERNEL=="%s", ENV{ID_SERIAL}="%s"' "$dev" "$serial")"
ra_change "$dev"
ra_set_ra "$dev" 128
out=$RA_TMP/advise.json

ra_workload_bg "$dev" "$RA_TMP/before" seq 1 8
sleep 1
ra_advise "$dev" 5 "$out" --write
ra_workload_wait "$dev" "$RA_TMP/before"
ra_expect_advice "$out" raise 512
ra_expect_eq "reason" "$(ra_json "$out" 'j["devices"][0]["reason"].split(":")[0]')" \
        "sequential reads limited by readahead"
file=$(ra_json "$out" 'j["devices"][0]["written"]')
case $file in
"$ROOT"/etc/readahead-agent/profiles/default.conf.d/81-advise-*.conf) ;;
*) ra_fail "drop-in written to $file" ;;
esac
grep -qx "Property=ID_SERIAL=$serial" "$file" || ra_fail "the drop-in does not pick the device by ID_SERIAL"
grep -qx "Size=512K" "$file" || ra_fail "the drop-in does not set 512K"
ra_expect_ra "$dev" 512
# The advice stays visible to a fleet through status's Prometheus output.
ra_expect_eq "status --format=prometheus: readahead_advice" \
        "$("$RA_CTL" --root "$ROOT" status --format=prometheus | sed -n "s/^readahead_advice{device=\"$dev\",kind=\"block\",class=\"[a-z]*\"} //p")" 1
ra_expect_eq "read_ahead_kb_after" "$(ra_json "$out" 'j["devices"][0]["read_ahead_kb_after"]')" 512

ra_workload_bg "$dev" "$RA_TMP/after" seq 1 4
ra_workload_wait "$dev" "$RA_TMP/after"
ra_expect_better "one stream, MiB/s" "$(ra_field "$RA_TMP/before" mib_per_s)" \
        "$(ra_field "$RA_TMP/after" mib_per_s)" higher
