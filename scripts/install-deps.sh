#!/bin/bash
# Installs what building (and, with --test, testing) readahead-agent needs on
# Debian 12 or 13. Packages are named as every release names them (clang's
# runtime as libclang-rt-dev, not libclang-rt-14-dev), so tests/debian-root
# proves the list on Debian 13. Safe to run again.
set -euo pipefail

build_deps=(build-essential cmake pkg-config libudev-dev libsystemd-dev libblkid-dev libinih-dev libsmartcols-dev libjson-c-dev udev scdoc)
test_deps=(umockdev libumockdev-dev python3 clang libclang-rt-dev valgrind nfs-common fuse3 util-linux time bindfs
           jq prometheus-node-exporter curl
           btrfs-progs # tests/real/btrfs.sh
           qemu-system-x86 qemu-utils mmdebstrap cpio kmod # tests/vm, tests/systemd: the real-kernel labs (QEMU, guest images)
           gnuplot-nox bsdutils # bench/benefit's plot; script(1) for calibrate's terminal test
           libmount-dev # bench/mountinfo-parse.sh: our parser against libmount (not a build dependency)
           podman runc catatonit netavark python3-yaml # tests/k8s: the DaemonSet's pod played by podman (runc: crun refuses hybrid cgroups)
           blhc piuparts autopkgtest # tests/package: quality.sh (blhc), piuparts.sh, package.sh's autopkgtest
           debhelper dpkg-dev lintian devscripts systemd) # the last line: tests/package (the .deb)
test_deps+=(strace) # tests/umockdev/advise-write.sh: holds a rename to race two advise runs
test_deps+=(rocksdb-tools postgresql e2fsprogs) # tests/real/advise-app-*.sh: db_bench and a PostgreSQL scan on ext4 (bench/apps installs the rest itself)

packages=("${build_deps[@]}")
if [ "${1:-}" = --test ]; then
        packages+=("${test_deps[@]}")
fi

missing=()
for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
