#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The k8s lab (run.sh --lab k8s, Debian 13 only): deploy/kubernetes's
# DaemonSet played as shipped by the guest's podman, which takes a DaemonSet
# as it is, on a booted systemd machine with an NFS server of its own. What
# tests/k8s cannot do on the host (its kernel has no NFS client): an NFS
# mount that a node makes after the pod is running gets the profile's value
# for its rsize.
#
#   - the image the host's k8s-image fixture built comes as an archive on
#     /ra/share (tests/systemd/k8s.sh) and is loaded under the name the
#     manifest gives, so the manifest plays unchanged;
#   - NFSv3 rsize=32k and NFSv4.2 rsize=1M mounts of the guest's own exports,
#     made on the host after the pod's start pass, get the default profile's
#     max(1M, 4 x rsize) (1024 and 4096 KiB) within MOUNT_BOUND_MS of the
#     mount, still hold once udev has settled (nfs-common's 99-nfs.rules
#     writes its own value on the bdi's add event), and `podman logs` shows
#     the decision for each;
#   - the agent runs with no capability, not privileged, and the manifest's
#     liveness probe passes in it;
#   - `podman kube down` leaves the values (deploy/kubernetes/README.md,
#     Remove); the reset manifest's pod gives the kernel's values back, from
#     a network namespace of its own.
#
# No readahead-agent package is installed here (run.sh --no-deb): only the
# pod sets values. Output and verdict: guest/common.sh.
set -euo pipefail
# shellcheck source=tests/systemd/guest/common.sh
. "$(dirname "$0")/common.sh"
LAB=systemd-k8s-$RA_LAB_SUITE
LAB_STEP=guest

manifests=/ra/src/deploy/kubernetes
archive=/ra/share/readahead-agent.tar
# From the mount's return to the bdi's value: the issue's 2 s for a loop
# device. The agent learns of a mount from the mount table's POLLPRI at once
# and decides it in one pass: 87 to 430 ms measured under TCG on a 2-CPU
# machine, quiet or shared (tests/systemd/README.md).
MOUNT_BOUND_MS=2000

now_ms() { local us=${EPOCHREALTIME/./}; echo $((us / 1000)); }
# seconds_since T: seconds since T (an $EPOCHREALTIME), to a tenth.
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
bdi_kb() { cat "/sys/class/bdi/$1/read_ahead_kb"; }

# The agent's container (kube play names it POD-CONTAINER) and its log.
agent_container() { podman ps -a --format '{{.Names}}' | grep -- '-readahead-agent$' | head -n 1; }
agent_logs() { podman logs "$(agent_container)" 2>&1; }
reset_logs() { podman logs "$(podman ps -a --format '{{.Names}}' | grep -- '-reset$' | head -n 1)" 2>&1; }

# Two exports, each a tmpfs of its own (fsid=): each mount gets a superblock,
# so a bdi, of its own (NFSv4 shares one between exports of one server file
# system).
declare -A export_of=([/mnt/nfs3]=/srv/nfs/k8s3 [/mnt/nfs42]=/srv/nfs/k8s42)
declare -A options_of=([/mnt/nfs3]="vers=3,rsize=32768" [/mnt/nfs42]="vers=4.2,rsize=1048576")
declare -A rsize_of=([/mnt/nfs3]=32768 [/mnt/nfs42]=1048576)
# The default profile's max(1M, 4 x rsize); the 6 GiB guest's cap is 8M.
declare -A want=([/mnt/nfs3]=1024 [/mnt/nfs42]=4096)
declare -A kernel_kb bdi_at
mounts=(/mnt/nfs3 /mnt/nfs42)

nfs_mount() {
        mkdir -p "$1"
        mount -t nfs -o "${options_of[$1]}" "127.0.0.1:${export_of[$1]}" "$1" ||
                lab_fail "mount ${options_of[$1]} 127.0.0.1:${export_of[$1]} $1 failed"
        # The server may offer less than asked (1/4096 of its memory): then
        # the profile's value is another one.
        lab_expect_eq "$1 rsize" "$(findmnt -n -o OPTIONS "$1" | tr ',' '\n' | sed -n 's/^rsize=//p')" "${rsize_of[$1]}"
}

