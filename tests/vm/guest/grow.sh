#!/bin/bash
# SPDX-License-Identifier: MIT
# An md RAID5 grown by one disk (mdadm --grow) in a real kernel: when the
# reshape ends, md's change event brings the agent the new stripe.
#
# The reshape copies the whole array, too slow under emulation for 128 GiB
# members: the array uses 64 MiB of each disk, and an administrator's drop-in
# turns off the small-device cap that would otherwise hide the stripe on so
# small an array.
. "$(dirname "$0")/lib.sh"
vm_md_setup
mapfile -t disks < <(vm_disks 4)
chunk=512

mkdir -p /etc/readahead-agent/profiles/default.conf.d
printf '[Profile]\nSmallDeviceCap=no\n' >/etc/readahead-agent/profiles/default.conf.d/50-vm-grow.conf
readahead-ctl check || vm_fail "readahead-ctl check rejects the drop-in"

mdadm --create /dev/md/grow --run --assume-clean --metadata=1.2 --level=5 --raid-devices=3 \
        --chunk="$chunk" --size=64M --homehost=ra-vm "${disks[@]:0:3}" >"$VM_TMP/mdadm.log" 2>&1 ||
        { cat "$VM_TMP/mdadm.log"; vm_fail "mdadm --create failed"; }
vm_settle
md=$(vm_kname /dev/md/grow)
vm_log "RAID5 over 3 disks, chunk ${chunk}K, 64 MiB each: $md"
vm_expect_block "$md" "$(vm_two_stripes_kb "$chunk" 2)" raid raid

# A value above the new target: md raises readahead at the end of a reshape
# but never lowers it, so only the agent can bring 3072 from here.
foreign=4096
echo "$foreign" >"/sys/block/$md/queue/read_ahead_kb"
size_before=$(cat "/sys/block/$md/size")
mdadm /dev/md/grow --add "${disks[3]}" >/dev/null || vm_fail "mdadm --add failed"
mdadm --grow /dev/md/grow --raid-devices=4 >"$VM_TMP/grow.log" 2>&1 ||
        { cat "$VM_TMP/grow.log"; vm_fail "mdadm --grow failed"; }
start=$(cut -d' ' -f1 /proc/uptime)
mdadm --wait /dev/md/grow || true # exits 1 when there was nothing (left) to wait for
vm_settle
vm_log "reshape done in $(awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
vm_expect_eq "$md raid_disks after the grow" "$(cat "/sys/block/$md/md/raid_disks")" 4
[ "$(cat "/sys/block/$md/size")" -gt "$size_before" ] || vm_fail "$md did not grow"
vm_expect_eq "$md optimal_io_size (KiB) after the grow" "$(vm_io_opt_kb "$md")" $((chunk * 3))
vm_expect_block "$md" "$(vm_two_stripes_kb "$chunk" 3)" raid raid
vm_pass
