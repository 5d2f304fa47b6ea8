#!/bin/bash
# SPDX-License-Identifier: MIT
#
# enter.sh SUITE SCRIPT: runs the bash SCRIPT (a string) as root inside the
# cached Debian SUITE root (root.sh), in /build/readahead-agent, a copy of
# this source tree. The root is seen through an overlay that is thrown away
# afterwards, so a build, `cmake --install` or setup.sh inside it never
# changes the cache. With RA_ROOT_OUT=DIR, DIR is bound at /out (results
# such as a .deb come back there).
#
# The root gets its own /proc, /tmp and /run, and the host's /dev; no /sys:
# nothing run there may see, let alone set, this machine's devices (the
# tests that need a kernel run in the systemd lab's guest of that release).
#
# Exit status: the script's; 77 or 1 as root.sh when no root can be had.
set -euo pipefail

suite=${1:?usage: enter.sh SUITE SCRIPT}
script=${2:?usage: enter.sh SUITE SCRIPT}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/source.sh
. "$src/tests/lib/source.sh"

rc=0
root=$("$here/root.sh" "$suite") || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-debian-root-$suite.XXXXXX")
merged=$tmp/merged
cleanup() {
        local rc=$?
        umount -R "$merged" 2>/dev/null || umount -R -l "$merged" 2>/dev/null || true
        rm -rf "$tmp"
        exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$tmp/upper" "$tmp/work" "$merged"
mount -t overlay overlay -o "lowerdir=$root,upperdir=$tmp/upper,workdir=$tmp/work" "$merged"
mount -t proc proc "$merged/proc"
mount --bind /dev "$merged/dev"
mount --bind /dev/pts "$merged/dev/pts"
mount -t tmpfs tmpfs "$merged/tmp"
mount -t tmpfs tmpfs "$merged/run"
if [ -n "${RA_ROOT_OUT:-}" ]; then
        mkdir -p "$merged/out"
        mount --bind "$RA_ROOT_OUT" "$merged/out"
fi
ra_copy_source "$src" "$merged/build/readahead-agent"

chroot "$merged" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 CI="${CI:-}" TERM=dumb \
        /bin/bash -euo pipefail -c "cd /build/readahead-agent && $script"
