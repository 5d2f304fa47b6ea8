#!/bin/bash
# SPDX-License-Identifier: MIT
# (a) A large sparse loop device gets the default profile's 512 KiB as soon as
# udev has handled its attach event, and udev records the decision.
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
ra_expect_prop "$big" READAHEAD_TARGET_KB 512
ra_expect_prop_match "$big" READAHEAD_RULE '*profiles/default.conf:disk'
# losetup opens the node for writing, so udev's watch may add a second change
# event behind the kernel's: the database keeps the last one, which may find
# the value already written.
ra_expect_prop_match "$big" READAHEAD_RESULT '@(written|unchanged)'
ra_expect_prop_match "$big" READAHEAD_CLASS '?*'
ra_expect_prop_match "$big" READAHEAD_PREVIOUS_KB '[0-9]*'

# A second change event finds the value in place.
ra_change "$big"
ra_expect_ra "$big" 512
ra_expect_prop "$big" READAHEAD_TARGET_KB 512
ra_expect_prop "$big" READAHEAD_PREVIOUS_KB 512
ra_expect_prop "$big" READAHEAD_RESULT unchanged
