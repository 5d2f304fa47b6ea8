#!/bin/bash
# SPDX-License-Identifier: MIT
#
# deploy/build-image.sh [--suite SUITE] [--deb FILE] [--tag NAME] [--out FILE.tar]
#
# The container image of deploy/kubernetes, built offline from Debian's
# packages and the project's own .deb, in one command (root):
#   1. the .deb, built from this tree for SUITE (tests/lib/build-deb.sh), or
#      --deb FILE;
#   2. a root from mmdebstrap holding only what that package depends on
#      (the extract variant: unpacked, no maintainer scripts run, so nothing
#      touches this machine's disks), the package unpacked over it; of that,
#      deploy/image-root.sh keeps the programs, the vendor configuration and
#      the libraries they load;
#   3. `podman import` of it with PATH (import sets none), the entrypoint and
#      the version, tagged readahead-agent:VERSION and readahead-agent:latest.
# SUITE defaults to this machine's Debian release (bookworm on CI).
# Prints the tag. deploy/Containerfile builds the same layout from a registry.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/debian.sh
. "$src/tests/lib/debian.sh"

suite="" deb="" tag="" out=""
while [ $# -gt 0 ]; do
        case $1 in
        --suite) suite=$2; shift 2 ;;
        --deb) deb=$(realpath "$2"); shift 2 ;;
        --tag) tag=$2; shift 2 ;;
        --out) out=$(realpath -m "$2"); shift 2 ;;
        -h | --help) sed -n '4,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "build-image.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
        esac
done
die() { echo "build-image.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap --mode=root, podman)"
for t in mmdebstrap podman dpkg-deb; do
        command -v "$t" >/dev/null || die "$t is not installed (scripts/install-deps.sh --test)"
done
suite=${suite:-$(ra_debian_base_suite)}
[ -n "$suite" ] || die "no Debian release in apt's lists (run apt-get update)"
mapfile -t sources < <(ra_debian_sources "$suite")
[ "${#sources[@]}" -gt 0 ] || die "no Debian source for $suite in apt's lists"

work=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$deb" ]; then
        "$src/tests/lib/build-deb.sh" "$suite" "$work" >"$work/build-deb.log" 2>&1 ||
                { tail -n 30 "$work/build-deb.log" >&2; die "building the .deb for $suite failed"; }
        deb=$(ls "$work"/readahead-agent_*.deb)
fi
version=$(dpkg-deb -f "$deb" Version)
upstream=${version%%-*}
tag=${tag:-readahead-agent:$upstream}

# Reproducible: file times from the package's changelog date.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$src/debian/changelog" -S Timestamp)}
# The package's dependencies come from the archive; the package itself is
# unpacked over them (the extract variant installs nothing either way).
depends=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/|[^,]*//g; s/[[:space:]]//g')
mmdebstrap --mode=root --variant=extract --include="$depends" \
        "$suite" "$work/root" "${sources[@]}" >"$work/mmdebstrap.log" 2>&1 ||
        { tail -n 30 "$work/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
dpkg-deb -x "$deb" "$work/root"
# The image: the two programs, the vendor configuration and the libraries
# they load (the journal's libsystemd.so.0 is dlopen()ed), as the root's
# own loader resolves them, and nothing else: no udev (the host's udevd
# sends the events, libudev reads them), no shell, no package manager.
"$src/deploy/image-root.sh" "$work/root" "$work/image"
tar -C "$work/image" --sort=name --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime -cf "$work/root.tar" .

podman import \
        --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENTRYPOINT ["/usr/libexec/readahead-agent","--watch"]' \
        --change "LABEL org.opencontainers.image.version=$upstream" \
        --change 'LABEL org.opencontainers.image.title=readahead-agent' \
        --change "LABEL org.opencontainers.image.description=readahead-agent-$version-debian-$suite" \
        "$work/root.tar" "$tag" >/dev/null
[ "${tag%:*}" = readahead-agent ] && podman tag "$tag" readahead-agent:latest
[ -z "$out" ] || podman save --format oci-archive -o "$out" "$tag" >/dev/null
echo "$tag"
