#!/bin/bash
# SPDX-License-Identifier: MIT
#
# deploy/image-root.sh ROOT OUT: the container image's root, OUT, from a
# Debian root ROOT where the readahead-agent package is unpacked or
# installed: /usr/libexec/readahead-agent, /usr/bin/readahead-ctl, the
# vendor configuration in /usr/lib/readahead-agent, the shared libraries the
# two programs load (and libsystemd.so.0, which the agent dlopen()s for the
# journal) as ROOT's own loader resolves them, that loader, and the mount
# points. Nothing else: no udev, no shell, no package manager.
# deploy/build-image.sh and deploy/Containerfile both use it.
set -euo pipefail
root=$(realpath "$1") out=$(realpath -m "$2")
[ "$root" != / ] || root=""
die() { echo "image-root.sh: $*" >&2; exit 1; }
loader=$(ls "$root"/lib64/ld-linux-*.so.* "$root"/lib/ld-linux-*.so.* 2>/dev/null | head -n 1) ||
        true
[ -n "$loader" ] || die "no dynamic loader in $root"
libdirs=$(ls -d "$root"/lib/*-linux-gnu* "$root"/usr/lib/*-linux-gnu* 2>/dev/null | tr '\n' ':')
mkdir -p "$out"

# keep PATH: PATH (relative to ROOT), what it points to, and the links on
# the way, as they are.
keep() {
        local p=$1 target
        while :; do
                [ -e "$out/$p" ] || [ -L "$out/$p" ] || (cd "${root:-/}" && cp -a --parents "./$p" "$out/")
                [ -L "$root/$p" ] || break
                target=$(readlink "$root/$p")
                case $target in /*) p=${target#/} ;; *) p=$(dirname "$p")/$target ;; esac
        done
}
# Directories of ROOT that are links (merged /usr: /lib -> usr/lib), as
# links: what they point to gets only the files kept below.
for d in lib lib64 bin sbin; do
        [ -L "$root/$d" ] || continue
        (cd "${root:-/}" && cp -a --parents "./$d" "$out/")
        target=$(readlink "$root/$d")
        mkdir -p "$out/${target#/}"
done

programs=(usr/libexec/readahead-agent usr/bin/readahead-ctl)
libsystemd=$(ls "$root"/usr/lib/*-linux-gnu*/libsystemd.so.0 "$root"/lib/*-linux-gnu*/libsystemd.so.0 2>/dev/null | head -n 1) ||
        true
[ -n "$libsystemd" ] || die "no libsystemd.so.0 in $root"
for f in "${programs[@]}" "${libsystemd#"$root"/}"; do
        [ -e "$root/$f" ] || die "no $f in $root"
        keep "$f"
        # The loader's own list, with ROOT's directories first; a library
        # found outside ROOT (the build machine's) is an error.
        while read -r lib; do
                case $lib in
                "$root"/*) keep "${lib#"$root"/}" ;;
                *) die "$f: $lib is not in $root" ;;
                esac
        done < <("$loader" --library-path "$libdirs" --list "$root/$f" |
                sed -n 's/^.* => \(\/[^ ]*\) (0x.*$/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*$/\1/p')
done
keep "${loader#"$root"/}"
(cd "${root:-/}" && cp -a --parents ./usr/lib/readahead-agent "$out/")
# The loader's cache, so that dlopen("libsystemd.so.0") finds it at once.
mkdir -p "$out/etc"
ldconfig -r "$out"
# Mount points: with readOnlyRootFilesystem nothing can create them later.
mkdir -p "$out"/proc "$out"/sys "$out"/dev "$out"/run/udev "$out"/run/readahead-agent "$out"/run/host "$out"/tmp \
        "$out"/etc/readahead-agent "$out"/var/lib/node-exporter/textfile
: >"$out"/run/host/mountinfo
