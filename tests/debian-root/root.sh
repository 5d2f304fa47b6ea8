#!/bin/bash
# SPDX-License-Identifier: MIT
#
# root.sh SUITE: builds (once) a root of Debian SUITE (e.g. trixie) with
# everything scripts/install-deps.sh --test installs there, and prints its
# directory. The root is made the way a new contributor's machine would be:
# mmdebstrap's minimal base, then the project's own install-deps.sh, so a
# package name that release lacks fails here, as it would for them.
#
# The root lives in $RA_ROOT_CACHE (default /var/cache/readahead-agent/root)
# under SUITE and a hash of its inputs (this script, install-deps.sh, the apt
# sources), and is rebuilt only when one of them changes. Roots unused for a
# week are removed. Nobody writes into it: run.sh lays an overlay over it.
#
# Exit status: 0 with the directory on stdout; 77 when this machine cannot
# build it (not root, no mmdebstrap; a failure when CI is set); 1 on a failed
# build.
set -euo pipefail

suite=${1:?usage: root.sh SUITE}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cache=${RA_ROOT_CACHE:-/var/cache/readahead-agent/root}
# shellcheck source=tests/lib/lab.sh
. "$src/tests/lib/lab.sh"
ra_lab_name "debian-root $suite" "the Debian $suite root"
ra_lab_require "mmdebstrap --mode=root, chroot" mmdebstrap apt-get sha256sum flock
ra_debian_sources_of "$suite"

key=$( { cat "$0" "$src/scripts/install-deps.sh"; printf '%s\n' "${sources[@]}"; } | sha256sum | cut -c1-16)
name=$suite-$key
ra_cache_build "$cache" "$name"
log "building $key from ${sources[*]}"
# Services must not start inside the root: mmdebstrap keeps a policy-rc.d in
# place until its customize hooks are done.
mmdebstrap --variant=minbase --mode=root \
        --customize-hook='mkdir -p "$1/tmp/ra"' \
        --customize-hook="copy-in $src/scripts/install-deps.sh /tmp/ra" \
        --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive bash /tmp/ra/install-deps.sh --test' \
        --customize-hook='rm -rf "$1/tmp/ra" "$1"/var/cache/apt/archives/*.deb' \
        "$suite" "$work/root" "${sources[@]}" >"$work/mmdebstrap.log" 2>&1 ||
        { tail -n 40 "$work/mmdebstrap.log" >&2; die "mmdebstrap or install-deps.sh --test failed in the $suite root"; }
# The hooks ran install-deps.sh with the network: record what it installed.
chroot "$work/root" dpkg-query -W -f='${Package} ${Version}\n' >"$work/root/.ra-packages"
root=$(ra_cache_publish "$work/root" "$cache" "$name")
log "built $root in $(($(date +%s) - start)) s ($(du -sh "$root" | cut -f1))"
echo "$root"
