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
. "$here/../lib/umockdev-case.sh"
name=${1:?usage: run-case.sh CASE [TREE CHECK]}
tree=${2:-$here/bdis.umockdev}
check=${3:-$here/check.py}

ra_umock_require netfs "$tree" "$check" "$RA_AGENT" "$RA_CTL"
ra_umock_probe "$tree" sys/class/bdi
ra_umock_tmp "netfs-$name"
root=$RA_UMOCK_TMP/root
echo "case:    $name"
echo "root:    $root"
echo "agent:   $RA_AGENT"
echo "ctl:     $RA_CTL"

export RA_NETFS_ROOT=$root
# check.py writes $UMOCKDEV_DIR/proc/self/mountinfo and /proc/meminfo before
# anything runs: without them umockdev would hand out the host's.
timeout 300 umockdev-run -d "$tree" -- python3 "$check" "$name"
