#!/bin/bash
# SPDX-License-Identifier: MIT
# Tune=yes follows a switch and leaves the controls alone (issue 33, point
# 4, the short version CI runs; bench/tune-hold holds for 30 minutes). Three
# HDD model devices at the profile's 512K, each rule Tune=yes, one agent
# with --advise-sec=4:
#   A: one sequential stream, run after run, until A's value has held two
#      windows; then random page faults instead: the first lower within 3
#      windows of the switch;
#   B: random 4K reads (advise-controls' (f), keep) and C: idle (no
#      signal), all along: never tuned, 512K at the end.
# RA_TUNE_HOLD_SEC (default 0; bench/tune-hold gives 1800): after the
# switch, the three go on that long more, and A, once its value has held
# three windows, keeps it to the end.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_hdd_group a dev_a group_a
ra_hdd_group b dev_b group_b
ra_hdd_group c dev_c group_c
window=4
log=$RA_TMP/agent.log
hold=${RA_TUNE_HOLD_SEC:-0}
[[ $hold =~ ^[0-9]+$ ]] || ra_fail "RA_TUNE_HOLD_SEC=$hold: not a number of seconds"
ra_tune_lab Default=512K Minimum=32K Maximum=16M SmallDeviceCap=no <<CONF
[Rule lab]
Kind=block
Name=$dev_a $dev_b $dev_c
Size=default
Tune=yes
CONF
ra_install_rule
ra_change "$dev_a" "$dev_b" "$dev_c"
for d in "$dev_a" "$dev_b" "$dev_c"; do ra_expect_ra "$d" 512; done

ra_again seq group_a "$dev_a" seq 1 3 &
seq_loop=$!
ra_again rand group_b "$dev_b" rand 4 3 &
rand_loop=$!
RA_BG_PIDS+=("$seq_loop" "$rand_loop")
ra_tune_agent $window "$log"

# A settles: the same value at three window ends in a row, within 8 windows
sleep 1
values=()
for w in 1 2 3 4 5 6 7 8; do
        sleep $window
        values+=("$(ra_ra_kb "$dev_a")")
        n=${#values[@]}
        ((n >= 3)) && [ "${values[n - 1]}" = "${values[n - 2]}" ] && [ "${values[n - 2]}" = "${values[n - 3]}" ] && break
done
settled=${values[-1]}
ra_log "A with one stream, at each window's end: ${values[*]}"
((n >= 3)) && [ "${values[n - 1]}" = "${values[n - 3]}" ] || ra_fail "A did not settle in 8 windows: ${values[*]}"

# the switch: random page faults on A
touch "$RA_TMP/seq.stop"
wait "$seq_loop" || true
ra_again faults group_a "$dev_a" faults 3 &
faults_loop=$!
RA_BG_PIDS+=("$faults_loop")
switched=$SECONDS
lowered=""
for w in 1 2 3; do
        sleep $window
        now=$(ra_ra_kb "$dev_a")
        if ((now < settled)); then
                lowered=$w
                break
        fi
done
sleep 1
ra_log "A after the switch: ${settled}K -> $(ra_ra_kb "$dev_a")K, lowered in window ${lowered:-none} ($((SECONDS - switched)) s)"
held=()
if ((hold > 0)); then
        ra_log "holding for $hold s: A random page faults, B random 4K reads, C idle"
        end=$((SECONDS + hold))
        while ((SECONDS < end)); do
                sleep $window
                held+=("$(ra_ra_kb "$dev_a")")
        done
fi
touch "$RA_TMP/faults.stop" "$RA_TMP/rand.stop"
ra_tune_agent_stop
wait "$faults_loop" "$rand_loop" || true
RA_BG_PIDS=()
{ grep ": tune: " <(ra_agent_log "$log") || true; } | sed "s/^/# $RA_TEST_NAME: /" >&2
[ -n "$lowered" ] || ra_fail "A was not lowered within 3 windows of the switch (still ${settled}K)"
ra_expect_eq "B (random 4K reads): tuning steps" "$(grep -c "^readahead-agent: $dev_b: tune: read_ahead_kb" <(ra_agent_log "$log"))" 0
ra_expect_eq "C (idle): tuning steps" "$(grep -c "^readahead-agent: $dev_c: tune: read_ahead_kb" <(ra_agent_log "$log"))" 0
ra_expect_ra "$dev_b" 512
ra_expect_ra "$dev_c" 512
if ((hold > 0)); then
        # A's value at each window's end: from the first that held three
        # windows, the same to the end
        n=${#held[@]} from=""
        for ((i = 0; i + 2 < n; i++)); do
                [ "${held[i]}" = "${held[i + 1]}" ] && [ "${held[i]}" = "${held[i + 2]}" ] && { from=$i; break; }
        done
        [ -n "$from" ] || ra_fail "A never held a value three windows in $hold s: ${held[*]}"
        moved=$(printf '%s\n' "${held[@]:from}" | sort -u | wc -l)
        ra_log "hold: A at ${held[from]}K from window $((from + 1)) of $n, $((moved - 1)) changes after; B and C never tuned"
        ra_expect_eq "A's values after it held three windows, to the end of the hold" "$moved" 1
fi
