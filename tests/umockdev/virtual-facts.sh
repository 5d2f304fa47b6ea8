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

fails=0
# row TREE EXPECTED: the disk's row (bdis of the host's mounts left out).
row() {
        local got
        got=$(ra_umock_run "$1" "$RA_CTL" --root "$RA_TESTROOT" status -o NAME,CLASS,BUS,FACTS -n -r |
                grep -v '^0:')
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
