#!/bin/bash
# SPDX-License-Identifier: MIT
#
# piuparts.sh SUITE: piuparts on the package for Debian SUITE (bookworm,
# trixie), in a clean chroot of that release made from a cached base tarball:
# install, remove and purge of this tree's .deb (no file left, none
# modified, no process left), then the upgrade from the previous release's
# .deb (0.1.0, tests/lib/previous-deb.sh), which piuparts installs from a
# local repository as "the archive's version", upgrades to this one, and
# removes and purges. Dependencies come from Debian's archive as apt fetches
# them (the host's mirror).
#
# Caches (/var/cache/readahead-agent/piuparts): the base tarball per suite,
# rebuilt when the apt sources or the way it is made change. Exit 77 without root,
# piuparts or mmdebstrap (a failure when CI is set).
set -euo pipefail

suite=${1:?usage: piuparts.sh SUITE}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cache=${RA_PIUPARTS_CACHE:-/var/cache/readahead-agent/piuparts}
# shellcheck source=tests/lib/lab.sh
. "$src/tests/lib/lab.sh"
ra_lab_name "piuparts $suite" "piuparts on $suite"
ra_lab_require "piuparts builds a chroot" piuparts mmdebstrap dpkg-scanpackages
ra_debian_sources_of "$suite"
mirror=$(printf '%s\n' "${sources[@]}" | awk -v s="$suite" '$3 == s {print $2; exit}')

# ---- the base tarball (cached)
# Named after the sources and how it is made (change base_recipe with the
# mmdebstrap line), not after this whole script: an edit elsewhere keeps it.
# udev and systemd are in it: on trixie their own postinsts leave files
# (/etc/vconsole.conf, /var/lib/private, /root/.ssh) that the host's piuparts
# would blame on this package when it purges them with it.
base_recipe="mmdebstrap --variant=minbase --include=udev,systemd --format=tar"
name=base-$suite-$(printf '%s\n' "${sources[@]}" "$base_recipe" | sha256sum | cut -c1-16)
if ! base=$(ra_cache_find "$cache" "$name"); then
        ra_cache_lock "$cache" || die "timed out waiting for $cache/.lock"
        if ! base=$(ra_cache_find "$cache" "$name"); then
                t0=$SECONDS
                tmp=$(mktemp -d "$cache/.build.XXXXXX")
                $base_recipe "$suite" "$tmp/base.tar.gz" "${sources[@]}" \
                        >"$tmp/mmdebstrap.log" 2>&1 || { tail -n 30 "$tmp/mmdebstrap.log"; die "mmdebstrap failed"; }
                base=$(ra_cache_publish "$tmp" "$cache" "$name")
                log "base tarball made in $((SECONDS - t0)) s"
        fi
        exec 8>&-
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-piuparts-$suite.XXXXXX")
[ -n "${RA_KEEP_TMP:-}" ] || trap 'rm -rf "$work"' EXIT

# ---- this tree's .deb and the previous release's, as a local repository
t0=$SECONDS
"$src/tests/lib/build-deb.sh" "$suite" "$work" >"$work/build.log" 2>&1 || {
        tail -n 40 "$work/build.log"
        die "the .deb did not build"
}
log "built the .deb in $((SECONDS - t0)) s"
new=$(ls "$work"/readahead-agent_*.deb)
previous=$("$src/tests/lib/previous-deb.sh" "$suite")
repo=$work/previous
mkdir -p "$repo"
cp "$previous"/readahead-agent_*.deb "$repo"/
(cd "$repo" && dpkg-scanpackages --multiversion . >Packages)

# ---- piuparts: install, remove, purge; upgrade from the previous release.
# Ignored: trixie's debconf leaves /var/cache/debconf/tmp.ci/ behind for any
# package that uses it (libjson-c5 here); Debian 12's piuparts does not know
# it yet, Debian 13's ignores it itself.
t0=$SECONDS
rc=0
piuparts --basetgz="$base/base.tar.gz" --distribution="$suite" --mirror="$mirror main" \
        --extra-repo="deb [trusted=yes] file://$repo ./" --bindmount="$repo" \
        --ignore=/var/cache/debconf/tmp.ci/ \
        "$new" >"$work/piuparts.log" 2>&1 || rc=$?
grep -E '^ *[0-9]+m[0-9.]+s (INFO|ERROR|FAIL|WARNING)' "$work/piuparts.log" | tail -n 40 || true
log "piuparts ran in $((SECONDS - t0)) s"
[ "$rc" -eq 0 ] || { tail -n 80 "$work/piuparts.log"; die "piuparts failed (exit $rc)"; }
grep -q "PASS: All tests" "$work/piuparts.log" || die "piuparts did not report PASS"
# The upgrade ran, and from 0.1.0: dpkg unpacked the new version over it.
grep -q "PASS: Installation, upgrade and purging tests" "$work/piuparts.log" &&
        grep -qE "Unpacking readahead-agent \([^)]*\) over \(0\.1\.0\)" "$work/piuparts.log" ||
        die "piuparts did not run the upgrade from $(basename "$previous"/readahead-agent_*.deb)"
echo "ok:   piuparts $suite: install, remove, purge, and the upgrade from 0.1.0"
