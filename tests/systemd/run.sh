#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/systemd/run.sh [--timeout SEC] [--lab LAB] [--share DIR] [--no-deb] [--hold MIN] SUITE
#
# The systemd lab: boots Debian SUITE (bookworm, trixie) as users run it,
# systemd as PID 1, from the cached image of image.sh, with the project's own
# .deb built for that release (tests/lib/build-deb.sh), and runs
# tests/systemd/guest/LAB.sh inside it (default: lab). lab.sh runs across two
# boots: the first installs the package with apt, the second checks what a
# reboot, suspend and resume, `apt remove` and `apt purge` do (see
# tests/systemd/README.md). --share DIR gives the guest DIR read-only at
# /ra/share; --no-deb skips the package build, for a lab that needs none;
# --hold MIN makes the advise lab run Tune=yes's hold for MIN minutes
# instead of its cases (bench/tune-hold -g).
#
# Disks: vda the root (a copy-on-write overlay of the image, kept across the
# guest's reboot), vdb an empty 128 GiB sparse disk, vdc an 8 GiB one that the
# first boot formats as btrfs. Suspend: bookworm's kernel goes to S3 and
# comes back (QEMU's system_wakeup, sent by qmp-wakeup.py); trixie's 6.12
# does not come back from S3 under QEMU, so there the kernel's own suspend
# test (pm_test=devices) stands in for the firmware.
#
# The guest's output comes over its second serial port (lab.log); its last
# line gives the exit status. A failed run whose kernel panicked runs once
# more (ra_lab_boot, tests/lib/lab.sh).
#
# Environment: RA_SYSTEMD_KEEP (keep the overlay, console log and results),
# CI (a machine that cannot run the lab fails instead of skipping).
set -euo pipefail

usage="usage: $0 [--timeout SEC] [--lab LAB] [--share DIR] [--no-deb] [--hold MIN] SUITE"
timeout_s=900 lab=lab share_dir="" debs=1 hold=0
while [ $# -gt 0 ]; do
        case $1 in
        --timeout) timeout_s=$2; shift 2 ;;
        --lab) lab=$2; shift 2 ;;
        --share) share_dir=$2; shift 2 ;;
        --no-deb) debs=0; shift ;;
        --hold) hold=$2; shift 2 ;;
        -*) echo "$usage" >&2; exit 2 ;;
        *) break ;;
        esac
done
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
suite=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
[ -r "$here/guest/$lab.sh" ] || { echo "$0: no lab $lab (tests/systemd/guest/$lab.sh)" >&2; exit 2; }
[ -z "$share_dir" ] || [ -d "$share_dir" ] || { echo "$0: --share $share_dir is not a directory" >&2; exit 2; }
[[ $hold =~ ^[0-9]+$ ]] || { echo "$0: --hold $hold: not a number of minutes" >&2; exit 2; }
name=systemd-$suite
[ "$lab" = lab ] || name=systemd-$lab-$suite

# shellcheck source=tests/lib/lab.sh
. "$src/tests/lib/lab.sh"
ra_lab_name "$name" "the systemd lab"

case $suite in
bookworm) suspend=s3 ;;
*) suspend=pm_test ;;
esac

ra_lab_require "image build, package build in a root" qemu-system-x86_64 qemu-img

