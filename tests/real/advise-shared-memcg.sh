#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (m): (h)'s two readers, device A's sequential stream at 128K and
# random page faults on device B at 4M, in blkio cgroups of their own but
# one memory cgroup, as on a cgroup v1 host where no manager separates the
# memory hierarchy. The memory cgroup's faults cannot tell them apart; each
# process's own (/proc/PID/stat) can: A raise to 512K, B lower to 1M, and
# on v1 the faults are attributed by processes.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_hdd_group a dev_a group_a # blkio only: both stay in this shell's memory cgroup
ra_hdd_group b dev_b group_b
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
ra_expect_eq "A: fault read-around under 10%" "$(ra_device_json "$out" "$dev_a" 'd["fault_share"] < 0.1')" True
# A reads with read(2): the faults are all B's
ra_expect_eq "A: under 1 major fault/s" "$(ra_device_json "$out" "$dev_a" 'd["major_faults_per_s"] < 1')" True
if [ "$(ra_json "$out" 'j["cgroups"]["version"]')" = v1 ]; then
        ra_expect_eq "B: faults attributed by processes" \
                "$(ra_device_json "$out" "$dev_b" 'd["attribution"]["by"].startswith("processes")')" True
fi
