#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (n), Tune=yes: two HDD model devices at 128K, one sequential reader on
# each, watched by the long-running agent in 3 s windows. A's rule says
# Tune=yes (Minimum=64K, Maximum=2M), B's does not; every other device is
# left alone (Size=keep), so the agent writes nothing else of this machine.
#   1. A is raised to 512K within 3 windows, by the agent alone, with its
#      evidence in the log; B stays at 128K, its advice "observing only"
#      (A's reader keeps reading at 128K: the kernel copies read_ahead_kb
#      into a file at open);
#   2. explain and status show the tuned value and how to go back;
#   3. with the agent stopped, a change event on A writes the tuned value
#      (the state under /var/lib), not the rule's 128K;
#   4. a value written by hand (1M) is kept while the agent runs on;
#   5. readahead-ctl apply puts the rule's 128K back and the agent forgets
#      A's tuning.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_hdd_group a dev_a group_a
ra_hdd_group b dev_b group_b
ra_tune_lab Default=128K Minimum=32K Maximum=16M < <(ra_tune_rules tuned observed "$dev_a" "$dev_b")
ra_install_rule
ra_set_ra "$dev_a" 256
ra_set_ra "$dev_b" 256
ra_change "$dev_a" "$dev_b"
ra_expect_ra "$dev_a" 128
ra_expect_ra "$dev_b" 128
state=$ROOT/var/lib/readahead-agent/tune
log=$RA_TMP/agent.log

# wait_for SECONDS CONDITION...: true once the condition holds
wait_for() {
        local deadline=$((SECONDS + $1))
        shift
        until "$@"; do
                ((SECONDS < deadline)) || return 1
                sleep 0.2
        done
}
# start_agent: the agent, returned once its start pass is done (the
# liveness file is written after each pass)
start_agent() {
        rm -f "$RA_TMP/alive"
        "$RA_AGENT" --root "$ROOT" --watch --advise-sec=3 --alive-file "$RA_TMP/alive" --ctl "$RA_CTL" \
                2>>"$log" &
        agent=$!
        RA_BG_PIDS+=("$agent")
        wait_for 10 test -s "$RA_TMP/alive" || { ra_agent_log "$log" >&2; ra_fail "the agent did not finish its start pass"; }
}
stop_agent() {
        kill -TERM "$agent"
        wait "$agent" || ra_fail "the agent exited $? on SIGTERM"
        local keep=() p
        for p in "${RA_BG_PIDS[@]}"; do [ "$p" = "$agent" ] || keep+=("$p"); done
        RA_BG_PIDS=("${keep[@]}")
}
ra_is() { [ "$(ra_ra_kb "$1")" = "$2" ]; }

ra_workload_in group_a "$dev_a" "$RA_TMP/a" seq 1 35
pid_a=$RA_WORKLOAD_PID
ra_workload_in group_b "$dev_b" "$RA_TMP/b" seq 1 35
pid_b=$RA_WORKLOAD_PID
start_agent
started=$SECONDS

# 1. within 3 windows (9 s), and the window's own sampling, 12 s at most
wait_for 12 ra_is "$dev_a" 512 || { ra_agent_log "$log" >&2; ra_fail "A was not raised to 512K within 3 windows"; }
ra_log "A raised to 512K after $((SECONDS - started)) s"
grep "$dev_a: tune:" <(ra_agent_log "$log") | head -n2 >&2
grep -q "^readahead-agent: $dev_a: tune: read_ahead_kb 128K -> 512K (Tune=yes): sequential reads limited by readahead" \
        <(ra_agent_log "$log") || { ra_agent_log "$log" >&2; ra_fail "no tuning step with its evidence in the agent's log"; }
grep -q "^readahead-agent: $dev_b: advice raise, read_ahead_kb 512K suggested (128K now, observing only)" <(ra_agent_log "$log") ||
        { ra_agent_log "$log" >&2; ra_fail "no observed advice for B"; }
sleep 4 # a window more: B is still only observed
ra_expect_ra "$dev_b" 128
grep -q "$dev_b: tune:" <(ra_agent_log "$log") && ra_fail "B's rule does not tune, yet: $(grep "$dev_b: tune:" <(ra_agent_log "$log"))"

# 2. what status and explain say
ra_expect_status "$dev_a" target_kb 512
explain=$("$RA_CTL" --root "$ROOT" explain "$dev_a")
grep -q "^Tuned: 512K since .*, by the agent (Tune=yes): " <<<"$explain" ||
        ra_fail "explain does not show the tuning: $explain"
grep -q "'readahead-ctl apply' goes back to the rule's 128K" <<<"$explain" ||
        ra_fail "explain does not say how to go back: $explain"

# 3. the state outlives the agent: an event writes the tuned value
stop_agent
grep -q "^name=$dev_a,size=[0-9]*	512	128	1	" "$state" || ra_fail "no state for A in $state: $(cat "$state")"
ra_set_ra "$dev_a" 256
ra_change "$dev_a"
ra_expect_ra "$dev_a" 512

# 4. a value written by hand is kept
start_agent
ra_set_ra "$dev_a" 1024
sleep 7 # two windows
ra_expect_ra "$dev_a" 1024
grep -q "^readahead-agent: $dev_a: tune: read_ahead_kb 1M kept: 1M was written by someone else (512K expected)" \
        <(ra_agent_log "$log") || { ra_agent_log "$log" >&2; ra_fail "the hand write was not logged as kept"; }

# 5. apply goes back to the rule's value and forgets the tuning
stop_agent
"$RA_CTL" --root "$ROOT" apply "$dev_a" >"$RA_TMP/apply.out" || ra_fail "apply failed: $(cat "$RA_TMP/apply.out")"
ra_expect_ra "$dev_a" 128
grep -q "^name=$dev_a," "$state" && ra_fail "apply left A's tuning in $state"
"$RA_CTL" --root "$ROOT" explain "$dev_a" | grep -q "^Tuned:" && ra_fail "explain still shows A as tuned"
ra_workload_join "$pid_a" "$dev_a" "$RA_TMP/a"
ra_workload_join "$pid_b" "$dev_b" "$RA_TMP/b"
