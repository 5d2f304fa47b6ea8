# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Messages of the labs' host scripts (tests/vm, tests/systemd,
# tests/debian-root), after `ra_lab_name NAME WHAT`:
#   log MSG    "# NAME: MSG" on stderr
#   die MSG    "FAIL: NAME: MSG", exit 1
#   skip MSG   "SKIP: NAME: MSG", exit 77: this machine cannot run it; when CI
#              is set a failure instead, since WHAT must run there

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
