#!/bin/bash
# SPDX-License-Identifier: MIT
#
# image.sh SUITE: builds (once) the systemd lab's guest for Debian SUITE
# (bookworm, trixie) and prints its directory:
#   root.img        a raw ext4 root file system: mmdebstrap's minimal base
#                   with systemd as init, journald, udev, dbus, the release's
#                   own kernel (linux-image-amd64) and initramfs, NFS server
#                   and client (nfs-common's 99-nfs.rules with them),
#                   btrfs-progs, and the libraries readahead-agent's package
#                   depends on, so that `apt install ./readahead-agent.deb`
#                   needs no network
#   vmlinuz, initrd.img, kernel-release, packages.txt
#
# The guest boots as a Debian machine does: the kernel and Debian's own
# initramfs mount root=LABEL=ra-root and start systemd as PID 1. A oneshot
# unit, ra-lab.service, ordered after multi-user.target, mounts the host's
# shares (9p) and runs tests/systemd/guest/lab.sh from the host's tree, so a
# changed test never rebuilds the image; its output goes to the second
# serial port. Each run boots a copy-on-write
# overlay of root.img, which keeps what the guest wrote across its reboots.
#
# Cached in $RA_SYSTEMD_CACHE (default /var/cache/readahead-agent/systemd)
# under SUITE and a hash of this script and the apt sources. Exit status: 0
# with the directory on stdout; 77 when this machine cannot build it (a
# failure when CI is set); 1 on a failed build.
set -euo pipefail

suite=${1:?usage: image.sh SUITE}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cache=${RA_SYSTEMD_CACHE:-/var/cache/readahead-agent/systemd}
# shellcheck source=tests/lib/lab.sh
. "$src/tests/lib/lab.sh"
ra_lab_name "systemd image $suite" "the systemd lab"

# A booted Debian machine as users run it, plus what the lab's checks need:
# an NFS server to mount from itself, btrfs for a filesystem bdi, jq to read
# `status --json`, the shared libraries the package depends on, and python3
# for the advise lab (guest/advise.sh: tests/real's scripts read advise's JSON
# with it).
guest_packages=(systemd systemd-sysv dbus udev kmod linux-image-amd64 initramfs-tools lz4 e2fsprogs
        btrfs-progs nfs-kernel-server nfs-common rpcbind jq procps iproute2 util-linux mount
        libinih1 libsystemd0 libudev1 libblkid1 libsmartcols1 libjson-c5 python3)
# Debian 13's only: the k8s lab (guest/k8s.sh) plays the DaemonSet with its
# podman, which takes a DaemonSet as written (Debian 12's 4.3 does not).
# Offline: crun runs the containers; catatonit is the pause process of the
# infra image that podman builds itself instead of pulling one. netavark,
# which podman needs anyway, named so that apt takes it for the network stack
# containers-common asks for, not containernetworking-plugins (55 MB).
[ "$suite" = bookworm ] || guest_packages+=(podman crun catatonit netavark)

ra_lab_require "mmdebstrap --mode=root, device nodes" mmdebstrap apt-get mkfs.ext4 sha256sum flock
ra_debian_sources_of "$suite"
key=$( { cat "$0"; printf '%s\n' "${sources[@]}" "${guest_packages[@]}"; } | sha256sum | cut -c1-16)
name=$suite-$key
ra_cache_build "$cache" "$name"
log "building $key: ${#guest_packages[@]} packages from ${sources[*]}"
rootfs=$work/rootfs

