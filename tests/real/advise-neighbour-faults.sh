#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (h): device A's one sequential reader at 128K beside random page
# faults through a read-only mapping of device B at 4M, each in cgroups of
# its own. B's major faults are B's (attribution per cgroup): A raise to
# 512K, B lower to 1M, in one run of advise over both.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
ra_hdd_group a dev_a group_a -m $((16 << 30)) # a memory cgroup of its own, no limit
ra_hdd_group b dev_b group_b -m $((16 << 30))
ra_set_ra "$dev_a" 128
ra_set_ra "$dev_b" 4096
out=$RA_TMP/advise.json

ra_workload_in group_a "$dev_a" "$RA_TMP/a" seq 1 8
pid_a=$RA_WORKLOAD_PID
ra_workload_in group_b "$dev_b" "$RA_TMP/b" faults 8
pid_b=$RA_WORKLOAD_PID
sleep 1
ra_advise_devices "$out" 5 "$dev_a" "$dev_b"
ra_workload_join "$pid_a" "$dev_a" "$RA_TMP/a"
ra_workload_join "$pid_b" "$dev_b" "$RA_TMP/b"
ra_expect_eq "advise exit status" "$RA_ADVISE_RC" 0
ra_expect_eq "A: advice" "$(ra_device_json "$out" "$dev_a" 'd["advice"], d["suggested_kb"]')" "('raise', 512)"
ra_expect_eq "B: advice" "$(ra_device_json "$out" "$dev_b" 'd["advice"], d["suggested_kb"]')" "('lower', 1024)"
ra_expect_eq "B: reason" "$(ra_device_json "$out" "$dev_b" 'd["reason"].split(":")[0]')" \
        "random page faults pay for read-around"
ra_expect_eq "B: faults attributed by its cgroup" \
        "$(ra_device_json "$out" "$dev_b" 'd["attribution"]["cgroup_major_faults"] > 0')" True
ra_expect_eq "A: fault read-around under 10%" "$(ra_device_json "$out" "$dev_a" 'd["fault_share"] < 0.1')" True
