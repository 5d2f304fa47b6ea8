#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/vm/run.sh [--timeout SEC] [--disks N] TEST
#
# Boots Debian 12's own kernel under QEMU (software emulation: TCG), installs
# the host build into the guest exactly as `cmake --install` lays it out,
# starts a real systemd-udevd there, runs tests/vm/guest/TEST as root and
# returns its output and exit status (a failed run whose kernel panicked runs
# once more: ra_lab_boot, tests/lib/lab.sh). The guest gets N empty 128 GiB
# sparse virtio disks (serial ra-disk0...; /dev/vda...), 4 GiB of memory, 2
# CPUs.
#
# Environment: RA_BUILD_DIR (the build to install, required), RA_SOURCE_DIR
# (default: this checkout), RA_VM_CACHE (see image.sh), RA_VM_KEEP (keep the
# disks, console log and results), RA_VM_ARGS (handed to the guest test as
# RA_VM_ARGS), CI (a machine that cannot run the lab fails instead of
# skipping).
#
# Shares (9p): the source tree read-only ("src": the guest's init and tests),
# the staged install read-only ("stage"), and a directory for the results
# ("out": log, status).
set -euo pipefail

timeout_s=300
disks=0
while [ $# -gt 0 ]; do
        case $1 in
        --timeout) timeout_s=$2; shift 2 ;;
        --disks) disks=$2; shift 2 ;;
        -*) echo "usage: $0 [--timeout SEC] [--disks N] TEST" >&2; exit 2 ;;
        *) break ;;
        esac
done
[ $# -eq 1 ] || { echo "usage: $0 [--timeout SEC] [--disks N] TEST" >&2; exit 2; }
test_name=$1
here=$(cd "$(dirname "$0")" && pwd)
src=${RA_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
name=vm-${test_name%.sh}

# shellcheck source=tests/lib/lab.sh
. "$here/../lib/lab.sh"
ra_lab_name "$name" "the VM tests"

[ -n "${RA_BUILD_DIR:-}" ] || die "RA_BUILD_DIR is not set (run through ctest)"
[ -r "$src/tests/vm/guest/$test_name" ] || die "no guest test $src/tests/vm/guest/$test_name"
ra_lab_require "the image build, the guest's install" qemu-system-x86_64

rc=0
image=$("$here/image.sh") || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-$name.XXXXXX")
vm_pid=""
cleanup() {
        [ -z "$vm_pid" ] || kill "$vm_pid" 2>/dev/null || true
        if [ -n "${RA_VM_KEEP:-}" ]; then
                log "kept $tmp (RA_VM_KEEP)"
        else
                rm -rf "$tmp"
        fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The host build, installed the way CMake installs it (rule, unit, vendor
# configuration, binaries), into a staging tree the guest copies to its /.
DESTDIR=$tmp/stage cmake --install "$RA_BUILD_DIR" >"$tmp/install.log" 2>&1 ||
        { cat "$tmp/install.log" >&2; die "cmake --install $RA_BUILD_DIR failed"; }

share() { printf 'local,path=%s,mount_tag=%s,security_model=none%s' "$1" "$2" "${3:+,$3}"; }

# One run of the guest test, on fresh disks: sets status (empty when the
# guest wrote none), qemu_rc and elapsed.
boot_guest() {
        local i disk_args=() start
        rm -rf "$tmp/out" "$tmp/console.log"
        mkdir "$tmp/out"
        {
                printf 'RA_VM_TEST=%q\n' "$test_name"
                printf 'RA_VM_DISKS=%q\n' "$disks"
                printf 'CI=%q\n' "${CI:-}"
                printf 'RA_VM_ARGS=%q\n' "${RA_VM_ARGS:-}"
        } >"$tmp/out/env"

        for ((i = 0; i < disks; i++)); do
                # Large and sparse: the small-device cap must not hide the RAID rule.
                rm -f "$tmp/disk$i.img"
                truncate -s 128G "$tmp/disk$i.img"
                disk_args+=(-drive "if=none,id=d$i,file=$tmp/disk$i.img,format=raw,cache=unsafe"
                        -device "virtio-blk-pci,drive=d$i,serial=ra-disk$i")
        done

        log "booting $(cat "$image/kernel-release") with ${disks} disk(s), timeout ${timeout_s}s"
        start=$EPOCHREALTIME
        # tb-size keeps QEMU's translation cache (and so its memory) near 1 GiB.
        timeout --kill-after=10 "$timeout_s" qemu-system-x86_64 \
                -nodefaults -no-user-config -display none -monitor none -no-reboot \
                -machine pc -accel tcg,tb-size=128 -cpu max -smp 2 -m 4G \
                -kernel "$image/vmlinux" -initrd "$image/initramfs.cpio" \
                -append "console=ttyS0 panic=-1 quiet loglevel=4 random.trust_cpu=on mitigations=off" \
                -serial "file:$tmp/console.log" \
                -device virtio-rng-pci \
                -virtfs "$(share "$src" src readonly=on)" \
                -virtfs "$(share "$tmp/stage" stage readonly=on)" \
                -virtfs "$(share "$tmp/out" out)" \
                "${disk_args[@]}" &
        vm_pid=$! # timeout's: it passes a TERM on to QEMU
        qemu_rc=0
        wait "$vm_pid" || qemu_rc=$?
        vm_pid=""
        elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

        [ -r "$tmp/out/log" ] && tr -d '\r' <"$tmp/out/log"
        status=$(cat "$tmp/out/status" 2>/dev/null || true)
}

ra_lab_boot boot_guest "$tmp/console.log"
if [ -z "$status" ]; then
        log "kernel console (last 40 lines):"
        tail -n 40 "$tmp/console.log" >&2 || true
        [ "$qemu_rc" -ne 124 ] && [ "$qemu_rc" -ne 137 ] || die "timed out after ${timeout_s}s"
        die "the guest stopped without a status (QEMU exit $qemu_rc)"
fi
log "guest finished in ${elapsed}s with status $status"
if [ "$status" != 0 ] && [ "$status" != 77 ]; then
        log "kernel console (last 20 lines):"
        tail -n 20 "$tmp/console.log" >&2 || true
fi
if [ "$status" = 77 ] && [ -n "${CI:-}" ]; then
        die "the guest test skipped (CI is set: it must run)"
fi
exit "$status"
