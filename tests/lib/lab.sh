# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Messages of the labs' host scripts (tests/vm, tests/systemd,
# tests/debian-root, tests/package/piuparts.sh), after `ra_lab_name NAME WHAT`:
#   log MSG    "# NAME: MSG" on stderr
#   die MSG    "FAIL: NAME: MSG", exit 1
#   skip MSG   "SKIP: NAME: MSG", exit 77: this machine cannot run it; when CI
#              is set a failure instead, since WHAT must run there
#   ra_lab_require WHY TOOL...  skip unless root (WHY: what for) with every
#              TOOL on PATH
#   ra_lab_boot BOOT CONSOLE  runs the function BOOT, which boots the guest
#              on fresh disks and sets status; once more when that boot
#              failed and the console log CONSOLE shows a kernel panic
# Sourcing it brings the labs' other helpers too: debian.sh (releases and
# their apt sources) and cache.sh (build-once images and roots).

# shellcheck source=tests/lib/debian.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian.sh"
# shellcheck source=tests/lib/cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/cache.sh"

RA_LAB_NAME=lab
RA_LAB_MUST="the lab"

ra_lab_name() {
        RA_LAB_NAME=$1
        RA_LAB_MUST=$2
}

log() { printf '# %s: %s\n' "$RA_LAB_NAME" "$*" >&2; }
die() {
        printf 'FAIL: %s: %s\n' "$RA_LAB_NAME" "$*" >&2
        exit 1
}
skip() {
        [ -z "${CI:-}" ] || die "$* (CI is set: $RA_LAB_MUST must run)"
        printf 'SKIP: %s: %s\n' "$RA_LAB_NAME" "$*" >&2
        exit 77
}

ra_lab_require() {
        local why=$1 t
        shift
        [ "$(id -u)" -eq 0 ] || skip "needs root ($why)"
        for t in "$@"; do
                command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps.sh --test)"
        done
}

# Debian's kernels under QEMU's TCG can panic in code the lab does not
# touch: once in 21 CI runs, in the page allocator with RIP one byte into a
# static key's 5-byte NOP (a jump-label patch seen half done). So the runners
# boot once more, from fresh disks, when a failed boot's console shows a
# panic; a panic the lab causes comes back on the second boot and fails it.
ra_lab_boot() {
        local boot=$1 console=$2
        "$boot"
        [ "${status:-1}" != 0 ] && tr -d '\r' <"$console" 2>/dev/null | grep -q 'Kernel panic - not syncing' ||
                return 0
        log "the guest's kernel panicked; kernel console (last 40 lines):"
        tr -d '\r' <"$console" | tail -n 40 >&2 || true
        log "booting once more, from fresh disks"
        "$boot"
}
