#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (g): device A's one sequential reader at 128K beside device B's 32
# streams in a 48 MiB memory cgroup at 2560K, each in cgroups of its own.
# B's refaults and reclaim are B's (attribution per cgroup): A raise to
# 512K, B lower to 640K, in one run of advise over both.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"

ra_hdd_group a dev_a group_a -m $((16 << 30)) # a memory cgroup of its own, no limit
ra_hdd_group b dev_b group_b -m $((48 << 20))
ra_set_ra "$dev_a" 128
ra_set_ra "$dev_b" 2560
out=$RA_TMP/advise.json

# As advise-thrash: B's OOM killer may end it in the first seconds at 2560K;
# such a run proves nothing, try again (at most three times).
for attempt in 1 2 3; do
        ra_workload_in group_a "$dev_a" "$RA_TMP/a" seq 1 8
        pid_a=$RA_WORKLOAD_PID
        ra_workload_in group_b "$dev_b" "$RA_TMP/b" seq 32 12 8
        pid_b=$RA_WORKLOAD_PID
        ra_wait_memory_full group_b 8
        ra_advise_devices "$out" 5 "$dev_a" "$dev_b"
        ra_workload_join "$pid_a" "$dev_a" "$RA_TMP/a"
        ra_workload_join "$pid_b" "$dev_b" "$RA_TMP/b"
        [ "$(ra_field "$RA_TMP/b" rc)" = 137 ] || break
        ra_log "attempt $attempt: B's workload was OOM-killed at 2560K"
done
ra_expect_eq "advise exit status" "$RA_ADVISE_RC" 0
ra_expect_eq "A: advice" "$(ra_device_json "$out" "$dev_a" 'd["advice"], d["suggested_kb"]')" "('raise', 512)"
ra_expect_eq "B: advice" "$(ra_device_json "$out" "$dev_b" 'd["advice"], d["suggested_kb"]')" "('lower', 640)"
ra_expect_eq "B: reason" "$(ra_device_json "$out" "$dev_b" 'd["reason"].split(":")[0]')" "readahead thrown away"
# B's refaults came from its cgroup, and A got next to none of them.
ra_expect_eq "B: refaults attributed by its cgroup" \
        "$(ra_device_json "$out" "$dev_b" 'd["attribution"]["cgroup_refault_bytes"] > 0')" True
ra_expect_eq "A: refault share under 10%" "$(ra_device_json "$out" "$dev_a" 'd["refault_share"] < 0.1')" True
ra_expect_ra "$dev_a" 128
ra_expect_ra "$dev_b" 2560
