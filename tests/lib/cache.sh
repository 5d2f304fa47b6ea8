# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Build-once caches of the labs' images and roots (tests/vm, tests/systemd,
# tests/debian-root). An entry is a directory CACHE/NAME, NAME a hash of
# what it was built from; it holds .ra-complete once it is whole. Builders
# hold CACHE/.lock, so that two test runs never build the same entry.
#
#   ra_cache_find CACHE NAME     prints CACHE/NAME and returns 0 when that
#                                entry is complete (and marks it used)
#   ra_cache_lock CACHE          takes CACHE/.lock on fd 8, waiting up to
#                                30 minutes for another build; 1 if it could not
#   ra_cache_build CACHE NAME    for a builder script: when the entry is
#                                complete (now, or once the build that held
#                                the lock is done) prints it and exits 0;
#                                else holds the lock, and sets `work` (a new
#                                directory in CACHE, removed at exit) and
#                                `start` (the time, for the builder's log)
#   ra_cache_publish DIR CACHE NAME   DIR becomes the complete entry
#                                CACHE/NAME (printed); entries nobody used for a
#                                week are removed

ra_cache_find() {
        [ -e "$1/$2/.ra-complete" ] || return 1
        touch "$1/$2"
        echo "$1/$2"
}

ra_cache_lock() {
        mkdir -p "$1"
        exec 8>"$1/.lock"
        flock -w 1800 8
}

ra_cache_build() {
        ra_cache_find "$1" "$2" && exit 0
        ra_cache_lock "$1" || die "another build holds $1/.lock"
        ra_cache_find "$1" "$2" && exit 0 # built while we waited
        start=$(date +%s)
        work=$(mktemp -d "$1/.build-$2.XXXXXX")
        trap 'rm -rf "$work"' EXIT
}

ra_cache_publish() {
        local dir=$1 cache=$2 name=$3
        touch "$dir/.ra-complete"
        rm -rf "${cache:?}/$name"
        mv "$dir" "$cache/$name"
        find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -mtime +7 -exec rm -rf {} + 2>/dev/null || true
        echo "$cache/$name"
}
