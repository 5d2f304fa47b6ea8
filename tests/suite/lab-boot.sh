#!/bin/bash
# SPDX-License-Identifier: MIT
# lab-boot.sh: ra_lab_boot (tests/lib/lab.sh), with a stand-in for a
# runner's boot_guest that writes a console log and sets status as a guest
# would: a failed boot whose kernel panicked boots once more, a failure
# without a panic or a boot that passed does not, and a panic on every boot
# still fails. Needs nothing but bash.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/lab.sh
. "$here/../lib/lab.sh"
ra_lab_name lab-boot "the test"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
        echo "FAIL: $*"
        failed=1
}

panic_line=$'[   45.043432] Kernel panic - not syncing: Fatal exception in interrupt\r'

# Each boot takes the next outcome from $outcomes: "panic" (the console
# shows a panic, no status), "fail" (status 1, a quiet console), "pass"
# (status 0), "pass-panic" (status 0, though the console shows a panic).
boots=0
fake_boot() {
        local outcome=${outcomes[$boots]}
        boots=$((boots + 1))
        printf 'boot %d\r\n' "$boots" >"$tmp/console.log"
        case $outcome in
        panic) echo "$panic_line" >>"$tmp/console.log"; status="" ;;
        fail) status=1 ;;
        pass) status=0 ;;
        pass-panic) echo "$panic_line" >>"$tmp/console.log"; status=0 ;;
        esac
}

# check OUTCOMES... -- BOOTS STATUS: ra_lab_boot booted BOOTS times and
# left STATUS.
check() {
        outcomes=()
        while [ "$1" != -- ]; do outcomes+=("$1"); shift; done
        local want_boots=$2 want_status=$3
        boots=0 status=unset
        ra_lab_boot fake_boot "$tmp/console.log" 2>"$tmp/log"
        [ "$boots" = "$want_boots" ] && [ "$status" = "$want_status" ] ||
                fail "${outcomes[*]}: $boots boot(s), status '$status'; want $want_boots, '$want_status'"
}

check panic pass -- 2 0
check panic fail -- 2 1
check panic panic -- 2 ""
check fail pass -- 1 1
check pass -- 1 0
check pass-panic pass -- 1 0

# The retry says why, with the panic.
outcomes=(panic pass) boots=0
ra_lab_boot fake_boot "$tmp/console.log" 2>"$tmp/log"
grep -q "kernel panicked" "$tmp/log" && grep -q "Kernel panic - not syncing" "$tmp/log" ||
        fail "the retry's message lacks the reason or the panic: $(cat "$tmp/log")"

[ "$failed" = 0 ] && echo "PASS: lab-boot"
exit "$failed"
