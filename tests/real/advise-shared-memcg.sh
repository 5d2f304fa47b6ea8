#!/bin/bash
# SPDX-License-Identifier: MIT
# advise (m): (h)'s two readers, device A's sequential stream at 128K and
# random page faults on device B at 4M, in blkio cgroups of their own but
# one memory cgroup, as on a cgroup v1 host where no manager separates the
# memory hierarchy. The memory cgroup's faults cannot tell them apart; each
# process's own (/proc/PID/stat) can: A raise to 512K, B lower to 1M, and
# on v1 B's faults are its process's: at least 90% of them attributed by
# processes (the rest, the memory cgroup's other processes' faults, such as
# advise's own start, by the cgroup's reads).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
out=$RA_TMP/advise.json
ra_neighbour_faults "$out" # blkio only: both stay in this shell's memory cgroup
# A reads with read(2): the faults are all B's
ra_expect_eq "A: under 1 major fault/s" "$(ra_device_json "$out" "$dev_a" 'd["major_faults_per_s"] < 1')" True
if [ "$(ra_json "$out" 'j["cgroups"]["version"]')" = v1 ]; then
        attribution=$(ra_device_json "$out" "$dev_b" 'd["attribution"]')
        echo "B: attribution $attribution"
        # named in the text too, whatever the host's refaults (bytes, not faults) amount to
        ra_expect_eq "B: the attribution names processes" \
                "$(ra_device_json "$out" "$dev_b" '"processes" in d["attribution"]["by"].split(" and ")')" True
        ra_expect_eq "B: at least 90% of the major faults attributed by processes" \
                "$(ra_device_json "$out" "$dev_b" 'd["attribution"]["process_major_faults"] >= 0.9 * (d["attribution"]["cgroup_major_faults"] + d["attribution"]["host_share_major_faults"]) > 0')" True
fi
