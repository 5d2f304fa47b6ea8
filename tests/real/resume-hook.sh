#!/bin/bash
# SPDX-License-Identifier: MIT
# The system-sleep hook puts drifted values back after resume. Resume updates
# queue limits with no uevent; here a write of queue/max_sectors_kb does the
# same (6.15+: readahead becomes max(current, 2 x io_opt, 128 KiB), and 6.17+
# counts max_sectors as io_opt on a rotational disk: 2560 KiB for a loop).
. "$(dirname "$0")/lib.sh"
ra_init
ra_install_rule
hook=$RA_BUILD_DIR/units/readahead-agent.sleep
[ -r "$hook" ] || ra_fail "no sleep hook at $hook (build the project)"

ra_attach 20G big
ra_expect_ra "$big" 512

ra_limits_update "$big"
drifted=$(ra_ra_kb "$big")
ra_expect_status "$big" drift true

# Before sleep the hook does nothing.
READAHEAD_CTL=$RA_CTL READAHEAD_ROOT=$ROOT sh "$hook" pre suspend || ra_fail "hook pre suspend exited $?"
ra_expect_ra "$big" "$drifted"

# After resume it applies the profile again, with no udev event.
out=$(READAHEAD_CTL=$RA_CTL READAHEAD_ROOT=$ROOT sh "$hook" post suspend) || ra_fail "hook post suspend exited $?: $out"
printf '%s\n' "$out" >&2
ra_expect_ra "$big" 512
ra_expect_status "$big" drift false
