#!/bin/bash
# SPDX-License-Identifier: MIT
# run-case.sh CASE [TREE CHECK]: one network-filesystem case of check.py,
# inside `umockdev-run -d bdis.umockdev` (see README.md); tests/btrfs passes
# its own tree and check script, which reuses check.py's helpers.
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL. Without umockdev-run or python3 the test is skipped (exit
# 77), or fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run-case.sh CASE [TREE CHECK]}
tree=${2:-$here/bdis.umockdev}
check=${3:-$here/check.py}

missing() {
        if [ -n "${CI:-}" ]; then
                echo "FAIL: $1, and CI is set: the netfs tests must run in CI" >&2
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
for f in "$tree" "$check" "$RA_AGENT" "$RA_CTL"; do
        [ -e "$f" ] || { echo "ERROR: $f does not exist" >&2; exit 2; }
done
[ -d "$RA_TESTROOT" ] || { echo "ERROR: test root $RA_TESTROOT does not exist (build the 'testroot' target)" >&2; exit 2; }

# A testbed that cannot even start is a failure, not a skip.
if ! out=$(umockdev-run -d "$tree" -- sh -c 'test -d "$UMOCKDEV_DIR/sys/class/bdi"' 2>&1); then
        echo "FAIL: umockdev-run cannot load $tree: $out" >&2
        exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ra-netfs-$name.XXXXXX")
cleanup() {
        if [ -n "${RA_KEEP_TMP:-}" ]; then
                echo "kept $tmp"
        else
                rm -rf "$tmp"
        fi
}
trap cleanup EXIT

# A private copy of the configuration root: drop-ins a case writes into its
# etc/ never reach another case.
root=$tmp/root
cp -a "$RA_TESTROOT" "$root"
echo "case:    $name"
echo "root:    $root"
echo "agent:   $RA_AGENT"
echo "ctl:     $RA_CTL"

export RA_NETFS_ROOT=$root
# check.py writes $UMOCKDEV_DIR/proc/self/mountinfo and /proc/meminfo before
# anything runs: without them umockdev would hand out the host's.
timeout 300 umockdev-run -d "$tree" -- python3 "$check" "$name"
