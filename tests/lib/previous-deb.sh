#!/bin/bash
# SPDX-License-Identifier: MIT
#
# previous-deb.sh SUITE: builds (once) the .deb of the previous release,
# 0.1.0, for Debian SUITE, from the last commit that was 0.1.0
# (RA_PREVIOUS_COMMIT), with that commit's own tests/lib/build-deb.sh, and
# prints the directory that holds it. Cached in
# /var/cache/readahead-agent/previous-deb (RA_PREVIOUS_DEB_CACHE) under the
# suite and the commit. For the upgrade tests: piuparts
# (tests/package/piuparts.sh) and the systemd lab's upgrade step.
#
# Exit status: 0 with the directory on stdout; 77 without git history or
# root (a failure when CI is set); 1 on a failed build.
set -euo pipefail

suite=${1:?usage: previous-deb.sh SUITE}
src=$(cd "$(dirname "$0")/../.." && pwd)
# The last commit of 0.1.0 (main before the version became 0.2.0).
commit=${RA_PREVIOUS_COMMIT:-f3d65d554b6f682688ac701fc30a78053d9a5cb0}
version=0.1.0
cache=${RA_PREVIOUS_DEB_CACHE:-/var/cache/readahead-agent/previous-deb}
# shellcheck source=tests/lib/lab.sh
. "$src/tests/lib/lab.sh"
ra_lab_name "previous-deb $suite" "the upgrade from $version"

name=$suite-$version-${commit:0:12}
ra_cache_find "$cache" "$name" && exit 0
[ "$(id -u)" -eq 0 ] || skip "needs root (dpkg-buildpackage in the $suite root)"
git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null ||
        skip "commit $commit ($version) is not in this checkout's history (git fetch --unshallow)"

ra_cache_build "$cache" "$name"
mkdir -p "$work/src" "$work/deb"
git -C "$src" archive "$commit" | tar -x -C "$work/src"
log "building $version ($commit) for $suite"
"$work/src/tests/lib/build-deb.sh" "$suite" "$work/deb" >"$work/build.log" 2>&1 || {
        tail -n 40 "$work/build.log"
        die "the $version .deb did not build"
}
ls "$work/deb/readahead-agent_${version}_"*.deb >/dev/null || die "no readahead-agent_$version .deb built"
rm -f "$work/deb/"*dbgsym*
mv "$work/deb" "$work/entry"
ra_cache_publish "$work/entry" "$cache" "$name"
