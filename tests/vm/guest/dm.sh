#!/bin/bash
# SPDX-License-Identifier: MIT
# Stacked dm devices in a real kernel: LVM on md RAID5, dm-crypt (LUKS2) on
# that LV, and a striped LV over plain disks each get two full stripes of
# the stripe the kernel hands up the stack.
. "$(dirname "$0")/lib.sh"
vm_md_setup
mapfile -t disks < <(vm_disks 7)
chunk=512

md=$(vm_md_create r5 5 "$chunk" "${disks[@]:0:4}")
vm_log "RAID5 over 4 disks, chunk ${chunk}K: $md"
kb=$(vm_two_stripes_kb "$chunk" 3)
vm_expect_block "$md" "$kb" raid raid

# LVM on the array: a linear LV inherits io_min/io_opt from md.
pvcreate -q "/dev/md/r5" >/dev/null
vgcreate -q vgr "/dev/md/r5" >/dev/null
lvcreate -q -y -n lv -l 100%FREE vgr >/dev/null || vm_fail "lvcreate on RAID5 failed"
vm_settle
lv=$(vm_kname /dev/vgr/lv)
vm_log "LV on RAID5: $lv"
vm_expect_eq "$lv optimal_io_size (KiB)" "$(vm_io_opt_kb "$lv")" $((chunk * 3))
vm_expect_block "$lv" "$kb" raid raid

# dm-crypt on the LV. PBKDF2 with few iterations: Argon2 would take seconds
# and much memory under emulation; the test is about the stack, not the key.
head -c 64 /dev/urandom >"$VM_TMP/key"
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
        --key-file "$VM_TMP/key" /dev/vgr/lv || vm_fail "cryptsetup luksFormat failed"
cryptsetup open --key-file "$VM_TMP/key" /dev/vgr/lv ra-crypt || vm_fail "cryptsetup open failed"
vm_settle
crypt=$(vm_kname /dev/mapper/ra-crypt)
vm_log "dm-crypt on the LV: $crypt"
vm_expect_eq "$crypt optimal_io_size (KiB)" "$(vm_io_opt_kb "$crypt")" $((chunk * 3))
vm_expect_block "$crypt" "$kb" raid raid

# A striped LV over three plain disks: dm-stripe reports its own chunk and
# stripe, io_min 256K and io_opt 3 x 256K.
stripe_chunk=256
pvcreate -q "${disks[@]:4:3}" >/dev/null
vgcreate -q vgs "${disks[@]:4:3}" >/dev/null
lvcreate -q -y -n striped -i 3 -I "${stripe_chunk}k" -l 100%FREE vgs >/dev/null || vm_fail "lvcreate -i 3 failed"
vm_settle
striped=$(vm_kname /dev/vgs/striped)
vm_log "striped LV over 3 disks, ${stripe_chunk}K stripes: $striped"
vm_expect_eq "$striped optimal_io_size (KiB)" "$(vm_io_opt_kb "$striped")" $((stripe_chunk * 3))
vm_expect_block "$striped" "$(vm_two_stripes_kb "$stripe_chunk" 3)" raid raid

# The plain disks under it stay at the default.
vm_expect_eq "${disks[4]#/dev/} read_ahead_kb" "$(vm_ra_kb "${disks[4]#/dev/}")" "$vm_default_kb"
vm_pass
