# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Helpers for the tests run inside the lab's guest (tests/vm/guest/*.sh):
# Debian 12's kernel, a real systemd-udevd with every packaged rule (mdadm,
# lvm2, nfs-common's 99-nfs.rules) and ours, the host build installed by
# `cmake --install`. The guest is thrown away after one test: no cleanup.

set -euo pipefail

VM_TEST=$(basename "$0" .sh)
VM_TMP=$(mktemp -d /tmp/vm-"$VM_TEST".XXXXXX)

# Seconds since boot: where the emulated time goes.
vm_log() {
        local up
        read -r up _ </proc/uptime
        printf '# %s %s: %s\n' "$VM_TEST" "$up" "$*"
}

vm_fail() {
        printf 'FAIL: %s: %s\n' "$VM_TEST" "$*"
        exit 1
}

vm_skip() {
        if [ -n "${CI:-}" ]; then
                vm_fail "$* (CI is set: the VM tests must run)"
        fi
        printf 'SKIP: %s: %s\n' "$VM_TEST" "$*"
        exit 77
}

vm_pass() { printf 'PASS: %s\n' "$VM_TEST"; }

vm_expect_eq() {
        # vm_expect_eq WHAT ACTUAL EXPECTED
        [ "$2" = "$3" ] || vm_fail "$1: expected '$3', got '$2'"
        vm_log "ok: $1 = $3"
}

vm_settle() { udevadm settle --timeout=60; }

# vm_disks N: the first N empty virtio disks, as /dev/vdX.
vm_disks() {
        local n=$1 d out=()
        for d in /sys/block/vd*; do
                out+=("/dev/${d##*/}")
        done
        [ "${#out[@]}" -ge "$n" ] || vm_fail "needs $n disks, the guest has ${#out[@]} (run.sh --disks)"
        printf '%s\n' "${out[@]:0:n}"
}

# Kernel names: /dev/md/r5 -> md127, /dev/vg/lv -> dm-0.
vm_kname() { basename "$(readlink -f "$1")"; }

vm_ra_kb() { cat "/sys/block/$1/queue/read_ahead_kb"; }
vm_bdi_ra_kb() { cat "/sys/class/bdi/$1/read_ahead_kb"; }
vm_io_opt_kb() { echo $(($(cat "/sys/block/$1/queue/optimal_io_size") / 1024)); }

# The default profile's numbers, restated from the geometry the test built
# (profiles/default.conf: RAID max(default, 2 x stripe), NFS max(1M,
# 4 x rsize), default 512K; the 4 GiB guest's memory cap is 4M).
vm_default_kb=512
vm_max() { if [ "$1" -gt "$2" ]; then echo "$1"; else echo "$2"; fi; }
vm_two_stripes_kb() { vm_max "$vm_default_kb" $((2 * $1 * $2)); } # chunk_kb data_disks
vm_nfs_kb() { vm_max 1024 $((4 * $1 / 1024)); }                     # rsize_bytes

# vm_status_entry NAME: NAME's entry in `readahead-ctl status --json`.
vm_status_entry() {
        local json=$VM_TMP/status.json
        readahead-ctl status --json >"$json" || vm_fail "readahead-ctl status --json exited $?"
        jq -ce --arg n "$1" '[.devices[] | select(.name == $n)] | if length == 1 then .[0] else error("\(length) entries") end' \
                "$json" 2>&1 || { cat "$json"; vm_fail "status --json: $1 is not listed exactly once"; }
}

# vm_expect_status NAME KB CLASS SECTION: status --json shows NAME at KB,
# target and current alike, decided by SECTION of the default profile.
vm_expect_status() {
        local n=$1 kb=$2 class=$3 section=$4 e
        e=$(vm_status_entry "$n")
        vm_log "status: $e"
        vm_expect_eq "$n status class" "$(jq -r .class <<<"$e")" "$class"
        vm_expect_eq "$n status target_kb" "$(jq -r .target_kb <<<"$e")" "$kb"
        vm_expect_eq "$n status current_kb" "$(jq -r .current_kb <<<"$e")" "$kb"
        vm_expect_eq "$n status drift" "$(jq -r .drift <<<"$e")" false
        vm_expect_eq "$n status rule" "$(jq -r '.rule | sub(".*/"; "")' <<<"$e")" "default.conf:$section"
}

# vm_expect_block NAME KB CLASS SECTION: the kernel holds KB for disk NAME and
# status agrees (udev keeps no record: the rule RUNs the agent for disks);
# then a foreign value is put back by the next change event (the agent acts,
# not the driver's default).
vm_expect_block() {
        local n=$1 kb=$2 class=$3 section=$4 foreign=128
        vm_expect_eq "$n read_ahead_kb" "$(vm_ra_kb "$n")" "$kb"
        vm_expect_status "$n" "$kb" "$class" "$section"
        [ "$kb" != "$foreign" ] || foreign=256
        echo "$foreign" >"/sys/block/$n/queue/read_ahead_kb"
        udevadm trigger --action=change --settle "/sys/class/block/$n"
        vm_settle
        vm_expect_eq "$n read_ahead_kb after $foreign by hand and a change event" "$(vm_ra_kb "$n")" "$kb"
}

# md: no incremental assembly behind the tests' back (a stopped array's
# members would come back as soon as udev sees them).
vm_md_setup() {
        mkdir -p /etc/mdadm
        printf 'AUTO -all\n' >/etc/mdadm/mdadm.conf
}

