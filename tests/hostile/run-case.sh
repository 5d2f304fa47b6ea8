#!/bin/bash
# SPDX-License-Identifier: MIT
# run-case.sh CASE: one hostile-input case of check.py, inside
# `umockdev-run -d TREE` with the tree that tree.py writes (see README.md).
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL. Without umockdev-run or python3 the test is skipped (exit
# 77), or fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run-case.sh CASE}

missing() {
        if [ -n "${CI:-}" ]; then
                echo "FAIL: $1, and CI is set: the hostile-input tests must run in CI" >&2
                exit 1
        fi
        echo "SKIP: $1" >&2
        exit 77
}

command -v umockdev-run >/dev/null || missing "umockdev-run not found (install the umockdev package)"
command -v python3 >/dev/null || missing "python3 not found"

for v in RA_TESTROOT RA_VENDOR_DIR RA_AGENT RA_CTL; do
        if [ -z "${!v:-}" ]; then
                echo "ERROR: $v is not set (run through ctest, or export it)" >&2
                exit 2
        fi
done
[ -d "$RA_TESTROOT" ] || { echo "ERROR: test root $RA_TESTROOT does not exist (build the 'testroot' target)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ra-hostile-$name.XXXXXX")
cleanup() {
        if [ -n "${RA_KEEP_TMP:-}" ]; then
                echo "kept $tmp"
        else
                rm -rf "$tmp"
        fi
}
trap cleanup EXIT

python3 "$here/tree.py" >"$tmp/hostile.umockdev"
if ! out=$(umockdev-run -d "$tmp/hostile.umockdev" -- sh -c 'test -d "$UMOCKDEV_DIR/sys/class/bdi/0:53"' 2>&1); then
        echo "FAIL: umockdev-run cannot load the tree: $out" >&2
        exit 1
fi

# A private copy of the configuration root (tests/netfs/check.py's helpers
# find it as RA_NETFS_ROOT).
export RA_NETFS_ROOT=$tmp/root RA_HOSTILE_TREE=$tmp/hostile.umockdev RA_HOSTILE_TMP=$tmp
cp -a "$RA_TESTROOT" "$RA_NETFS_ROOT"
echo "case:    $name"
echo "root:    $RA_NETFS_ROOT"
timeout 600 umockdev-run -d "$tmp/hostile.umockdev" -- python3 "$here/check.py" "$name"
