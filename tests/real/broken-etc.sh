#!/bin/bash
# SPDX-License-Identifier: MIT
# (e) A broken rule or file in /etc is dropped whole and named by `check`;
# every device still gets a correct value:
#   1. a drop-in whose second rule has a malformed Size: that rule is dropped
#      whole, its first (valid) rule applies, a good drop-in beside it too
#      (issue 34: a rule, not its file, is what an error in it drops);
#   2. an /etc copy of profiles/default.conf with a malformed Minimum and a
#      different Default: the vendor file stands in, Default stays 512.
. "$(dirname "$0")/lib.sh"
ra_big_and_small

etc=$ROOT/etc/readahead-agent
mkdir -p "$etc/profiles/default.conf.d"
broken=$etc/profiles/default.conf.d/40-broken.conf
cat >"$broken" <<CONF
[Rule half]
Name=$big
Size=256K

[Rule broken]
Name=$big
Size=12Q
CONF
cat >"$etc/profiles/default.conf.d/50-good.conf" <<CONF
[Rule good]
Name=$small
Size=32K
CONF

set +e
out=$("$RA_CTL" --root "$ROOT" check 2>&1)
rc=$?
set -e
printf '%s\n' "$out" >&2
[ "$rc" -ne 0 ] || ra_fail "check exited 0 with a broken drop-in"
grep -q '40-broken\.conf:7: error:' <<<"$out" || ra_fail "check does not name 40-broken.conf:7 as an error"
if grep -q '50-good\.conf:[0-9]*: error' <<<"$out"; then
        ra_fail "check blames the good drop-in"
fi

ra_set_ra "$big" 4096
ra_set_ra "$small" 4096
ra_change "$big" "$small"
ra_dump "$big" "$small"
ra_expect_ra "$big" 256
ra_expect_status_match "$big" rule '*40-broken.conf:half'
ra_expect_ra "$small" 32
ra_expect_status_match "$small" rule '*50-good.conf:good'

# apply: same decisions, and the dropped rule named on stderr.
ra_set_ra "$big" 4096
ra_set_ra "$small" 4096
set +e
out=$("$RA_CTL" --root "$ROOT" apply "$big" "$small" 2>&1)
rc=$?
set -e
ra_log "apply exited $rc"
printf '%s\n' "$out" >&2
grep -q '^readahead-ctl apply: .*40-broken\.conf:7: error: \[Rule broken\] dropped: ' <<<"$out" ||
        ra_fail "apply does not name 40-broken.conf:7 and the rule it drops"
ra_expect_ra "$big" 256
ra_expect_ra "$small" 32

# 2. A broken whole profile in /etc.
rm "$broken" "$etc/profiles/default.conf.d/50-good.conf"
sed -e 's/^Default=512K$/Default=256K/' -e 's/^Minimum=8K$/Minimum=8 KB please/' \
        "$ROOT$RA_VENDOR_DIR/profiles/default.conf" >"$etc/profiles/default.conf"
grep -q '^Default=256K$' "$etc/profiles/default.conf" || ra_fail "vendor default.conf changed; update this test"
line=$(grep -n '^Minimum=8 KB please$' "$etc/profiles/default.conf" | cut -d: -f1)
[ -n "$line" ] || ra_fail "vendor default.conf changed; update this test"

set +e
out=$("$RA_CTL" --root "$ROOT" check 2>&1)
rc=$?
set -e
printf '%s\n' "$out" >&2
[ "$rc" -ne 0 ] || ra_fail "check exited 0 with a broken /etc profile"
grep -q "etc/readahead-agent/profiles/default\.conf:$line: error:" <<<"$out" ||
        ra_fail "check does not name etc/.../default.conf:$line as an error"

ra_set_ra "$big" 4096
ra_set_ra "$small" 4096
ra_change "$big" "$small"
ra_dump "$big" "$small"
ra_expect_ra "$big" 512
ra_expect_ra "$small" 64
# The rule comes from the vendor file, not from the broken /etc copy.
ra_expect_status_match "$big" rule "*$RA_VENDOR_DIR/profiles/default.conf:disk"
if [[ $(ra_status "$big" rule) == */etc/* ]]; then
        ra_fail "the rule named the broken /etc profile"
fi

# A clean configuration checks clean.
rm "$etc/profiles/default.conf"
"$RA_CTL" --root "$ROOT" check >&2 || ra_fail "check fails on the vendor configuration"
