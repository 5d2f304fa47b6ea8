#!/bin/bash
# SPDX-License-Identifier: MIT
# calibrate on a 2000 IOPS / 200 MiB/s device, as a person runs it on a
# terminal: the knee is 128 KiB (64K gives ~125 MiB/s, 128K ~200), the table
# and a progress bar show, and read_ahead_kb goes back to what it was.
. "$(dirname "$0")/calibrate-common.sh"
ra_calibrate_init
command -v script >/dev/null || ra_skip "script (bsdutils) is not installed"

ra_emulated_device 2000 209715200 dev
ra_set_ra "$dev" 2048
log=$RA_TMP/typescript

start=$(date +%s)
rc=0
# script(1) gives calibrate a terminal; -e passes its exit status on.
ra_emu_exec script -qec "$RA_CTL --root $ROOT calibrate --time 40 --min 16K --max 1M $dev" "$log" \
        >/dev/null 2>&1 || rc=$?
ra_log "calibrate took $(($(date +%s) - start)) s"
tr '\r' '\n' <"$log" | grep -v '^\[' >&2 || true
ra_expect_eq "calibrate exit status" "$rc" 0
grep -q '^Knee: 128K, ' "$log" || ra_fail "no 'Knee: 128K' line"
grep -qE '^ +128K \* ' "$log" || ra_fail "the table does not mark 128K"
grep -qE $'\r\\[#*\\.*\\] +[0-9]+%' "$log" || ra_fail "no progress bar on the terminal"
grep -q '^read_ahead_kb put back to 2M\.' "$log" || ra_fail "no word of putting read_ahead_kb back"
ra_expect_ra "$dev" 2048