# vm_md_create NAME LEVEL CHUNK_KB DISK...: an array over the disks, without
# an initial resync; prints its kernel name once udev is done with it.
vm_md_create() {
        local name=$1 level=$2 chunk=$3
        shift 3
        local args=(--create "/dev/md/$name" --run --assume-clean --metadata=1.2 --level="$level"
                --raid-devices=$# "--homehost=ra-vm")
        [ "$level" = 1 ] || args+=(--chunk="$chunk")
        [ "$level" != 10 ] || args+=(--layout=n2)
        mdadm "${args[@]}" "$@" >"$VM_TMP/mdadm.log" 2>&1 || { cat "$VM_TMP/mdadm.log"; vm_fail "mdadm --create $name failed"; }
        vm_settle
        vm_kname "/dev/md/$name"
}

vm_md_stop() {
        local name=$1
        shift
        mdadm --stop "/dev/md/$name" >/dev/null 2>&1 || vm_fail "mdadm --stop $name failed"
        vm_settle
        mdadm --zero-superblock "$@" || vm_fail "mdadm --zero-superblock $* failed"
        vm_settle
}

# NFS server on loopback: tmpfs exports (fsid= since tmpfs has no UUID),
# nfsd allowed 1 MiB READs (its default cuts rsize to 256K in a 4 GiB guest).
vm_nfs_server() {
        local i=1 d
        mkdir -p /srv/nfs /run/rpcbind /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs
        mount -t tmpfs tmpfs /srv/nfs
        : >/etc/exports
        for d in "$@"; do
                mkdir -p "/srv/nfs/$d"
                echo "/srv/nfs/$d 127.0.0.1(rw,no_root_squash,insecure,no_subtree_check,fsid=$i)" >>/etc/exports
                i=$((i + 1))
        done
        mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
        echo 1048576 >/proc/fs/nfsd/max_block_size
        rpcbind -w || vm_fail "rpcbind did not start"
        exportfs -ra || vm_fail "exportfs failed"
        rpc.mountd || vm_fail "rpc.mountd did not start"
        rpc.nfsd 4 || vm_fail "rpc.nfsd did not start"
        # No grace period: the tests mount, they do not reclaim state.
        vm_log "NFS server up: exports $*"
}

# vm_nfs_mount VERS RSIZE EXPORT MOUNTPOINT [MOUNT...]: mounts from loopback;
# checks the server granted RSIZE.
vm_nfs_mount() {
        local vers=$1 rsize=$2 export=$3 mp=$4 opts got
        shift 4
        opts="vers=$vers,rsize=$rsize"
        [ "$vers" != 3 ] || opts+=",nolock"
        mkdir -p "$mp"
        "$@" mount -t nfs -o "$opts" "127.0.0.1:/srv/nfs/$export" "$mp" || vm_fail "mount -o $opts $export failed"
        got=$("$@" findmnt -n -o OPTIONS "$mp" | tr , '\n' | sed -n 's/^rsize=//p')
        vm_expect_eq "$mp negotiated rsize" "$got" "$rsize"
}

vm_bdi_of() { mountpoint -d "$1"; }

# vm_expect_bdi BDI KB MOUNTPOINT: the kernel holds KB after udev has settled,
# and status --json agrees; vm_expect_bdi_later checks them all again.
VM_BDI_CHECKED=()
vm_expect_bdi() {
        local bdi=$1 kb=$2 mp=$3 e
        vm_settle
        if [ "$(vm_bdi_ra_kb "$bdi")" != "$kb" ]; then
                # Whose value is it? The agent's decision as udev recorded it,
                # and the rules that touch bdis, in udev's order.
                vm_log "bdi $bdi holds $(vm_bdi_ra_kb "$bdi"); udev recorded:"
                udevadm info --query=property --path="/devices/virtual/bdi/$bdi" | grep '^READAHEAD_' || true
                vm_log "rules files naming bdi: $(grep -l 'bdi' /usr/lib/udev/rules.d/*.rules /usr/local/lib/udev/rules.d/*.rules /etc/udev/rules.d/*.rules 2>/dev/null | xargs -n1 basename | tr '\n' ' ')"
        fi
        vm_expect_eq "$mp (bdi $bdi) read_ahead_kb after settle" "$(vm_bdi_ra_kb "$bdi")" "$kb"
        e=$(vm_status_entry "$bdi")
        vm_log "status: $e"
        vm_expect_eq "$bdi status kind" "$(jq -r .kind <<<"$e")" mount
        vm_expect_eq "$bdi status mount_point" "$(jq -r .mount_point <<<"$e")" "$mp"
        vm_expect_eq "$bdi status class" "$(jq -r .class <<<"$e")" nfs
        vm_expect_eq "$bdi status target_kb" "$(jq -r .target_kb <<<"$e")" "$kb"
        vm_expect_eq "$bdi status current_kb" "$(jq -r .current_kb <<<"$e")" "$kb"
        vm_expect_eq "$bdi status rule" "$(jq -r '.rule | sub(".*/"; "")' <<<"$e")" "default.conf:nfs"
        VM_BDI_CHECKED+=("$bdi:$kb:$mp")
}

# A few seconds later, every bdi checked since the last call still holds its
# value: no later rule, helper or waiter undid it.
vm_expect_bdi_later() {
        local c bdi kb mp
        sleep 3
        for c in "${VM_BDI_CHECKED[@]}"; do
                IFS=: read -r _ _ kb mp <<<"$c"
                bdi=${c%%:"$kb":*}
                vm_expect_eq "$mp (bdi $bdi) read_ahead_kb 3 s later" "$(vm_bdi_ra_kb "$bdi")" "$kb"
        done
        VM_BDI_CHECKED=()
}

# The rule file `cmake --install` put in place (whatever its name).
vm_installed_rule() {
        grep -E '/rules\.d/[^/]*readahead[^/]*\.rules$' /run/ra-vm-installed | head -n 1
}
