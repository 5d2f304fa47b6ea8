#!/bin/bash
# SPDX-License-Identifier: MIT
#
# run.sh SUITE: what a contributor on Debian SUITE does first, inside that
# release's root (root.sh, through enter.sh's throw-away overlay):
#   1. scripts/install-deps.sh --test finds every package (the root was made
#      by running it; here it must have nothing left to install);
#   2. ./setup.sh builds and installs (into the overlay's /usr); there are no
#      devices to apply to in a root, which it must take in its stride;
#   3. a -Werror build runs the tests that need no kernel of that release:
#      the labels unit, umockdev, netfs, status and btrfs, without the ones
#      that need a real udevd (label real). Those, and the package under
#      systemd, run in the release's own kernel in the systemd lab.
set -euo pipefail

suite=${1:?usage: run.sh SUITE}
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/enter.sh" "$suite" '
echo "# debian-root: Debian $(cat /etc/debian_version), $(gcc --version | head -n 1), libinih $(dpkg-query -W -f="\${Version}" libinih-dev)"
scripts/install-deps.sh --test
./setup.sh >/tmp/setup.log 2>&1 || { tail -n 40 /tmp/setup.log; echo "FAIL: setup.sh"; exit 1; }
echo "# debian-root: setup.sh built and installed readahead-ctl $(readahead-ctl --version 2>/dev/null | head -n 1)"
cmake -S . -B build-test -DRA_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-test -j"$(nproc)" >/tmp/build.log 2>&1 || { tail -n 60 /tmp/build.log; exit 1; }
ctest --test-dir build-test --output-on-failure --no-tests=error -j"$(nproc)" \
        -L "^(unit|umockdev|netfs|status|btrfs)$" -LE "^(real|vm|package)$"
'
