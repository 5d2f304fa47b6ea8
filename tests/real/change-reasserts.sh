#!/bin/bash
# SPDX-License-Identifier: MIT
# (c) When something else changes read_ahead_kb, the next change event puts
# the profile's value back (udevadm trigger --action=change).
. "$(dirname "$0")/lib.sh"
ra_big_and_small

ra_set_ra "$big" 4096
ra_set_ra "$small" 4
ra_change "$big" "$small"
ra_dump "$big" "$small"
ra_expect_ra "$big" 512
ra_expect_ra "$small" 64

# Again, with udevadm trigger's own --settle and nothing else.
ra_set_ra "$big" 128
udevadm trigger --action=change --settle "/sys/class/block/$big"
ra_expect_ra "$big" 512
