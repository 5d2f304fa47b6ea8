#!/bin/bash
# SPDX-License-Identifier: MIT
#
# build-deb.sh SUITE OUTDIR: builds readahead-agent's .deb for Debian SUITE
# from this source tree (as it stands, uncommitted changes included) and
# puts the .deb in OUTDIR. On this machine's own release it builds here, in a
# copy of the tree; for another release, inside that release's root
# (tests/debian-root), so the package links that release's libraries.
# `nocheck`: the tests run as their own steps, not again in the build.
set -euo pipefail

suite=${1:?usage: build-deb.sh SUITE OUTDIR}
out=$(realpath "${2:?usage: build-deb.sh SUITE OUTDIR}")
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/debian.sh
. "$src/tests/lib/debian.sh"
# shellcheck source=tests/lib/source.sh
. "$src/tests/lib/source.sh"

build='DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -b -us -uc -Pnocheck'
if [ "$suite" = "$(ra_debian_base_suite)" ]; then
        tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-deb.XXXXXX")
        trap 'rm -rf "$tmp"' EXIT
        ra_copy_source "$src" "$tmp/readahead-agent"
        (cd "$tmp/readahead-agent" && eval "$build")
        cp "$tmp"/*.deb "$out"/
else
        RA_ROOT_OUT=$out "$src/tests/debian-root/enter.sh" "$suite" "$build && cp ../*.deb /out/"
fi
ls "$out"/readahead-agent_*.deb >/dev/null
