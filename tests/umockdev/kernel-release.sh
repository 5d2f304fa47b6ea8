#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel release decides the kernel's own value of a rotational disk
# without io_opt (sata-hdd: max_sectors_kb 1280): the default 128K before
# 6.17, 2 x max_sectors = 2560K since. tests/lib/uname-shim.so reports each
# release below, so every one is tested on any host: what reset puts back,
# what explain says of a current 2560K (the target is 512K), and status's
# KERNEL column. An md array (io_opt 1536K) gets 2 x io_opt on every release.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"

ra_umock_require umockdev "${RA_UNAME_SHIM:?run through ctest}"

page_kb=$(($(getconf PAGESIZE) / 1024))
[ "$page_kb" = 4 ] ||
        ra_umock_missing umockdev "the expected values assume 4 KiB pages (this host: $page_kb KiB)"

export LD_PRELOAD=$RA_UNAME_SHIM${LD_PRELOAD:+:$LD_PRELOAD}
fails=0

# check RELEASE TREE DEV WANT_RESET_LINE WANT_EXPLAIN_LINE
check() {
        local out
        out=$(RA_TEST_UNAME_RELEASE=$1 ra_umock_run "$2" sh -c '
                bdi=/sys/class/bdi/$(cat /sys/block/$2/dev)/read_ahead_kb
                echo 2560 >"$bdi"
                "$0" --root "$1" explain "$2" | tail -n 1
                echo 999 >"$bdi"
                "$0" --root "$1" reset "$2"
        ' "$RA_CTL" "$RA_TESTROOT" "$3" 2>&1) || true
        if [ "$out" = "$5"$'\n'"$4" ]; then
                echo "ok   $1 $2: $4"
        else
                printf 'FAIL %s %s: expected\n%s\n%s\ngot\n%s\n' "$1" "$2" "$5" "$4" "$out"
                fails=$((fails + 1))
        fi
}

old_hdd='sda        999K -> 128K (kernel default)'
new_hdd='sda        999K -> 2560K (rotational, no io_opt: 2 x max_sectors 1280K)'
other='Current 2560K, not 512K: set by something else: a write by hand, another tool or udev rule.'
max_sectors='Current 2560K, not 512K: 2 x max_sectors_kb (1280): since Linux 6.17 a rotational disk without io_opt gets this on every queue-limits update (attach, resume, rescan, a queue attribute written).'

check 6.1.0-28-amd64 sata-hdd sda "$old_hdd" "$other"
check 6.12.48+deb13-amd64 sata-hdd sda "$old_hdd" "$other"
check 6.15.0 sata-hdd sda "$old_hdd" "$other"
check 6.16.12 sata-hdd sda "$old_hdd" "$other"
check 6.17.0 sata-hdd sda "$new_hdd" "$max_sectors"
check 7.0.0-rc1 sata-hdd sda "$new_hdd" "$max_sectors"

raid_other='Current 2560K, not 3M: set by something else: a write by hand, another tool or udev rule.'
check 6.1.0 md-raid5 md0 'md0        999K -> 3M (2 x io_opt 1536K)' "$raid_other"
check 6.17.0 md-raid5 md0 'md0        999K -> 3M (2 x io_opt 1536K)' "$raid_other"

# status's KERNEL column: the same value for every disk of the array.
# status_kernel RELEASE EXPECTED (status -o NAME,KERNEL -rn of md-raid5)
status_kernel() {
        local got
        got=$(RA_TEST_UNAME_RELEASE=$1 ra_umock_run md-raid5 "$RA_CTL" --root "$RA_TESTROOT" \
                status -o NAME,KERNEL -rn 2>&1 | tr '\n' ' ') || true
        if [ "$got" = "$2" ]; then
                echo "ok   $1 status KERNEL: $got"
        else
                printf 'FAIL %s status KERNEL: expected\n%s\ngot\n%s\n' "$1" "$2" "$got"
                fails=$((fails + 1))
        fi
}
status_kernel 6.12.48 'sda 128K md0 3M sdb 128K sdc 128K sdd 128K '
status_kernel 6.17.0 'sda 2560K md0 3M sdb 2560K sdc 2560K sdd 2560K '

[ "$fails" -eq 0 ]
