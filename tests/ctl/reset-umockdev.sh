#!/bin/bash
# SPDX-License-Identifier: MIT
# reset-umockdev.sh: `readahead-ctl reset` against fake device trees from
# tests/umockdev/trees, where each disk first holds a value the agent could
# have written (999 KiB, deliberately not a whole page) and must get back the
# value the kernel would choose: max(2 x io_opt, 128 KiB) in whole pages, with
# max_sectors standing in for io_opt on rotational disks without one since
# Linux 6.17. The expected numbers are written down here, not computed.
#
# Needs RA_CTL, RA_TESTROOT and RA_SOURCE_DIR (ctest sets them). Without
# umockdev-run it is skipped (77), or fails when CI is set.
set -euo pipefail

trees=${RA_SOURCE_DIR:?run through ctest}/tests/umockdev/trees
: "${RA_CTL:?}" "${RA_TESTROOT:?}"

if ! command -v umockdev-run >/dev/null; then
        if [ -n "${CI:-}" ]; then
                echo "FAIL: umockdev-run not found, and CI is set" >&2
                exit 1
        fi
        echo "SKIP: umockdev-run not found (install the umockdev package)" >&2
        exit 77
fi

# Since Linux 6.17 a rotational disk without io_opt uses max_sectors (1280K in
# every tree here): 2 x 1280K = 2560K. Before, the kernel default 128K.
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "${kmin%%[!0-9]*}" -ge 17 ]; }; then
        hdd=2560
        hdd_why="rotational, no io_opt: 2 x max_sectors 1280K"
else
        hdd=128
        hdd_why="kernel default"
fi
page_kb=$(($(getconf PAGESIZE) / 1024))
if [ "$page_kb" != 4 ]; then
        echo "SKIP: the expected values assume 4 KiB pages (this host: $page_kb KiB)" >&2
        exit 77
fi

trees_used="sata-hdd nvme md-raid5 usb-bridge-bogus"

# expect TREE: one line per disk: NAME EXPECTED_KB AS_PRINTED WHY (reset's
# parentheses)
expect() {
        case $1 in
        sata-hdd)
                echo "sda $hdd ${hdd}K $hdd_why" ;;
        nvme)
                # not rotational, io_opt 0: the kernel default
                echo "nvme0n1 128 128K kernel default" ;;
        md-raid5)
                # io_opt = 3 data disks x 512K = 1536K: two stripes
                echo "md0 3072 3M 2 x io_opt 1536K"
                echo "sda $hdd ${hdd}K $hdd_why"
                echo "sdb $hdd ${hdd}K $hdd_why"
                echo "sdc $hdd ${hdd}K $hdd_why"
                echo "sdd $hdd ${hdd}K $hdd_why" ;;
        usb-bridge-bogus)
                # the bridge reports 65535 sectors: 2 x 33553920 bytes = 65535K,
                # floored to whole pages. reset restores the kernel's choice,
                # bogus or not.
                echo "sdc 65532 65532K 2 x io_opt 32767K" ;;
        esac
}

# Under AddressSanitizer, umockdev's preload library comes before the ASan
# runtime (tests/umockdev/README.md).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ra-reset-umockdev.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for tree in $trees_used; do
        out=$tmp/$tree.out
        # Every disk's read_ahead_kb (its bdi's: what the product writes) is
        # preset to 999 first; then reset runs for all disks, then once more
        # (all unchanged), then for one by name.
        umockdev-run -d "$trees/$tree.umockdev" -- sh -c '
                set -e
                mkdir -p "$UMOCKDEV_DIR/proc/self"
                cp "$1" "$UMOCKDEV_DIR/proc/meminfo"
                cp "$2" "$UMOCKDEV_DIR/proc/self/mountinfo"
                for d in /sys/block/*; do
                        [ -e "$d/partition" ] || printf "999\n" >"/sys/class/bdi/$(cat "$d/dev")/read_ahead_kb"
                done
                echo "== reset"
                rc=0; "$3" --root "$4" reset || rc=$?; echo "rc=$rc"
                echo "== values"
                for d in /sys/block/*; do
                        [ -e "$d/partition" ] && continue
                        printf "%s %s\n" "${d##*/}" "$(head -n1 "/sys/class/bdi/$(cat "$d/dev")/read_ahead_kb")"
                done
                echo "== again"
                rc=0; "$3" --root "$4" reset || rc=$?; echo "rc=$rc"
        ' sh "$trees/$tree.meminfo" "$RA_SOURCE_DIR/tests/umockdev/host.mountinfo" "$RA_CTL" "$RA_TESTROOT" \
                >"$out" 2>&1 || true
        echo "---- $tree"
        cat "$out"

        while read -r dev kb printed why; do
                grep -qx "$dev $kb" "$out" ||
                        { echo "FAIL: $tree: $dev: expected read_ahead_kb $kb after reset" >&2; fail=1; }
                grep -Eq "^$dev +999K -> $printed \($why\)$" "$out" ||
                        { echo "FAIL: $tree: $dev: expected the line '$dev 999K -> $printed ($why)'" >&2; fail=1; }
                grep -Eq "^$dev +$printed, unchanged \($why\)$" "$out" ||
                        { echo "FAIL: $tree: $dev: the second reset should leave it unchanged" >&2; fail=1; }
        done < <(expect "$tree")
        [ "$(grep -c '^rc=0$' "$out")" = 2 ] || { echo "FAIL: $tree: reset did not exit 0 twice" >&2; fail=1; }
done

exit $fail
