#!/bin/bash
# SPDX-License-Identifier: MIT
#
# quality.sh: what Debian's own tools say about the package, on this
# machine's release:
#   1. reproducible: the .deb (and its -dbgsym) built twice, in two
#      directories of different names and depths, seconds apart, in another
#      time zone and locale, are the same bytes (dpkg-buildpackage takes
#      SOURCE_DATE_EPOCH from debian/changelog);
#   2. lintian --pedantic: no tag of any level but the overridden ones, each
#      with its reason in debian/readahead-agent.lintian-overrides;
#   3. blhc --bindnow on the first build's log: every compile and link line
#      had the hardening flags (fortify, stack protector, relro, bindnow);
#      hardening-check on the shipped binaries (PIE too).
# The builds go to RA_DEB_OUT (default: a temporary directory) with their logs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/lab.sh
. "$src/tests/lib/lab.sh"
# shellcheck source=tests/lib/source.sh
. "$src/tests/lib/source.sh"
ra_lab_name package-quality "the package's reproducibility, lintian and blhc checks"

for t in dpkg-buildpackage dh lintian blhc hardening-check cmp; do
        command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps.sh --test)"
done

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-quality.XXXXXX")
[ -n "${RA_KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# build DIR LOG [ENV...]: the binary packages from a copy of the tree in DIR.
build() {
        local dir=$1 log=$2 t0=$SECONDS
        shift 2
        ra_copy_source "$src" "$dir/readahead-agent"
        if ! (cd "$dir/readahead-agent" &&
                env "$@" DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -b -us -uc -Pnocheck) \
                >"$log" 2>&1; then
                tail -n 60 "$log"
                die "dpkg-buildpackage failed in $dir"
        fi
        log "built in $dir in $((SECONDS - t0)) s"
}

# ---- 1. reproducible
build "$tmp/a" "$tmp/build-a.log"
sleep 2
build "$tmp/second/build/dir" "$tmp/build-b.log" TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 LANG=C.UTF-8
n=0
for deb in "$tmp"/a/*.deb "$tmp"/a/*.ddeb; do
        [ -e "$deb" ] || continue
        name=$(basename "$deb")
        n=$((n + 1))
        if cmp -s "$deb" "$tmp/second/build/dir/$name"; then
                echo "ok:   $name is the same bytes from both builds ($(sha256sum <"$deb" | cut -c1-16))"
        else
                fail "$name differs between the two builds"
                # What differs, file by file (diffoscope says more where installed).
                for d in a b; do
                        deb_of=$tmp/a/$name
                        [ "$d" = a ] || deb_of=$tmp/second/build/dir/$name
                        mkdir -p "$tmp/x/$name/$d"
                        dpkg-deb -R "$deb_of" "$tmp/x/$name/$d"
                        dpkg-deb -c "$deb_of" >"$tmp/x/$name/$d.list"
                done
                diff "$tmp/x/$name/a.list" "$tmp/x/$name/b.list" | head -n 10 || true
                diff -r "$tmp/x/$name/a" "$tmp/x/$name/b" | head -n 10 || true
        fi
done
[ "$n" -gt 0 ] || fail "no .deb built"

# ---- 2. lintian --pedantic (an override shown with --show-overrides counts
# as a tag for --fail-on, so the verdict is a run without it)
changes=$(ls "$tmp"/a/*.changes)
lintian_rc=0
lintian --pedantic --display-info --display-experimental --fail-on error,warning,info,pedantic \
        "$changes" >"$tmp/lintian.log" 2>&1 || lintian_rc=$?
grep -v '^running with root privileges' "$tmp/lintian.log" | sed 's/^/    lintian: /' || true
overrides=$(grep -c '^readahead-agent: ' "$src/debian/readahead-agent.lintian-overrides" || true)
if [ "$lintian_rc" = 0 ]; then
        echo "ok:   lintian --pedantic: no tag but the $overrides overridden one(s), each with its reason in debian/readahead-agent.lintian-overrides"
else
        fail "lintian --pedantic reports tags (exit $lintian_rc)"
fi

# ---- 3. blhc, and hardening-check on what the package ships. PIE is gcc's
# default on Debian's amd64 (--enable-default-pie), so blhc does not expect
# -fPIE on the command lines there; hardening-check sees it in the binaries.
# (Not control-flow protection: Debian 12's dpkg has no "branch" hardening
# feature, -fcf-protection comes with dpkg 1.22 in Debian 13.)
blhc_rc=0
blhc --bindnow "$tmp/build-a.log" >"$tmp/blhc.log" 2>&1 || blhc_rc=$?
sed 's/^/    blhc: /' "$tmp/blhc.log"
if [ "$blhc_rc" = 0 ]; then
        echo "ok:   blhc --bindnow: every compile and link line has the hardening flags"
else
        fail "blhc --bindnow reports missing flags (exit $blhc_rc)"
fi
{
        mkdir -p "$tmp/installed"
        dpkg-deb -x "$(ls "$tmp"/a/readahead-agent_*.deb)" "$tmp/installed"
        for bin in "$tmp"/installed/usr/libexec/readahead-agent "$tmp"/installed/usr/bin/readahead-ctl; do
                if hardening-check --quiet --nocfprotection "$bin" >"$tmp/hc.log" 2>&1; then
                        echo "ok:   hardening-check ${bin#"$tmp"/installed}: PIE, stack protector, fortify, relro, bindnow"
                else
                        cat "$tmp/hc.log"
                        fail "hardening-check ${bin#"$tmp"/installed}"
                fi
        done
}

if [ -n "${RA_DEB_OUT:-}" ]; then
        cp "$tmp"/a/*.deb "$tmp"/build-a.log "$RA_DEB_OUT"/
fi
[ "$fails" -eq 0 ]
