#!/bin/bash
# SPDX-License-Identifier: MIT
# md RAID0, 1, 5, 6 and 10 in a real kernel: each array gets two full stripes
# (chunk x data disks) as the default profile says, RAID1 (no stripe) the
# default; read_ahead_kb and status --json agree, and a change event puts a
# foreign value back.
. "$(dirname "$0")/lib.sh"
vm_md_setup
mapfile -t disks < <(vm_disks 5)

# name level chunk_kb member_count data_disks
check_array() {
        local name=$1 level=$2 chunk=$3 members=$4 data=$5 md kb stripe_kb e section=raid
        md=$(vm_md_create "$name" "$level" "$chunk" "${disks[@]:0:members}")
        vm_log "RAID$level over $members disks${chunk:+, chunk ${chunk}K}: $md"
        if [ "$data" -gt 0 ]; then
                stripe_kb=$((chunk * data))
                # The kernel's view of the stripe is what the agent reads too.
                vm_expect_eq "$md optimal_io_size (KiB)" "$(vm_io_opt_kb "$md")" "$stripe_kb"
                kb=$(vm_two_stripes_kb "$chunk" "$data")
        else
                # The raid rule needs a stripe; the disk rule decides.
                stripe_kb=null
                kb=$vm_default_kb
                section=disk
        fi
        e=$(vm_status_entry "$md")
        vm_expect_eq "$md status stripe_kb" "$(jq -r .stripe_kb <<<"$e")" "$stripe_kb"
        vm_expect_block "$md" "$kb" raid "$section"
        vm_md_stop "$name" "${disks[@]:0:members}"
}

check_array r0 0 256 3 3   # 2 x 768K  = 1536K
check_array r1 1 "" 2 0    # no stripe: 512K
check_array r5 5 512 4 3   # 2 x 1536K = 3072K
check_array r6 6 128 5 3   # 2 x 384K  = 768K
check_array r10 10 512 4 2 # near=2: 2 x 1024K = 2048K
vm_pass
