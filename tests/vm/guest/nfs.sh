#!/bin/bash
# SPDX-License-Identifier: MIT
# NFS in a real kernel, over loopback, with nfs-common's own 99-nfs.rules
# installed beside ours: NFSv3 and NFSv4.2, each with rsize=1M (4 x rsize =
# 4096) and rsize=32k (the rule's 1M floor); so after udev settles and still a
# few seconds later; the same after umount and mount again; and for a mount
# that becomes visible only after its bdi's add event.
. "$(dirname "$0")/lib.sh"
[ -e /usr/lib/udev/rules.d/99-nfs.rules ] || vm_fail "nfs-common's 99-nfs.rules is missing: the test would prove nothing"
vm_nfs_server v4 v3 v4s v3l late

mount_and_check() {
        local vers=$1 rsize=$2 export=$3 mp=$4 bdi
        vm_nfs_mount "$vers" "$rsize" "$export" "$mp"
        bdi=$(vm_bdi_of "$mp")
        vm_log "NFSv$vers rsize=$rsize on $mp: bdi $bdi"
        vm_expect_bdi "$bdi" "$(vm_nfs_kb "$rsize")" "$mp"
}

mount_and_check 4.2 1048576 v4 /mnt/v4
mount_and_check 3 32768 v3 /mnt/v3
mount_and_check 4.2 32768 v4s /mnt/v4s
mount_and_check 3 1048576 v3l /mnt/v3l
vm_expect_bdi_later

# umount and mount again: a new superblock, a new bdi, the same values.
umount /mnt/v4 /mnt/v3
vm_settle
mount_and_check 4.2 1048576 v4 /mnt/v4
mount_and_check 3 32768 v3 /mnt/v3

# A late mount: the superblock (and its bdi) is created in a private mount
# namespace, invisible to udev and the agent, so the bdi's add event finds
# no mount. The same export mounted here with the same options shares that
# superblock: the mount appears in our mountinfo well after the event, and
# the agent's waiter (no systemd here: a detached readahead-agent
# --wait-bdi) must set it.
mkdir -p /mnt/late
unshare --mount --propagation private bash -c '
        mount -t nfs -o vers=4.2,rsize=1048576 127.0.0.1:/srv/nfs/late /mnt/late || exit 1
        mountpoint -d /mnt/late
        exec sleep 600' >"$VM_TMP/late.out" 2>&1 &
hidden_pid=$!
for _ in $(seq 100); do
        [ -s "$VM_TMP/late.out" ] && break
        sleep 0.1
done
late_bdi=$(head -n 1 "$VM_TMP/late.out")
[[ $late_bdi == 0:* ]] || { cat "$VM_TMP/late.out"; vm_fail "the hidden mount failed"; }
vm_settle
vm_log "hidden NFSv4.2 mount: bdi $late_bdi, its add event handled; mounting it here in 2 s"
sleep 2
mount -t nfs -o vers=4.2,rsize=1048576 127.0.0.1:/srv/nfs/late /mnt/late || vm_fail "mount of the late export failed"
vm_expect_eq "/mnt/late shares the hidden superblock (bdi)" "$(vm_bdi_of /mnt/late)" "$late_bdi"
want=$(vm_nfs_kb 1048576)
for _ in $(seq 100); do
        [ "$(vm_bdi_ra_kb "$late_bdi")" = "$want" ] && break
        sleep 0.1
done
vm_expect_bdi "$late_bdi" "$want" /mnt/late
vm_expect_bdi_later # the remounts and the late mount
kill "$hidden_pid" 2>/dev/null || true
vm_pass
