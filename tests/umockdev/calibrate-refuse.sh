#!/bin/bash
# SPDX-License-Identifier: MIT
# readahead-ctl calibrate refuses, clearly and before touching anything,
# what it must not measure: a memory device (zram), an optical drive, a
# partition; and bad options are usage errors (exit 2). Fake trees, so no
# device is ever read.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"

# Not ra_umock_require: this test needs neither python3 nor the agent.
command -v umockdev-run >/dev/null ||
        ra_umock_missing umockdev "umockdev-run not found (install the umockdev package)"
for v in RA_TESTROOT RA_CTL; do
        [ -n "${!v:-}" ] || { echo "ERROR: $v is not set (run through ctest)" >&2; exit 2; }
done

# ASan must tolerate umockdev's preload library loading before it.
case ${ASAN_OPTIONS:-} in
*verify_asan_link_order*) ;;
*) export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 ;;
esac

fails=0
# check TREE EXPECTED_STATUS MESSAGE ATTR ARGS...: runs readahead-ctl ARGS in
# TREE; checks the status, that stderr has MESSAGE, and that the sysfs
# attribute ATTR (or "-") still reads as before.
check() {
        local tree=$1 want=$2 msg=$3 attr=$4 out
        shift 4
        out=$(umockdev-run -d "$here/trees/$tree.umockdev" -- sh -c '
                a=$1; shift
                before=$( [ "$a" = - ] || cat "$a")
                rc=0
                "$@" 2>&1 || rc=$?
                after=$( [ "$a" = - ] || cat "$a")
                echo "status=$rc"
                [ "$before" = "$after" ] || echo "CHANGED: $a from $before to $after"
        ' sh "$attr" "$RA_CTL" --root "$RA_TESTROOT" "$@") || true
        if ! grep -qx "status=$want" <<<"$out" || ! grep -qF -- "$msg" <<<"$out" || grep -q CHANGED <<<"$out"; then
                printf 'FAIL: %s: readahead-ctl %s: expected status %s and "%s", got:\n%s\n' "$tree" "$*" "$want" \
                        "$msg" "$out" >&2
                fails=$((fails + 1))
        else
                printf 'ok: %s: readahead-ctl %s: status %s, "%s"\n' "$tree" "$*" "$want" "$msg"
        fi
}

if [ "$(id -u)" != 0 ]; then
        # calibrate asks for root before anything else (a package build runs
        # this without root): that is all there is to check.
        check sata-hdd 1 "calibrate: needs root" /sys/block/sda/queue/read_ahead_kb calibrate sda
        # Usage errors come first, for anyone.
        check sata-hdd 2 "--time=0: expected a whole number" - calibrate --write --time 0 md0
        [ "$fails" = 0 ] || exit 1
        exit 0
fi
check zram 1 "zram0 is a memory device" /sys/block/zram0/queue/read_ahead_kb calibrate zram0
check zram 1 "zram0 is a memory device" /sys/block/zram0/queue/read_ahead_kb calibrate --write /dev/zram0
check optical 1 "sr0 is an optical drive" /sys/block/sr0/queue/read_ahead_kb calibrate sr0
check partition 1 "sda1: not a whole disk" - calibrate sda1
check sata-hdd 2 "--time=0: expected a whole number" /sys/block/sda/queue/read_ahead_kb calibrate --time 0 sda
# Usage errors before the device's: no such device (md0), no stable id, a
# memory device.
check sata-hdd 2 "--time=0: expected a whole number" - calibrate --write --time 0 md0
check zram 2 "--rounds=10: expected a whole number" /sys/block/zram0/queue/read_ahead_kb calibrate --rounds 10 zram0
# Digits only, as advise's --time and the agent's --check-sec (ra_parse_uint).
check zram 2 "--rounds=+5: expected a whole number" /sys/block/zram0/queue/read_ahead_kb calibrate --rounds +5 zram0
check zram 2 "--streams= 4: expected a whole number" /sys/block/zram0/queue/read_ahead_kb calibrate --streams " 4" zram0
check sata-hdd 2 "holds fewer than two powers of two" /sys/block/sda/queue/read_ahead_kb \
        calibrate --min 4M --max 4M sda
check sata-hdd 2 "give at least 24 s" /sys/block/sda/queue/read_ahead_kb calibrate --time 10 --min 64K --max 1M sda
check sata-hdd 2 "--write is an option of calibrate and advise" /sys/block/sda/queue/read_ahead_kb apply --write sda
# The option is named, not its value, whatever form was typed.
check sata-hdd 2 "--time is an option of calibrate and advise" /sys/block/sda/queue/read_ahead_kb status --time 60
check sata-hdd 2 "--rounds is an option of calibrate only" /sys/block/sda/queue/read_ahead_kb status --rounds=3
check sata-hdd 2 "--rounds=10: expected a whole number from 1 to 9" /sys/block/sda/queue/read_ahead_kb \
        calibrate --rounds 10 sda

[ "$fails" = 0 ] || exit 1
