#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh: check.py (README.md's commands) inside `umockdev-run` with the
# sata-hdd tree, so that readahead-ctl's commands run against a fake disk and
# a private copy of the test root (see README.md).
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL, RA_SOURCE_DIR, RA_BUILD_DIR. Without umockdev-run or
# python3 the test is skipped (exit 77), or fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"

ra_umock_require readme "$RA_CTL"
ra_umock_tmp readme
export RA_README_ROOT=$RA_UMOCK_TMP/root
ra_umock_run sata-hdd timeout 300 python3 "$here/check.py"
