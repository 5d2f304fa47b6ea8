#!/bin/bash
# SPDX-License-Identifier: MIT
# (a) A large sparse loop device gets the default profile's 512 KiB as soon as
# udev has handled its attach event, and status shows the rule
# that chose it.
#
# On this kernel attaching a loop device sets read_ahead_kb to 2560 (a
# rotational queue without io_opt takes 2 x max_sectors), so the agent has
# to write; 20 GiB is far above the small-device cap (1 MiB at 20 GiB).
. "$(dirname "$0")/lib.sh"
ra_init
ra_install_rule

ra_attach 20G big
ra_dump "$big"
ra_expect_ra "$big" 512
ra_expect_status "$big" target_kb 512
ra_expect_status_match "$big" rule '*profiles/default.conf:disk'
# A loop device is rotational: an hdd to the agent.
ra_expect_status "$big" class hdd
ra_expect_status "$big" drift false

# A second change event finds the value in place.
ra_change "$big"
ra_expect_ra "$big" 512
ra_expect_status "$big" target_kb 512
