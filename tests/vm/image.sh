#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Builds (once) the guest of the real-kernel lab and prints its directory:
#   vmlinux         Debian 12's own kernel, uncompressed ELF (QEMU boots it
#                   through its PVH entry, seconds faster under TCG than the
#                   bzImage's decompressor)
#   initramfs.cpio  a Debian 12 userland (mmdebstrap --variant=essential) with
#                   udev, mdadm, lvm2, cryptsetup, nfs-kernel-server and the
#                   kernel's modules for virtio, 9p, loop, md, dm, crypto, NFS;
#                   uncompressed: unpacking is faster than decompressing
#   kernel-release, packages.txt   what is inside, for the log
#
# The kernel package is fetched with `apt-get download` and unpacked with
# `dpkg-deb -x`: nothing is installed on the host. The image lives in
# $RA_VM_CACHE (default /var/cache/readahead-agent/vm) under a hash of its
# inputs (this script, the package list, the candidate versions, the apt
# sources), so it is rebuilt only when one of them changes.
#
# Exit status: 0 with the directory on stdout; 77 when this machine cannot
# build it (not root, no mmdebstrap); 1 on a failed build.
set -euo pipefail

cache=${RA_VM_CACHE:-/var/cache/readahead-agent/vm}
here=$(cd "$(dirname "$0")" && pwd)

# What the guest needs: a udevd, the storage tools, an NFS server and client
# (nfs-common comes with its own 99-nfs.rules, the peer we must coexist with),
# the shared libraries of the host-built agent, and the sanitizer runtimes so
# the ASan build runs there too.
guest_packages=(mount udev kmod mdadm lvm2 dmsetup cryptsetup-bin nfs-kernel-server nfs-common rpcbind
        iproute2 procps util-linux jq libinih1 libsystemd0 libudev1 libblkid1 libasan8 libubsan1)
# Kernel modules the tests load (sch_netem: added round-trip time for the NFS
# bench and advise); their dependencies come along (modprobe
# --show-depends). Crypto is taken whole: dm-crypt asks for ciphers by alias.
guest_modules=(virtio_pci virtio_blk virtio_rng 9pnet_virtio 9p loop raid0 raid1 raid10 raid456
        dm_mod dm_crypt nfs nfsv3 nfsv4 nfsd sch_netem)
guest_module_dirs=(kernel/crypto kernel/arch/x86/crypto kernel/lib/crypto)

# shellcheck source=tests/lib/lab.sh
. "$here/../lib/lab.sh"
ra_lab_name "vm image" "the VM tests"

ra_lab_require "mmdebstrap, device nodes in the image" mmdebstrap apt-get dpkg-deb depmod modprobe cpio \
        python3 sha256sum flock

# The machine's Debian sources only (tests/lib/debian.sh): other repositories
# (vendor tools) would not be reachable from a CI machine, nor wanted in the
# guest.
mapfile -t sources < <(ra_debian_host_sources)
[ "${#sources[@]}" -gt 0 ] || die "no Debian source in apt's lists (run apt-get update)"
suite=$(ra_debian_base_suite)
[ -n "$suite" ] || die "no Debian base suite among: ${sources[*]}"

kernel_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n 1)
[ -n "$kernel_pkg" ] || die "apt knows no linux-image-amd64 (run apt-get update)"

key=$( {
        cat "$0"
        printf '%s\n' "$suite" "${sources[@]}" "$kernel_pkg"
        apt-cache policy "$kernel_pkg" "${guest_packages[@]}" | grep -E '^[^ ]|Candidate'
} | sha256sum | cut -c1-16)
ra_cache_build "$cache" "$key"
log "building $key: $kernel_pkg, Debian $suite, ${#guest_packages[@]} packages"

# The kernel: unpacked, never installed.
(cd "$work" && apt-get download -q "$kernel_pkg" >/dev/null 2>&1) ||
        (cd "$work" && apt-get download "$kernel_pkg") || die "apt-get download $kernel_pkg failed"
