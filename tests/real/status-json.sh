#!/bin/bash
# SPDX-License-Identifier: MIT
# (f) `readahead-ctl status --json` lists the loop devices udev just set up,
# with target_kb equal to current_kb and no drift.
. "$(dirname "$0")/lib.sh"
ra_init
ra_install_rule
if command -v jq >/dev/null; then
        :
else
        ra_skip "jq is not installed"
fi

ra_attach 20G big
ra_attach 64M small
ra_expect_ra "$big" 512
ra_expect_ra "$small" 64

json=$RA_TMP/status.json
"$RA_CTL" --root "$ROOT" status --json >"$json" || ra_fail "status --json exited $?"
jq -e . "$json" >/dev/null || { cat "$json" >&2; ra_fail "status --json is not valid JSON"; }
jq -e '.devices | type == "array"' "$json" >/dev/null || ra_fail "no devices array"
jq -e '.profile == "default"' "$json" >/dev/null || ra_fail "profile is not \"default\""

check_dev() {
        local n=$1 want=$2 d
        d=$(jq -c --arg n "$n" '[.devices[] | select(.name == $n)]' "$json")
        [ "$(jq length <<<"$d")" = 1 ] || { cat "$json" >&2; ra_fail "$n listed $(jq length <<<"$d") times, want once"; }
        d=$(jq -c '.[0]' <<<"$d")
        ra_log "$n: $d"
        ra_expect_eq "$n kind" "$(jq -r .kind <<<"$d")" block
        ra_expect_eq "$n target_kb" "$(jq -r .target_kb <<<"$d")" "$want"
        ra_expect_eq "$n current_kb" "$(jq -r .current_kb <<<"$d")" "$want"
        ra_expect_eq "$n drift" "$(jq -r .drift <<<"$d")" false
        ra_expect_eq "$n transport" "$(jq -r .transport <<<"$d")" loop
        jq -e '.rule | type == "string" and endswith("profiles/default.conf:disk")' <<<"$d" >/dev/null ||
                ra_fail "$n rule is not default.conf:disk"
}
check_dev "$big" 512
check_dev "$small" 64
size=$(jq -r --arg n "$big" '.devices[] | select(.name == $n) | .size_bytes' "$json")
ra_expect_eq "$big size_bytes" "$size" $((20 * 1024 * 1024 * 1024))

# Drift shows: someone else changes the value, status says so.
ra_set_ra "$big" 4096
"$RA_CTL" --root "$ROOT" status --json >"$json" || ra_fail "status --json exited $?"
d=$(jq -c --arg n "$big" '.devices[] | select(.name == $n)' "$json")
ra_expect_eq "$big current_kb after a foreign write" "$(jq -r .current_kb <<<"$d")" 4096
ra_expect_eq "$big target_kb after a foreign write" "$(jq -r .target_kb <<<"$d")" 512
ra_expect_eq "$big drift after a foreign write" "$(jq -r .drift <<<"$d")" true

# The table for people names our devices too.
"$RA_CTL" --root "$ROOT" status >"$RA_TMP/status.txt" || ra_fail "status exited $?"
grep -qw "$big" "$RA_TMP/status.txt" || { cat "$RA_TMP/status.txt" >&2; ra_fail "status table lacks $big"; }
