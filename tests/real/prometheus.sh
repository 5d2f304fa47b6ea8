#!/bin/bash
# SPDX-License-Identifier: MIT
# Fleets: `readahead-ctl status --format=prometheus` written where a real
# prometheus-node-exporter's textfile collector reads it, scraped over
# loopback with curl: the loop device's target, current value and drift.
. "$(dirname "$0")/lib.sh"
ra_init
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

ra_node_exporter "$textdir"
scrape() { ra_scrape; }

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