setup_exports() {
        local mp fsid=201
        : >/etc/exports
        for mp in "${mounts[@]}"; do
                mkdir -p "${export_of[$mp]}"
                mount -t tmpfs -o size=16m tmpfs "${export_of[$mp]}"
                echo "${export_of[$mp]} 127.0.0.1(rw,no_root_squash,no_subtree_check,fsid=$((fsid++)))" >>/etc/exports
        done
        systemctl restart nfs-server.service
        # The kernel's own value (and nfs-common's udev rule's) for each, on
        # a machine without the agent: what the reset must give back.
        for mp in "${mounts[@]}"; do
                nfs_mount "$mp"
                udevadm settle
                kernel_kb[$mp]=$(bdi_kb "$(mountpoint -d "$mp")")
                umount "$mp"
        done
        lab_log "without the agent: /mnt/nfs3 ${kernel_kb[/mnt/nfs3]}, /mnt/nfs42 ${kernel_kb[/mnt/nfs42]}"
}

load_image() {
        local image t0=$EPOCHREALTIME
        image=$(sed -n 's/^ *image: *//p' "$manifests/readahead-agent.yaml" | head -n 1)
        [ -r "$archive" ] || lab_fail "no $archive: run.sh --share with the k8s-image fixture's image (tests/systemd/k8s.sh)"
        podman load -q -i "$archive" >/run/ra-lab/load.log 2>&1 || { cat /run/ra-lab/load.log; lab_fail "podman load failed"; }
        podman tag "$(sed -n 's/^Loaded image: //p' /run/ra-lab/load.log | head -n 1)" "$image"
        lab_log "$(podman --version): loaded $image ($(podman image inspect --format '{{.Size}}' "$image") bytes) in $(seconds_since "$t0") s"
}

play_agent() {
        local t0=$EPOCHREALTIME
        podman kube play "$manifests/readahead-agent.yaml" >/run/ra-lab/play.log 2>&1 ||
                { cat /run/ra-lab/play.log; lab_fail "podman kube play readahead-agent.yaml failed"; }
        wait_for 60 eval 'agent_logs | grep -q "watching:"' ||
                { podman ps -a --pod; agent_logs; lab_fail "the agent did not start"; }
        lab_log "pod running in $(seconds_since "$t0") s: $(agent_logs | grep 'watching:')"
}

# The agent's privileges as the manifest narrows them, and its probe.
check_privileges() {
        local ctr pid
        ctr=$(agent_container)
        pid=$(podman inspect "$ctr" --format '{{.State.Pid}}')
        lab_expect_eq "the agent's effective capabilities" "$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$pid/status")" \
                0000000000000000
        lab_expect_eq "the agent privileged" "$(podman inspect "$ctr" --format '{{.HostConfig.Privileged}}')" false
        podman exec "$ctr" /usr/libexec/readahead-agent --check-alive ||
                lab_fail "the liveness probe (readahead-agent --check-alive) fails on the running agent"
        lab_log "ok: the agent runs with no capability, not privileged, and its liveness probe passes"
}

# check_mount MP: mounted after the pod started, it reaches its value within
# the bound, keeps it once udev has settled, and the log says so.
check_mount() {
        local mp=$1 bdi start ms decisions line
        nfs_mount "$mp"
        start=$(now_ms)
        bdi=$(mountpoint -d "$mp")
        bdi_at[$mp]=$bdi
        until [ "$(bdi_kb "$bdi")" = "${want[$mp]}" ]; do
                (($(now_ms) - start <= MOUNT_BOUND_MS)) ||
                        { agent_logs; lab_fail "$mp (bdi $bdi) is $(bdi_kb "$bdi"), not ${want[$mp]}, $MOUNT_BOUND_MS ms after the mount"; }
                sleep 0.02
        done
        ms=$(($(now_ms) - start))
        lab_log "$mp (bdi $bdi, ${options_of[$mp]}): ${want[$mp]} KiB ${ms} ms after the mount"
        # nfs-common's 99-nfs.rules writes its own value on the bdi's add
        # event, which may come after the agent's first write.
        udevadm settle
        sleep 1
        lab_expect_eq "$mp (bdi $bdi) read_ahead_kb after udev settled" "$(bdi_kb "$bdi")" "${want[$mp]}"
        decisions=$(agent_logs | grep -E "^readahead-agent: $bdi: read_ahead_kb [0-9]+ -> ${want[$mp]} ") ||
                { agent_logs; lab_fail "podman logs shows no decision for $bdi"; }
        while read -r line; do lab_log "podman logs: $line"; done <<<"$decisions"
}

