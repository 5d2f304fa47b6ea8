#!/bin/bash
# SPDX-License-Identifier: MIT
# run-case.sh TREE CASE: one btrfs case of check.py, inside
# `umockdev-run -d TREE.umockdev` (see README.md).
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL. Without umockdev-run or python3 the test is skipped (exit
# 77), or fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tree=$here/${1:?usage: run-case.sh TREE CASE}.umockdev
name=${2:?usage: run-case.sh TREE CASE}

missing() {
        if [ -n "${CI:-}" ]; then
                echo "FAIL: $1, and CI is set: the btrfs tests must run in CI" >&2
                exit 1
        fi
        echo "SKIP: $1" >&2
        exit 77
}

command -v umockdev-run >/dev/null || missing "umockdev-run not found (install the umockdev package)"
command -v python3 >/dev/null || missing "python3 not found"
for v in RA_TESTROOT RA_VENDOR_DIR RA_AGENT RA_CTL; do
        [ -n "${!v:-}" ] || { echo "ERROR: $v is not set (run through ctest, or export it)" >&2; exit 2; }
done
for f in "$tree" "$RA_AGENT" "$RA_CTL"; do
        [ -e "$f" ] || { echo "ERROR: $f does not exist" >&2; exit 2; }
done
if ! out=$(umockdev-run -d "$tree" -- sh -c 'test -d "$UMOCKDEV_DIR/sys/class/bdi/btrfs-1"' 2>&1); then
        echo "FAIL: umockdev-run cannot load $tree: $out" >&2
        exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ra-btrfs-$name.XXXXXX")
trap '[ -n "${RA_KEEP_TMP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
cp -a "$RA_TESTROOT" "$tmp/root"
echo "tree: $tree; root: $tmp/root"

# check.py reuses tests/netfs/check.py, which finds the private root here.
export RA_NETFS_ROOT=$tmp/root
timeout 300 umockdev-run -d "$tree" -- python3 "$here/check.py" "$name"
