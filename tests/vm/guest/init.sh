#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The guest's init (PID 1), started by the image's /init from the host's
# source tree: sets up the system, installs the host build, starts a real
# systemd-udevd, runs one test and writes its exit status to /ra/out/status.
# Everything printed goes to /ra/out/log on the host.
set -u
exec >/ra/out/log 2>&1
set -a # the test runs as a child: CI and RA_VM_ARGS must reach it
. /ra/out/env
set +a

status=1
finish() {
        echo "$status" >/ra/out/status
        sync
        echo o >/proc/sysrq-trigger
        sleep 10
}
trap finish EXIT
step() { printf '# vm %.1fs: %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$*"; }

mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/lock /dev/pts /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t configfs configfs /sys/kernel/config 2>/dev/null || true
ln -sf /proc/self/fd /dev/fd
hostname ra-vm
ip link set lo up
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root

# The host build, as `cmake --install` laid it out. --keep-directory-symlink:
# the guest's /lib is a link to /usr/lib (merged /usr).
mkdir -p /ra/stage
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro stage /ra/stage || exit
tar -C /ra/stage -cf - . | tar -C / -xf - --keep-directory-symlink || exit
(cd /ra/stage && find . ! -type d | sed 's|^\.||') >/run/ra-vm-installed
step "installed $(wc -l </run/ra-vm-installed) files from the host build"

# A sanitizer build reports into files that the test's verdict includes:
# udevd gives the programs it runs only the event's properties, so a rule
# sorting first sets the options as properties.
sanitizer_log=/run/ra-vm-sanitizer
export ASAN_OPTIONS=log_path=$sanitizer_log:detect_leaks=1
export UBSAN_OPTIONS=log_path=$sanitizer_log:print_stacktrace=1
mkdir -p /run/udev/rules.d
printf 'ENV{ASAN_OPTIONS}="%s", ENV{UBSAN_OPTIONS}="%s"\n' "$ASAN_OPTIONS" "$UBSAN_OPTIONS" \
        >/run/udev/rules.d/00-ra-vm-sanitizer.rules

# A real udevd with every rule the packages installed (nfs-common's
# 99-nfs.rules among them) and ours. Coldplug of block devices only: a full
# one loads a module for every CPU feature, slowly under TCG.
/lib/systemd/systemd-udevd --daemon || exit
udevadm trigger --action=add --subsystem-match=block
udevadm settle --timeout=60
step "udevd running, $(ls /sys/block | grep -c '^vd') virtio disk(s)"

bash /ra/src/tests/vm/guest/"$RA_VM_TEST"
status=$?
step "$RA_VM_TEST exited $status"
udevadm settle --timeout=30
for f in "$sanitizer_log".*; do
        [ -e "$f" ] || continue
        echo "FAIL: sanitizer report $f:"
        cat "$f"
        status=1
done
