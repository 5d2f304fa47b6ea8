#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (i): two sequential readers of one device at 128K, in two cgroups
# (each throttled as the HDD model): one advice for the device, not one per
# cgroup, and it is the sequential raise.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
ra_hdd_group a dev group_a -m $((16 << 30)) # memory cgroups of their own, no limit
ra_cgroup_group b group_b "$dev" -m $((16 << 30))
ra_set_ra "$dev" 128
out=$RA_TMP/advise.json

ra_workload_in group_a "$dev" "$RA_TMP/a" seq 1 8
pid_a=$RA_WORKLOAD_PID
ra_workload_in group_b "$dev" "$RA_TMP/b" seq 1 8
pid_b=$RA_WORKLOAD_PID
sleep 1
ra_advise_devices "$out" 5 "$dev"
ra_workload_join "$pid_a" "$dev" "$RA_TMP/a"
ra_workload_join "$pid_b" "$dev" "$RA_TMP/b"
ra_expect_eq "advise exit status" "$RA_ADVISE_RC" 0
ra_expect_eq "entries for the device" "$(ra_json "$out" 'len([d for d in j["devices"] if d["device"] == "'"$dev"'"])')" 1
ra_expect_eq "advice" "$(ra_device_json "$out" "$dev" 'd["advice"], d["suggested_kb"]')" "('raise', 512)"
