#!/bin/bash
# SPDX-License-Identifier: MIT
# Where `cmake --install` puts the udev rule follows the prefix of the last
# configure: a build directory configured for /usr/local (the quick start)
# and then for /usr (setup.sh) must install the rule where udev's own rules
# live, not below /usr/local. Configures a scratch build directory twice and
# reads the install script CMake wrote; builds nothing.
set -euo pipefail

src=${RA_SOURCE_DIR:?run through ctest}
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config not installed"; exit 77; }
udevdir=$(pkg-config --variable=udevdir udev) || { echo "SKIP: no udev.pc"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rule_dest() {
        sed -n 's|.*file(INSTALL DESTINATION "\([^"]*\)".*99-readahead-agent.rules.*|\1|p' "$tmp/b/cmake_install.cmake"
}

cmake -S "$src" -B "$tmp/b" -DCMAKE_INSTALL_PREFIX=/usr/local >/dev/null
got=$(rule_dest)
[ "$got" = /usr/local/lib/udev/rules.d ] || { echo "FAIL: prefix /usr/local: rule to '$got'"; exit 1; }
echo "ok   prefix /usr/local: rule to $got"
cmake -S "$src" -B "$tmp/b" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
got=$(rule_dest)
[ "$got" = "$udevdir/rules.d" ] || { echo "FAIL: then prefix /usr: rule to '$got', expected $udevdir/rules.d"; exit 1; }
echo "ok   then prefix /usr: rule to $got"
cmake -S "$src" -B "$tmp/b" -DCMAKE_INSTALL_PREFIX=/usr -DRA_UDEV_RULES_DIR=/etc/udev/rules.d >/dev/null
got=$(rule_dest)
[ "$got" = /etc/udev/rules.d ] || { echo "FAIL: RA_UDEV_RULES_DIR given: rule to '$got'"; exit 1; }
echo "ok   RA_UDEV_RULES_DIR given: rule to $got"