# Set up inside the root before it becomes an image: what a machine's
# administrator would have set up, and the lab's unit.
customize() {
        local r=$1
        echo ra-lab >"$r/etc/hostname"
        printf '127.0.0.1 localhost\n127.0.1.1 ra-lab\n' >"$r/etc/hosts"
        : >"$r/etc/resolv.conf"
        echo 'LABEL=ra-root / ext4 rw,errors=remount-ro 0 1' >"$r/etc/fstab"
        # Root may log in on the serial console without a password (debugging).
        chroot "$r" passwd -d root >/dev/null
        # Debian's initramfs, small and quick to unpack under emulation: the
        # modules that find and mount the root, nothing else.
        printf 'MODULES=list\nCOMPRESS=lz4\n' >"$r/etc/initramfs-tools/conf.d/ra-lab.conf"
        printf 'virtio_pci\nvirtio_blk\next4\n' >>"$r/etc/initramfs-tools/modules"
        printf '9p\n9pnet_virtio\n' >"$r/etc/modules-load.d/ra-lab.conf"
        # Timers that would wake apt or scrub file systems during a test.
        for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
                ln -sf /dev/null "$r/etc/systemd/system/$u"
        done
        # NFS served from the guest itself, as vm-nfs does.
        mkdir -p "$r/srv/nfs"
        : >"$r/etc/exports"
        mkdir -p "$r/usr/local/sbin" "$r/ra"
        cat >"$r/usr/local/sbin/ra-lab" <<'LAB'
#!/bin/sh
# The systemd lab's test: tests/systemd/guest/LAB.sh from the host's tree
# (9p), LAB from the kernel command line (ra_lab.script=, run.sh --lab), run
# from a copy: virtio's 9p transport does not come back from suspend, so the
# test must not read a share after it. Its output goes to the second serial
# port, which does. The shares: src (the tree), debs (the packages), share
# (run.sh --share, where given).
o=trans=virtio,version=9p2000.L,msize=262144
script=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^ra_lab\.script=//p' | tail -n 1)
mkdir -p /ra/src /ra/debs /ra/share /run/ra-lab
mountpoint -q /ra/src || mount -t 9p -o $o,ro src /ra/src || exit 1
mountpoint -q /ra/debs || mount -t 9p -o $o,ro debs /ra/debs || exit 1
mountpoint -q /ra/share || mount -t 9p -o $o,ro share /ra/share 2>/dev/null || true
cp /ra/src/tests/systemd/guest/*.sh /run/ra-lab/ || exit 1
exec /bin/bash "/run/ra-lab/${script:-lab}.sh" >/dev/ttyS1 2>&1
LAB
        chmod 755 "$r/usr/local/sbin/ra-lab"
        # After multi-user.target, as a user's own unit would be; never
        # `systemctl is-system-running --wait` from here: it waits for itself.
        cat >"$r/etc/systemd/system/ra-lab.service" <<'UNIT'
[Unit]
Description=readahead-agent systemd lab
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/ra-lab
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=20min

[Install]
WantedBy=multi-user.target
UNIT
        mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
        ln -sf ../ra-lab.service "$r/etc/systemd/system/multi-user.target.wants/ra-lab.service"
        chroot "$r" update-initramfs -u -k all >/dev/null
}

mmdebstrap --quiet --variant=minbase --mode=root --include="$(IFS=,; echo "${guest_packages[*]}")" \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        "$suite" "$rootfs" "${sources[@]}" >"$work/mmdebstrap.log" 2>&1 ||
        { tail -n 30 "$work/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
customize "$rootfs" || die "could not set up the guest's root"
release=$(basename "$(ls -d "$rootfs"/usr/lib/modules/* | head -n 1)")
[ -s "$rootfs/boot/vmlinuz-$release" ] && [ -s "$rootfs/boot/initrd.img-$release" ] ||
        die "no kernel or initramfs for $release in the root"
cp "$rootfs/boot/vmlinuz-$release" "$work/vmlinuz"
cp "$rootfs/boot/initrd.img-$release" "$work/initrd.img"
echo "$release" >"$work/kernel-release"
chroot "$rootfs" dpkg-query -W -f='${Package} ${Version}\n' >"$work/packages.txt"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
# apt must still know the packages installed from the image's archive; the
# guest installs only the local .deb, with no network.
mkfs.ext4 -q -L ra-root -d "$rootfs" "$work/root.img" 6G >"$work/mkfs.log" 2>&1 ||
        { cat "$work/mkfs.log" >&2; die "mkfs.ext4 -d failed"; }
mkdir "$work/image"
mv "$work/root.img" "$work/vmlinuz" "$work/initrd.img" "$work/kernel-release" "$work/packages.txt" "$work/image/"
image=$(ra_cache_publish "$work/image" "$cache" "$name")
log "built $image in $(($(date +%s) - start)) s ($(du -sh "$image" | cut -f1) on disk), kernel $release"
echo "$image"