mkdir "$work/kernel"
dpkg-deb -x "$work"/"$kernel_pkg"_*.deb "$work/kernel"
release=${kernel_pkg#linux-image-}
[ -d "$work/kernel/lib/modules/$release" ] || die "no modules for $release in $kernel_pkg"

# The bzImage carries the kernel as a compressed ELF; QEMU boots the ELF
# directly (PVH entry).
python3 - "$work/kernel/boot/vmlinuz-$release" "$work/vmlinux" <<'PY' || die "could not extract vmlinux"
import lzma, subprocess, sys, zlib
data = open(sys.argv[1], "rb").read()
def xz(b): return lzma.LZMADecompressor().decompress(b)
def gz(b): return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(b)
def zst(b): return subprocess.run(["zstd", "-dc"], input=b, capture_output=True).stdout
for magic, unpack in ((b"\xfd7zXZ\x00", xz), (b"\x28\xb5\x2f\xfd", zst), (b"\x1f\x8b\x08", gz)):
    at = data.find(magic)
    while at >= 0:
        try:
            out = unpack(data[at:])
        except Exception:
            out = b""
        if out[:4] == b"\x7fELF":
            open(sys.argv[2], "wb").write(out)
            sys.exit(0)
        at = data.find(magic, at + 1)
sys.exit("no compressed ELF found in " + sys.argv[1])
PY

# The userland, from the machine's own Debian sources. Documentation,
# translations and the hardware database only cost unpacking time at boot.
rootfs=$work/rootfs
mmdebstrap --quiet --variant=essential --mode=root --include="$(IFS=,; echo "${guest_packages[*]}")" \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/zoneinfo/*' \
        "$suite" "$rootfs" "${sources[@]}" >"$work/mmdebstrap.log" 2>&1 ||
        { tail -n 30 "$work/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
# The kernel unpacks every byte of the initramfs at each boot, slowly under
# TCG: drop what no test runs (Python and Perl's libraries come with
# nfs-common and lvm2 for scripts the lab never calls; iconv modules).
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/lib/udev/hwdb.bin \
        "$rootfs"/usr/lib/python3* "$rootfs"/usr/bin/python3* "$rootfs"/usr/share/perl \
        "$rootfs"/usr/lib/x86_64-linux-gnu/perl "$rootfs"/usr/lib/x86_64-linux-gnu/gconv
# mmdebstrap copies the host's name and resolver; the guest has no network.
echo ra-vm >"$rootfs/etc/hostname"
: >"$rootfs/etc/resolv.conf"

# Modules: the closure of what the tests load, then depmod for the guest.
depmod -b "$work/kernel" "$release"
modules_out=$rootfs/usr/lib/modules/$release
mkdir -p "$modules_out"
{
        for m in "${guest_modules[@]}"; do
                modprobe -d "$work/kernel" -S "$release" --show-depends --ignore-install "$m" ||
                        die "module $m: not in $kernel_pkg"
        done | awk '$1 == "insmod" {print $2}'
        for d in "${guest_module_dirs[@]}"; do
                find "$work/kernel/lib/modules/$release/$d" -name '*.ko*'
        done
} | sort -u | while read -r ko; do
        rel=${ko#*/lib/modules/"$release"/}
        mkdir -p "$modules_out/$(dirname "$rel")"
        cp "$ko" "$modules_out/$rel"
done
cp "$work/kernel/lib/modules/$release"/modules.{builtin,builtin.modinfo,order} "$modules_out/"
depmod -b "$rootfs" "$release"

# /init only finds the lab's real init on the host (9p, tag "src"), so that
# changing a test never rebuilds the image.
cat >"$rootfs/init" <<'INIT'
#!/bin/sh
# readahead-agent VM lab: the real init is tests/vm/guest/init.sh on the host.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in virtio_pci virtio_blk 9pnet_virtio 9p; do modprobe -q "$m"; done
mkdir -p /ra/src /ra/out
# msize: the default 8 KiB messages make every file read a crawl under TCG.
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o $o,ro src /ra/src &&
        mount -t 9p -o $o out /ra/out &&
        exec /bin/bash /ra/src/tests/vm/guest/init.sh
echo "ra-vm: cannot mount the host's shares" >/dev/console
echo o >/proc/sysrq-trigger
INIT
chmod 755 "$rootfs/init"
chroot "$rootfs" dpkg-query -W -f='${Package} ${Version}\n' >"$work/packages.txt"
echo "$release" >"$work/kernel-release"

(cd "$rootfs" && find . -print0 | cpio --null --create --format=newc --quiet) >"$work/initramfs.cpio"
mkdir "$work/image"
mv "$work/vmlinux" "$work/initramfs.cpio" "$work/packages.txt" "$work/kernel-release" "$work/image/"
image=$(ra_cache_publish "$work/image" "$cache" "$key")
log "built $image in $(($(date +%s) - start)) s ($(du -sh "$image" | cut -f1))"
echo "$image"
