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
. "$here/../lib/umockdev-case.sh"
name=${1:?usage: run-tree.sh TREE}
tree=$here/trees/$name.umockdev
meminfo=$here/trees/$name.meminfo

ra_umock_require umockdev "$tree" "$meminfo" "$RA_AGENT" "$RA_CTL"
ra_umock_probe "$tree" sys
ra_umock_tmp "umockdev-$name"
root=$RA_UMOCK_TMP/root

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
