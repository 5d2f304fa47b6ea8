#!/bin/bash
# SPDX-License-Identifier: MIT
# run-tree.sh TREE: checks readahead-ctl and readahead-agent against the fake
# device tree trees/TREE.umockdev (see README.md).
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL. Without umockdev-run or python3 the test is skipped (exit
# 77), or fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run-tree.sh TREE}
tree=$here/trees/$name.umockdev
meminfo=$here/trees/$name.meminfo

missing() {
        if [ -n "${CI:-}" ]; then
                echo "FAIL: $1, and CI is set: the umockdev tests must run in CI" >&2
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
for f in "$tree" "$meminfo" "$RA_AGENT" "$RA_CTL"; do
        [ -e "$f" ] || { echo "ERROR: $f does not exist" >&2; exit 2; }
done
[ -d "$RA_TESTROOT" ] || { echo "ERROR: test root $RA_TESTROOT does not exist (build the 'testroot' target)" >&2; exit 2; }

# The preload library must work here, or every check below would be
# meaningless; a testbed that cannot even start is a failure, not a skip.
if ! out=$(umockdev-run -d "$tree" -- sh -c 'test -d "$UMOCKDEV_DIR/sys"' 2>&1); then
        echo "FAIL: umockdev-run cannot load $tree: $out" >&2
        exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ra-umockdev-$name.XXXXXX")
cleanup() {
        if [ -n "${RA_KEEP_TMP:-}" ]; then
                echo "kept $tmp"
        else
                rm -rf "$tmp"
        fi
}
trap cleanup EXIT

# A private copy of the configuration root: nothing a run does can leak into
# the next test.
root=$tmp/root
cp -a "$RA_TESTROOT" "$root"

echo "tree:    $tree"
echo "root:    $root"
echo "agent:   $RA_AGENT"
echo "ctl:     $RA_CTL"

export RA_UMOCK_ROOT=$root
# umockdev redirects /proc/meminfo and /proc/self/mountinfo to these files
# below $UMOCKDEV_DIR when they exist.
timeout 300 umockdev-run -d "$tree" -- sh -c '
        set -e
        mkdir -p "$UMOCKDEV_DIR/proc/self"
        cp "$1" "$UMOCKDEV_DIR/proc/meminfo"
        cp "$2" "$UMOCKDEV_DIR/proc/self/mountinfo"
        exec python3 "$3" "$4"
' sh "$meminfo" "$here/host.mountinfo" "$here/check.py" "$name"
