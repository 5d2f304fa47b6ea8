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

# Without our rule in the way, does this kernel raise the value at all? If
# not, the test below could not fail: say so rather than pass.
max=$(cat "/sys/block/$big/queue/max_sectors_kb")
echo "$max" >"/sys/block/$big/queue/max_sectors_kb"
raised=$(ra_ra_kb "$big")
ra_log "writing max_sectors_kb=$max by hand: read_ahead_kb 512 -> $raised"
[ "$raised" != 512 ] || ra_skip "this kernel does not recompute readahead on a queue-limits update (Linux < 6.15)"

ra_add_rule 99-zzz-readahead-test-later.rules \
        "ACTION==\"change\", SUBSYSTEM==\"block\", KERNEL==\"$big\", ATTR{queue/max_sectors_kb}=\"$max\""
ra_change "$big"
ra_dump "$big"
ra_expect_ra "$big" 512
ra_expect_status "$big" drift false
