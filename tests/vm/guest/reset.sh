#!/bin/bash
# SPDX-License-Identifier: MIT
# Giving values back, in a real kernel, on md and NFS: `readahead-ctl reset`
# and the Debian package's remove path (prerm, files removed, postrm) leave
# each device at the value the kernel chose itself, measured here with our
# rule out of the way; after the removal no event brings our values back.
. "$(dirname "$0")/lib.sh"
vm_md_setup
mapfile -t disks < <(vm_disks 4)
vm_nfs_server n late
rule=$(vm_installed_rule)
[ -n "$rule" ] && [ -e "$rule" ] || vm_fail "cmake --install put no readahead rule in place"

# The kernel's own values: our rule set aside while the devices appear.
# RAID0 with small chunks (2 x 128K stripe: the kernel's 2 x io_opt = 256K,
# the profile's 512K default is larger) and RAID1 (no stripe: 128K against
# 512K) differ from the profile, as does NFS (128K against 4 x rsize).
mv "$rule" "$VM_TMP/rule"
udevadm control --reload
r0=$(vm_md_create r0 0 64 "${disks[@]:0:2}")
r1=$(vm_md_create r1 1 "" "${disks[@]:2:2}")
vm_nfs_mount 4.2 1048576 n /mnt/n
bdi=$(vm_bdi_of /mnt/n)
vm_settle
declare -A kernel_kb=([$r0]=$(vm_ra_kb "$r0") [$r1]=$(vm_ra_kb "$r1") [$bdi]=$(vm_bdi_ra_kb "$bdi"))
declare -A ours_kb=([$r0]=$(vm_two_stripes_kb 64 2) [$r1]=$vm_default_kb [$bdi]=$(vm_nfs_kb 1048576))
for d in "$r0" "$r1" "$bdi"; do
        vm_log "$d: kernel's own ${kernel_kb[$d]}, profile ${ours_kb[$d]}"
        [ "${kernel_kb[$d]}" != "${ours_kb[$d]}" ] || vm_fail "$d: the kernel already holds the profile's value; the test would prove nothing"
done

ra_of() { if [[ $1 == 0:* ]]; then vm_bdi_ra_kb "$1"; else vm_ra_kb "$1"; fi; }
expect_all() { # what: kernel or ours
        local what=$1 d want
        for d in "$r0" "$r1" "$bdi"; do
                if [ "$what" = kernel ]; then want=${kernel_kb[$d]}; else want=${ours_kb[$d]}; fi
                vm_expect_eq "$d read_ahead_kb ($2)" "$(ra_of "$d")" "$want"
        done
}

# Our rule back: events bring the profile's values.
mv "$VM_TMP/rule" "$rule"
udevadm control --reload
udevadm trigger --action=change --settle "/sys/class/block/$r0" "/sys/class/block/$r1"
udevadm trigger --action=add --settle "/sys/class/bdi/$bdi"
vm_settle
expect_all ours "after events with our rule"

readahead-ctl reset || vm_fail "readahead-ctl reset exited $?"
expect_all kernel "after readahead-ctl reset"
for d in "$r0" "$r1" "$bdi"; do
        e=$(vm_status_entry "$d")
        vm_expect_eq "$d status current_kb after reset" "$(jq -r .current_kb <<<"$e")" "${kernel_kb[$d]}"
        vm_expect_eq "$d status drift after reset" "$(jq -r .drift <<<"$e")" true
done

readahead-ctl apply >/dev/null || vm_fail "readahead-ctl apply exited $?"
expect_all ours "after readahead-ctl apply"

# The package's remove path, as dpkg runs it: prerm remove, the files go,
# postrm remove.
sh /ra/src/debian/readahead-agent.prerm remove || vm_fail "prerm remove exited $?"
expect_all kernel "after the package's prerm"
xargs -d '\n' rm -f </run/ra-vm-installed
sh /ra/src/debian/readahead-agent.postrm remove || vm_fail "postrm remove exited $?"
hash -r # bash remembers where readahead-ctl was
! command -v readahead-ctl >/dev/null || vm_fail "readahead-ctl is still installed"

# Nothing of ours runs any more: events and a new mount keep the kernel's
# values.
udevadm trigger --action=change --settle "/sys/class/block/$r0" "/sys/class/block/$r1"
udevadm trigger --action=add --settle "/sys/class/bdi/$bdi"
vm_settle
expect_all kernel "after the removal and new events"
vm_nfs_mount 4.2 1048576 late /mnt/late
late_bdi=$(vm_bdi_of /mnt/late)
vm_settle
sleep 3
vm_expect_eq "new mount $late_bdi read_ahead_kb after the removal" "$(vm_bdi_ra_kb "$late_bdi")" "${kernel_kb[$bdi]}"
vm_pass
