#!/bin/bash
# Sets up readahead-agent from source on Debian 12 or 13 (as root): installs the
# build dependencies, builds, installs under /usr, applies the profile to the
# disks present now, and shows the result.
set -euo pipefail
cd "$(dirname "$0")"

scripts/install-deps.sh
# A build directory of its own: a contributor's build/ may hold a sanitizer
# or /usr/local configuration that must not be what lands in /usr.
cmake -S . -B build-setup -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRA_SANITIZE=OFF
cmake --build build-setup -j"$(nproc)"
cmake --install build-setup

if udevadm control --ping 2>/dev/null; then
        # The installed rule takes effect for new events; replay the disks we
        # have, so that each goes through the same path as at boot.
        udevadm control --reload
        udevadm trigger --action=change --subsystem-match=block --property-match=DEVTYPE=disk
        # Network mounts and btrfs filesystems: their bdi's add event.
        udevadm trigger --action=add --subsystem-match=bdi --sysname-match='0:*' --sysname-match='btrfs-*'
        udevadm settle
fi
# Whatever an event did not reach (no udevd, a device udev skipped): now.
readahead-ctl apply
echo
readahead-ctl status
