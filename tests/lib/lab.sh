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