check_down_and_reset() {
        local mp
        podman kube down "$manifests/readahead-agent.yaml" >/run/ra-lab/down.log 2>&1 ||
                { cat /run/ra-lab/down.log; lab_fail "podman kube down failed"; }
        lab_expect_eq "containers after kube down" "$(podman ps -a --format '{{.Names}}' | grep -v -- '-infra$' || true)" ""
        for mp in "${mounts[@]}"; do
                lab_expect_eq "$mp after kube down (stays)" "$(bdi_kb "${bdi_at[$mp]}")" "${want[$mp]}"
        done
        # No hostNetwork: a network namespace with only loopback, all the
        # reset needs (the guest's netavark has no nft for podman's bridge).
        podman kube play --network none "$manifests/readahead-agent-reset.yaml" >/run/ra-lab/play-reset.log 2>&1 ||
                { cat /run/ra-lab/play-reset.log; lab_fail "podman kube play readahead-agent-reset.yaml failed"; }
        wait_for 60 eval 'reset_logs | grep -q "readahead-ctl reset done"' ||
                { reset_logs; lab_fail "the reset pod does not say it is done"; }
        for mp in "${mounts[@]}"; do
                lab_expect_eq "$mp after the reset pod (the kernel's)" "$(bdi_kb "${bdi_at[$mp]}")" "${kernel_kb[$mp]}"
        done
        local reset_pid
        reset_pid=$(podman inspect "$(podman ps -a --format '{{.Names}}' | grep -- '-reset$' | head -n 1)" --format '{{.State.Pid}}')
        [ "$(readlink "/proc/$reset_pid/ns/net")" != "$(readlink /proc/1/ns/net)" ] ||
                lab_fail "the reset pod runs in the host's network namespace"
        podman kube down "$manifests/readahead-agent-reset.yaml" >/dev/null 2>&1 || lab_fail "podman kube down of the reset pod failed"
}

# The mounts go before the guest powers off: systemd would stop nfs-server
# first (they were made by hand, with no order), and each unmount would wait
# 90 s for it. unmount_all STATUS returns STATUS: common.sh's finish reads
# the lab's exit status from $?, which both branches below pass on.
unmount_all() {
        local mp
        for mp in "${mounts[@]}"; do umount -f "$mp" 2>/dev/null || true; done
        return "$1"
}
trap 'if unmount_all "$?"; then finish; else finish; fi' EXIT

lab_log "kernel $(uname -r), $(systemctl --version | head -n 1), multi-user.target after $(($(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target) / 1000)) ms"
! dpkg-query -W -f='${Status}' readahead-agent 2>/dev/null | grep -q 'install ok' ||
        lab_fail "readahead-agent is installed: only the pod may set values here"
# ra-lab.service runs the lab at every boot, and this lab never reboots:
# a second run means the guest rebooted under the first (once in CI's
# labs, between the reset pod's check and its kube down; the second run
# then found that pod's container). Said as what it is, with the boot
# before's last words (Debian's journal is persistent).
started=/var/lib/ra-lab-k8s.started
if [ -e "$started" ]; then
        echo "--- journal of the boot before (last 60 lines)"
        journalctl -b -1 --no-pager -n 60 || true
        lab_fail "the guest booted again during the lab: the boot before ended without a verdict (a crash or a reset)"
fi
touch "$started"
sync
t_all=$EPOCHREALTIME
setup_exports
load_image
play_agent
check_privileges
for mp in "${mounts[@]}"; do check_mount "$mp"; done
check_down_and_reset
lab_log "PASS in $(seconds_since "$t_all") s"
