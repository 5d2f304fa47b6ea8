#!/bin/bash
# SPDX-License-Identifier: MIT
# readahead-agent --watch --advise-sec: one sequential reader on the HDD
# model at 128K (advise-raise's case), observed by the long-running agent
# in 2 s windows. Its log says raise for the device, the metrics file has
# the device's readahead_advice, and read_ahead_kb is still 128: observing
# only. --dry-run keeps the agent's own pass from setting the profile's
# value, so that any write would be advise's.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_hdd dev
ra_set_ra "$dev" 128
metrics=$RA_TMP/metrics.prom
log=$RA_TMP/agent.log

ra_workload_bg "$dev" "$RA_TMP/reader" seq 1 20
reader=$RA_WORKLOAD_PID
"$RA_AGENT" --root "$ROOT" --watch --dry-run --advise-sec=2 --metrics-file "$metrics" \
        --alive-file "$RA_TMP/alive" --ctl "$RA_CTL" 2>"$log" &
agent=$!
RA_BG_PIDS+=("$agent")
# Within 15 s: a window or two of 2 s, and the status run that follows.
for ((i = 0; i < 150; i++)); do
        grep -q "^readahead-agent: $dev: advice raise" <(ra_agent_log "$log") &&
                grep -q "^readahead_advice{device=\"$dev\"" "$metrics" 2>/dev/null && break
        kill -0 "$agent" 2>/dev/null || break
        sleep 0.1
done
ra_log "agent: $(grep "^readahead-agent: $dev:" <(ra_agent_log "$log") | head -n1)"
grep -q "^readahead-agent: $dev: advice raise, read_ahead_kb 512K suggested (128K now, observing only)" <(ra_agent_log "$log") ||
        { ra_agent_log "$log" >&2; ra_fail "no raise for $dev in the agent's log"; }
ra_expect_eq "readahead_advice in $metrics" \
        "$(sed -n "s/^readahead_advice{device=\"$dev\",kind=\"block\",class=\"[a-z]*\"} //p" "$metrics")" 1
ra_expect_eq "readahead_advice_suggested_bytes in $metrics" \
        "$(sed -n "s/^readahead_advice_suggested_bytes{device=\"$dev\",kind=\"block\",class=\"[a-z]*\"} //p" "$metrics")" \
        $((512 * 1024))
grep -q '^readahead_metrics_last_success_timestamp_seconds ' "$metrics" ||
        ra_fail "the metrics file has no last-success gauge"
ra_expect_ra "$dev" 128
kill -TERM "$agent"
wait "$agent" || ra_fail "the agent exited $? on SIGTERM"
RA_BG_PIDS=("$reader")
ra_workload_wait "$dev" "$RA_TMP/reader"
ra_expect_ra "$dev" 128
