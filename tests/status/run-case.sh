#!/bin/bash
# SPDX-License-Identifier: MIT
# run-case.sh CASE: one case of check.py (the status table), inside
# `umockdev-run -d TREE` with the tree that tree.py writes (see README.md).
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL. Without umockdev-run or python3 the test is skipped (exit
# 77), or fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"
name=${1:?usage: run-case.sh CASE}

ra_umock_require status-table "$RA_CTL"
ra_umock_tmp "status-$name"
tmp=$RA_UMOCK_TMP

python3 "$here/tree.py" >"$tmp/status.umockdev"
ra_umock_probe "$tmp/status.umockdev" sys/block/md0 "the tree"

export RA_STATUS_ROOT=$tmp/root
echo "case:    $name"
echo "root:    $RA_STATUS_ROOT"
timeout 300 umockdev-run -d "$tmp/status.umockdev" -- sh -c '
        set -e
        mkdir -p "$UMOCKDEV_DIR/proc/self"
        cp "$1" "$UMOCKDEV_DIR/proc/meminfo"
        exec python3 "$2" "$3"
' sh "$here/../umockdev/trees/md-raid1.meminfo" "$here/check.py" "$name"
