#!/bin/bash
# SPDX-License-Identifier: MIT
# calibrate stopped half way puts read_ahead_kb back: on SIGTERM (exit 143),
# on SIGINT (130), and on a second SIGTERM that arrives while the first is
# being handled.
. "$(dirname "$0")/calibrate-common.sh"
ra_calibrate_init

ra_emulated_device 125 104857600 dev
ra_set_ra "$dev" 300 # no size calibrate itself would set

# ra_interrupt SIGNAL... : starts calibrate, waits until it has changed
# read_ahead_kb, sends the signals, checks the value; RC gets the status.
ra_interrupt() {
        local pid i err=$RA_TMP/err.txt
        RC=0
        ra_emu_exec -x "$RA_CTL" --root "$ROOT" calibrate --time 60 "$dev" >"$RA_TMP/out.txt" 2>"$err" &
        pid=$!
        RA_BG_PIDS+=("$pid")
        for i in $(seq 100); do
                [ "$(ra_ra_kb "$dev")" != 300 ] && break
                sleep 0.1
        done
        [ "$(ra_ra_kb "$dev")" != 300 ] || ra_fail "calibrate never set read_ahead_kb"
        sleep 1
        for i in "$@"; do
                kill -s "$i" "$pid"
        done
        wait "$pid" || RC=$?
        RA_BG_PIDS=() # reaped: its pid may be reused
        cat "$err" >&2
        # (after a second signal it leaves at once, without a word)
        [ $# -gt 1 ] || grep -q "interrupted by" "$err" || ra_fail "calibrate did not say it was interrupted"
        ra_expect_ra "$dev" 300
}

ra_interrupt TERM
ra_expect_eq "exit status after SIGTERM" "$RC" 143
ra_interrupt INT
ra_expect_eq "exit status after SIGINT" "$RC" 130
ra_interrupt TERM TERM
ra_expect_eq "exit status after SIGTERM twice" "$RC" 143
