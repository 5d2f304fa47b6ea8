#!/bin/bash
# SPDX-License-Identifier: MIT
# (d) An administrator's override in /etc changes the result, both through
# `readahead-ctl apply` and through the next change event:
#   1. a drop-in rule for our devices (profiles/default.conf.d/50-loop.conf);
#   2. readahead.conf.d selecting the vendor "throughput" profile.
. "$(dirname "$0")/lib.sh"
ra_big_and_small

etc=$ROOT/etc/readahead-agent

# 1. Drop-in rule. The small-device cap still wins for the 64 MiB device.
mkdir -p "$etc/profiles/default.conf.d"
cat >"$etc/profiles/default.conf.d/50-loop.conf" <<CONF
# test override: only the devices this test attached
[Rule loops]
Name=$big $small
Size=256K
CONF
# Writing /etc changes nothing by itself.
ra_expect_ra "$big" 512

out=$("$RA_CTL" --root "$ROOT" apply "$big" "$small") || ra_fail "apply exited $?: $out"
printf '%s\n' "$out" >&2
ra_expect_ra "$big" 256
ra_expect_ra "$small" 64

ra_set_ra "$big" 4096
ra_set_ra "$small" 4096
ra_change "$big" "$small"
ra_dump "$big" "$small"
ra_expect_ra "$big" 256
ra_expect_status "$big" target_kb 256
ra_expect_status_match "$big" rule '*default.conf.d/50-loop.conf:loops'
ra_expect_ra "$small" 64
ra_expect_status "$small" target_kb 64

# 2. Profile switch. throughput: Default=1M, Rule ssd 4M; the 20 GiB device's
# small-device cap is 1 MiB, so 1024 whatever its class. The default.conf
# drop-in no longer applies: it belongs to another profile.
rm "$etc/profiles/default.conf.d/50-loop.conf"
mkdir -p "$etc/readahead.conf.d"
printf '[Agent]\nProfile=throughput\n' >"$etc/readahead.conf.d/50-profile.conf"

out=$("$RA_CTL" --root "$ROOT" apply "$big" "$small") || ra_fail "apply exited $?: $out"
printf '%s\n' "$out" >&2
ra_expect_ra "$big" 1024
ra_expect_ra "$small" 64

ra_set_ra "$big" 128
ra_change "$big" "$small"
ra_dump "$big" "$small"
ra_expect_ra "$big" 1024
ra_expect_status "$big" target_kb 1024
ra_expect_status_match "$big" rule '*profiles/throughput.conf:*'
ra_expect_ra "$small" 64

# 3. Removing the override restores the default profile on the next event.
rm "$etc/readahead.conf.d/50-profile.conf"
ra_change "$big" "$small"
ra_expect_ra "$big" 512
ra_expect_status_match "$big" rule '*profiles/default.conf:disk'
