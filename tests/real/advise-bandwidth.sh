#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (q): a raise that was followed must buy 10% more read rate before
# the next. Four streams on a solid device of 100 IOPS and 40 MiB/s (a
# cloud volume's kind of limits, slower): at 128K they are held by the
# IOPS (12.5 MiB/s) -> raise 512K; at 512K by the bandwidth -> raise 2M (the
# rule cannot tell yet); at 2M they read what they read at 512K, as
# stalled -> keep, the device is the limit. Each advice is followed by hand
# (the record, kept by advise under ROOT, carries the rate before a raise).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emulated_device 100 41943040 dev
echo 0 >"/sys/block/$dev/queue/rotational"
out=$RA_TMP/advise.json

# ra_round N KB: the four streams at KB, advise watching; the stream's
# numbers in $RA_TMP/roundN.
ra_round() {
        ra_set_ra "$dev" "$2"
        ra_workload_bg "$dev" "$RA_TMP/round$1" seq 4 8
        sleep 1
        ra_advise "$dev" 5 "$out.$1"
        ra_workload_wait "$dev" "$RA_TMP/round$1"
        ra_log "round $1 at ${2}K: $(ra_field "$RA_TMP/round$1" mib_per_s) MiB/s"
}
ra_round 1 128
ra_expect_advice "$out.1" raise 512
ra_round 2 512
ra_expect_advice "$out.2" raise 2048
ra_round 3 2048
ra_expect_advice "$out.3" keep 2048
reason=$(ra_json "$out.3" 'j["devices"][0]["reason"]')
case $reason in
*"; but the last raise to 2M gained nothing: "*" so the device, not readahead, is the limit") ;;
*) ra_fail "keep for another reason: $reason" ;;
esac
# The keep's premise, by the streams' own numbers: 2M is no better than
# 512K, and 512K was better than 128K.
mib() { ra_field "$RA_TMP/round$1" mib_per_s; }
python3 -c 'import sys; r1, r2, r3 = map(float, sys.argv[1:]); sys.exit(0 if r2 > 1.25 * r1 and r3 < 1.1 * r2 else 1)' \
        "$(mib 1)" "$(mib 2)" "$(mib 3)" ||
        ra_fail "MiB/s at 128K, 512K, 2M: $(mib 1), $(mib 2), $(mib 3): not a raise that gained, then one that did not"
ra_expect_ra "$dev" 2048
