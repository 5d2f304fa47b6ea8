#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (h): device A's one sequential reader at 128K beside random page
# faults through a read-only mapping of device B at 4M, each in cgroups of
# its own. B's major faults are B's (attribution per cgroup): A raise to
# 512K, B lower to 1M, in one run of advise over both.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
out=$RA_TMP/advise.json
ra_neighbour_faults "$out" -m $((16 << 30)) # memory cgroups of their own, no limit
ra_expect_eq "B: reason" "$(ra_device_json "$out" "$dev_b" 'd["reason"].split(":")[0]')" \
        "random page faults pay for read-around"
ra_expect_eq "B: faults attributed by its cgroup" \
        "$(ra_device_json "$out" "$dev_b" 'd["attribution"]["cgroup_major_faults"] > 0')" True
