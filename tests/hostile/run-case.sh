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
. "$here/../lib/umockdev-case.sh"
name=${1:?usage: run-case.sh CASE}

ra_umock_require hostile-input
ra_umock_tmp "hostile-$name"
tmp=$RA_UMOCK_TMP

python3 "$here/tree.py" >"$tmp/hostile.umockdev"
ra_umock_probe "$tmp/hostile.umockdev" sys/class/bdi/0:53 "the tree"

# The private root (tests/netfs/check.py's helpers find it as RA_NETFS_ROOT).
export RA_NETFS_ROOT=$tmp/root RA_HOSTILE_TREE=$tmp/hostile.umockdev RA_HOSTILE_TMP=$tmp
echo "case:    $name"
echo "root:    $RA_NETFS_ROOT"
timeout 600 umockdev-run -d "$tmp/hostile.umockdev" -- python3 "$here/check.py" "$name"
