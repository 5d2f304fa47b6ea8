# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# ra_copy_source SRC DEST: a copy of the source tree SRC in DEST, without
# build directories: the files git tracks and the new ones it does not
# ignore (a change not committed yet is tested as it stands); without git,
# everything but build output. For building the package from a clean tree
# (tests/package, tests/systemd) and for another release's root
# (tests/debian-root).
ra_copy_source() {
        local src=$1 dest=$2
        mkdir -p "$dest"
        if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
                git -C "$src" ls-files -z --cached --others --exclude-standard |
                        (cd "$src" && while IFS= read -r -d '' f; do
                                [ -e "$f" ] || [ -L "$f" ] || continue # deleted, not committed yet
                                cp -a --parents "$f" "$dest/"
                        done)
        else
                tar -C "$src" --exclude='./build*' --exclude='./obj-*' --exclude=./.git \
                        --exclude=./debian/.debhelper --exclude=./debian/readahead-agent -cf - . |
                        tar -C "$dest" -xf -
        fi
}
