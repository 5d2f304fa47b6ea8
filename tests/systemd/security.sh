#!/bin/bash
# SPDX-License-Identifier: MIT
#
# security.sh: every unit the package ships scores at most 2.0 ("SAFE") in
# `systemd-analyze security --offline=yes`, on this machine's systemd
# (Debian 12: 252) and on Debian 13's (257, the binary of the cached trixie
# root of tests/debian-root, run through that root's own loader: nothing is
# run inside the root, nothing written to it). A directive dropped from a
# unit, or a newer systemd weighing a new one, raises the score and fails
# this test; the lines it prints name what is still open.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/lab.sh
. "$src/tests/lib/lab.sh"
ra_lab_name unit-security "the unit security scores"

max=${RA_UNIT_EXPOSURE_MAX:-2.0}
build=${RA_BUILD_DIR:?set by ctest}
units=("$build"/units/*.service)
[ -e "${units[0]}" ] || die "no unit in $build/units"
command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"

analyzers=("host:systemd-analyze")
rc=0
trixie=$("$src/tests/debian-root/root.sh" trixie) || rc=$?
if [ "$rc" -eq 0 ]; then
        lib=$trixie/usr/lib/x86_64-linux-gnu
        analyzers+=("trixie:$trixie/lib64/ld-linux-x86-64.so.2 --library-path $lib:$lib/systemd $trixie/usr/bin/systemd-analyze")
elif [ "$rc" -eq 77 ]; then
        skip "no Debian 13 root for systemd 257 (tests/debian-root/root.sh trixie)"
else
        die "tests/debian-root/root.sh trixie failed"
fi

fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for a in "${analyzers[@]}"; do
        name=${a%%:*} cmd=${a#*:}
        version=$($cmd --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
        for unit in "${units[@]}"; do
                # --offline reads the file given; run where it is.
                (cd "$(dirname "$unit")" && $cmd security --offline=yes --no-pager "$(basename "$unit")") \
                        >"$tmp/out" 2>&1 || true
                score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' "$tmp/out")
                if [ -z "$score" ]; then
                        cat "$tmp/out"
                        echo "FAIL: $(basename "$unit") on systemd $version ($name): no score"
                        fails=$((fails + 1))
                        continue
                fi
                grep '✗' "$tmp/out" | sed 's/^/    open: /' || true
                if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s <= m) }'; then
                        echo "ok:   $(basename "$unit") on systemd $version ($name): exposure $score (at most $max)"
                else
                        echo "FAIL: $(basename "$unit") on systemd $version ($name): exposure $score, above $max"
                        fails=$((fails + 1))
                fi
        done
done
[ "$fails" -eq 0 ]
