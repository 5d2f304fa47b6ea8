#!/bin/bash
# SPDX-License-Identifier: MIT
# readahead-advise.timer and .service as shipped: the timer is valid, the
# service runs advise for a minute without writing a rule, its sandbox scores
# at most 2.0 in systemd-analyze security (offline, no PID 1 needed), and the
# package installs the units without enabling them.
set -euo pipefail
: "${RA_SOURCE_DIR:?run through ctest}" "${RA_BUILD_DIR:?}"
service=$RA_BUILD_DIR/units/readahead-advise.service
timer=$RA_SOURCE_DIR/units/readahead-advise.timer
fails=0
fail() { printf 'FAIL: %s\n' "$*" >&2; fails=$((fails + 1)); }
ok() { printf 'ok: %s\n' "$*"; }

if ! command -v systemd-analyze >/dev/null; then
        [ -z "${CI:-}" ] || { echo "FAIL: systemd-analyze not found, and CI is set" >&2; exit 1; }
        echo "SKIP: systemd-analyze not found (systemd package)" >&2
        exit 77
fi
out=$(systemd-analyze verify --man=no "$timer" 2>&1) && ok "the timer verifies" || fail "systemd-analyze verify: $out"
grep -qx 'ExecStart=.*/readahead-ctl advise --time 60 --format=prometheus' "$service" &&
        ok "the service runs advise --time 60" || fail "ExecStart: $(grep ExecStart "$service")"
! grep -q -- '--write' "$service" && ok "the service writes no rule" || fail "the service runs advise --write"
score=$(systemd-analyze security --offline=yes "$service" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.0) }' && ok "exposure $score" || fail "exposure '$score', expected at most 2.0"
grep -q 'dh_installsystemd --no-enable --no-start' "$RA_SOURCE_DIR/debian/rules" &&
        ok "debian/rules installs the units without enabling them" || fail "debian/rules enables the units"
[ "$fails" = 0 ]
