#!/bin/bash
# SPDX-License-Identifier: MIT
# Virtual disks report rotational=1 by default; the status table must not
# call them rotating disks. Each tree's row of `status -o NAME,CLASS,BUS,FACTS
# -n -r`, written out: a virtual disk's FACTS say "virtual", a real SATA disk
# still "rotating", NVMe neither.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"

ra_umock_require umockdev
# ASan must tolerate umockdev's preload library loading before it.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

fails=0
# row TREE EXPECTED: the disk's row (bdis of the host's mounts left out).
row() {
        local got
        got=$(umockdev-run -d "$here/trees/$1.umockdev" -- sh -c '
                mkdir -p "$UMOCKDEV_DIR/proc/self"
                cp "$1" "$UMOCKDEV_DIR/proc/meminfo"
                cp "$2" "$UMOCKDEV_DIR/proc/self/mountinfo"
                exec "$3" --root "$4" status -o NAME,CLASS,BUS,FACTS -n -r
        ' sh "$here/trees/$1.meminfo" "$here/host.mountinfo" "$RA_CTL" "$RA_TESTROOT" | grep -v '^0:')
        if [ "$got" = "$2" ]; then
                echo "ok   $1: $got"
        else
                echo "FAIL $1: expected '$2', got '$got'"
                fails=$((fails + 1))
        fi
}

row virtio 'vda hdd virtio 50G\x20virtual'
row xen 'xvda hdd xen 50G\x20virtual'
row hyperv-storvsc 'sda hdd scsi 50G\x20virtual'
row vmware-pvscsi 'sda hdd scsi 50G\x20virtual'
row sata-hdd 'sda hdd ata 931G\x20rotating'
row nvme 'nvme0n1 ssd nvme 931G'
[ "$fails" -eq 0 ]
