#!/bin/bash
# SPDX-License-Identifier: MIT
# Fleets: `readahead-ctl status --format=prometheus` written where a real
# prometheus-node-exporter's textfile collector reads it, scraped over
# loopback with curl: the loop device's target, current value and drift.
. "$(dirname "$0")/lib.sh"
ra_init
exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[ -n "$exporter" ] || ra_skip "prometheus-node-exporter is not installed"
command -v curl >/dev/null || ra_skip "curl is not installed"
ra_install_rule

ra_attach 20G big
ra_expect_ra "$big" 512

textdir=$RA_TMP/textfile
mkdir -p "$textdir"
refresh() { # as the documented timer does: write aside, then rename
        "$RA_CTL" --root "$ROOT" --format=prometheus status >"$textdir/readahead.prom.tmp" ||
                ra_fail "status --format=prometheus exited $?"
        mv "$textdir/readahead.prom.tmp" "$textdir/readahead.prom"
}
refresh

port=$((20000 + $$ % 20000))
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$textdir" >"$RA_TMP/exporter.log" 2>&1 &
RA_BG_PIDS+=("$!")
scrape() { curl -fsS --max-time 5 "http://127.0.0.1:$port/metrics"; }
for _ in $(seq 50); do
        scrape >/dev/null 2>&1 && break
        kill -0 "${RA_BG_PIDS[-1]}" 2>/dev/null || { cat "$RA_TMP/exporter.log" >&2; ra_fail "node_exporter exited"; }
        sleep 0.1
done

# node_exporter orders labels by name.
labels="class=\"hdd\",device=\"$big\",kind=\"block\""
expect_metric() { # NAME VALUE; the exporter prints 4194304 as 4.194304e+06
        local got
        got=$(scrape | sed -n "s/^$1{$labels} //p" | awk '{ printf "%.0f", $1 }')
        ra_expect_eq "scraped $1{$labels}" "$got" "$2"
}
out=$(scrape) || ra_fail "scrape failed"
grep -q '^node_textfile_scrape_error 0$' <<<"$out" || { grep textfile <<<"$out" >&2; ra_fail "the textfile collector reports an error"; }
expect_metric readahead_target_bytes $((512 * 1024))
expect_metric readahead_current_bytes $((512 * 1024))
expect_metric readahead_drift 0

# Drift shows on the next refresh.
ra_set_ra "$big" 4096
refresh
expect_metric readahead_current_bytes $((4096 * 1024))
expect_metric readahead_drift 1
expect_metric readahead_target_bytes $((512 * 1024))
