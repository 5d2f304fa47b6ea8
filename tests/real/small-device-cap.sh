#!/bin/bash
# SPDX-License-Identifier: MIT
# (b) The small-device cap: a 64 MiB device reads ahead 64 KiB
# (4 KiB * 2^floor(floor(log2(64 MiB / 256 KiB)) / 2) = 4 KiB * 2^4).
# A 1 MiB device gets 8 KiB, as in the design brief.
. "$(dirname "$0")/lib.sh"
ra_init
ra_install_rule

ra_attach 64M small
ra_attach 1M tiny
ra_dump "$small" "$tiny"
ra_expect_ra "$small" 64
ra_expect_status "$small" target_kb 64
ra_expect_status_match "$small" rule '*profiles/default.conf:disk'
ra_expect_ra "$tiny" 8
ra_expect_status "$tiny" target_kb 8