rc=0
image=$("$here/image.sh" "$suite") || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-$name.XXXXXX")
pids=()
cleanup() {
        local p
        for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
        if [ -n "${RA_SYSTEMD_KEEP:-}" ]; then
                log "kept $tmp (RA_SYSTEMD_KEEP)"
        else
                rm -rf "$tmp"
        fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir "$tmp/debs"
if [ "$debs" = 1 ]; then
        t0=$EPOCHREALTIME
        bash "$src/tests/lib/build-deb.sh" "$suite" "$tmp/debs" >"$tmp/deb.log" 2>&1 ||
                { tail -n 40 "$tmp/deb.log" >&2; die "building the package for $suite failed"; }
        log "package for $suite: $(cd "$tmp/debs" && ls ./*.deb) ($(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s)"

        # The previous release's .deb, for the upgrade step (guest/upgrade.sh).
        mkdir "$tmp/debs/previous"
        previous=$("$src/tests/lib/previous-deb.sh" "$suite") || die "no 0.1.0 .deb for $suite (tests/lib/previous-deb.sh)"
        cp "$previous"/readahead-agent_*.deb "$tmp/debs/previous/"
fi

share() { printf 'local,path=%s,mount_tag=%s,security_model=none%s' "$1" "$2" "${3:+,$3}"; }
drive() { printf -- '-drive if=none,id=%s,file=%s,format=%s,cache=unsafe -device virtio-blk-pci,drive=%s,serial=%s' "$1" "$2" "$3" "$1" "$4"; }

# One run of the lab, on fresh disks: sets status (empty when the guest gave
# none), qemu_rc and elapsed.
boot_guest() {
        rm -f "$tmp"/{root.qcow2,data.img,btrfs.img,console.log,lab.log,qmp.log,qmp.sock}
        qemu-img create -q -f qcow2 -b "$image/root.img" -F raw "$tmp/root.qcow2"
        truncate -s 128G "$tmp/data.img"
        truncate -s 8G "$tmp/btrfs.img"

        log "booting $(cat "$image/kernel-release") (suspend: $suspend), timeout ${timeout_s}s"
        local start=$EPOCHREALTIME vm_pid
        # No -no-reboot: the guest reboots once, and S3 resume passes through a reset.
        # 6 GiB: the guest's nfsd offers rsize=1M only with more than 4 GiB of RAM
        # (its largest block is 1/4096 of memory), and the memory cap stays at 8M.
        # shellcheck disable=SC2046
        timeout --kill-after=10 "$timeout_s" qemu-system-x86_64 \
                -nodefaults -no-user-config -display none -monitor none \
                -machine pc -accel tcg,tb-size=256 -cpu max -smp 2 -m 6G \
                -global PIIX4_PM.disable_s3=0 \
                -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
                -append "root=LABEL=ra-root rw console=ttyS0 panic=-1 quiet loglevel=4 random.trust_cpu=on mitigations=off ra_lab.script=$lab ra_lab.suite=$suite ra_lab.suspend=$suspend ra_lab.hold=$hold ra_lab.ci=${CI:-}" \
                -serial "file:$tmp/console.log" \
                -serial "file:$tmp/lab.log" \
                -qmp "unix:$tmp/qmp.sock,server=on,wait=off" \
                -device virtio-rng-pci \
                $(drive root "$tmp/root.qcow2" qcow2 ra-root) \
                $(drive data "$tmp/data.img" raw ra-disk1) \
                $(drive btrfs "$tmp/btrfs.img" raw ra-disk2) \
                -virtfs "$(share "$src" src readonly=on)" \
                -virtfs "$(share "$tmp/debs" debs readonly=on)" \
                ${share_dir:+-virtfs "$(share "$share_dir" share readonly=on)"} &
        vm_pid=$!
        pids=("$vm_pid")
        python3 "$here/qmp-wakeup.py" "$tmp/qmp.sock" "$tmp/qmp.log" &
        pids+=("$!")
        qemu_rc=0
        wait "$vm_pid" || qemu_rc=$?
        kill "${pids[1]}" 2>/dev/null || true
        wait "${pids[1]}" 2>/dev/null || true
        pids=()
        elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

        # (a boot that panicked early wrote nothing there: grep finds no line)
        tr -d '\r' <"$tmp/lab.log" 2>/dev/null | grep -v '^ra-lab status: ' || true
        [ -s "$tmp/qmp.log" ] && sed 's/^/# qmp: /' "$tmp/qmp.log" >&2
        status=$(tr -d '\r' <"$tmp/lab.log" 2>/dev/null | sed -n 's/^ra-lab status: \([0-9]*\)$/\1/p' | tail -n 1)
}

ra_lab_boot boot_guest "$tmp/console.log"
if [ -z "$status" ]; then
        log "kernel console (last 60 lines):"
        tr -d '\r' <"$tmp/console.log" | tail -n 60 >&2 || true
        [ "$qemu_rc" -ne 124 ] && [ "$qemu_rc" -ne 137 ] || die "timed out after ${timeout_s}s"
        die "the guest stopped without a status (QEMU exit $qemu_rc)"
fi
log "guest finished in ${elapsed}s with status $status"
if [ "$status" != 0 ]; then
        log "kernel console (last 30 lines):"
        tr -d '\r' <"$tmp/console.log" | tail -n 30 >&2 || true
fi
exit "$status"
