#!/bin/bash
# SPDX-License-Identifier: MIT
# Our write comes last in its event. A rule that sorts after ours writes
# queue/max_sectors_kb on the same change event; the kernel then recomputes
# readahead as max(current, 2 x io_opt, 128 KiB), and since 6.17 a rotational
# queue without io_opt counts max_sectors as io_opt: 2560 KiB for a loop
# device here. The agent runs from RUN, after every rule, so 512 stays.
. "$(dirname "$0")/lib.sh"
ra_init
ra_install_rule

ra_attach 20G big
ra_expect_ra "$big" 512

# Without our rule in the way the kernel raises the value (else the test
# below could not fail).
ra_limits_update "$big"

ra_add_rule 99-zzz-readahead-test-later.rules \
        "ACTION==\"change\", SUBSYSTEM==\"block\", KERNEL==\"$big\", ATTR{queue/max_sectors_kb}=\"$RA_MAX_SECTORS_KB\""
ra_change "$big"
ra_dump "$big"
ra_expect_ra "$big" 512
ra_expect_status "$big" drift false
