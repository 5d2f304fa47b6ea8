#!/bin/bash
# SPDX-License-Identifier: MIT
# run-case.sh CASE: one case of check.py, inside `umockdev-run -d TREE` with
# the tree that tree.py writes (see README.md).
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL. Without umockdev-run or python3 the test is skipped (exit
# 77), or fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"
name=${1:?usage: run-case.sh CASE}

ra_umock_require devices
ra_umock_tmp "devices-$name"
tmp=$RA_UMOCK_TMP

python3 "$here/tree.py" >"$tmp/devices.umockdev"
ra_umock_probe "$tmp/devices.umockdev" sys/class/bdi/8:0 "the tree"

# The private root (tests/netfs/check.py's helpers find it as RA_NETFS_ROOT).
export RA_NETFS_ROOT=$tmp/root RA_DEVICES_TREE=$tmp/devices.umockdev
echo "case:    $name"
echo "root:    $RA_NETFS_ROOT"
timeout 600 umockdev-run -d "$tmp/devices.umockdev" -- python3 "$here/check.py" "$name"
