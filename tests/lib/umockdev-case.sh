# SPDX-License-Identifier: MIT
# Sourced by the run scripts of tests/umockdev, tests/netfs and tests/hostile:
# what each checks before it starts umockdev-run, and its private root.
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL.

# ra_umock_missing SUITE WHY: skip (exit 77), or fail when CI is set.
ra_umock_missing() {
        if [ -n "${CI:-}" ]; then
                echo "FAIL: $2, and CI is set: the $1 tests must run in CI" >&2
                exit 1
        fi
        echo "SKIP: $2" >&2
        exit 77
}

# ra_umock_require SUITE FILE...: the tools, the environment, the built
# programs, the test root and FILE... are there; ASAN_OPTIONS lets a
# sanitizer build run under umockdev-run.
ra_umock_require() {
        local suite=$1 v f
        shift
        command -v umockdev-run >/dev/null ||
                ra_umock_missing "$suite" "umockdev-run not found (install the umockdev package)"
        command -v python3 >/dev/null || ra_umock_missing "$suite" "python3 not found"
        for v in RA_TESTROOT RA_VENDOR_DIR RA_AGENT RA_CTL; do
                if [ -z "${!v:-}" ]; then
                        echo "ERROR: $v is not set (run through ctest, or export it)" >&2
                        exit 2
                fi
        done
        for f in "$@"; do
                [ -e "$f" ] || { echo "ERROR: $f does not exist" >&2; exit 2; }
        done
        [ -d "$RA_TESTROOT" ] || {
                echo "ERROR: test root $RA_TESTROOT does not exist (build the 'testroot' target)" >&2
                exit 2
        }
        # ASan must tolerate umockdev's preload library loading before it
        # (ratest.sanitizer_env does the same for the Python checks).
        case ${ASAN_OPTIONS:-} in
        *verify_asan_link_order*) ;;
        *) export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 ;;
        esac
}

# ra_umock_run TREE CMD...: CMD in the fake tree tests/umockdev/trees/TREE,
# with the tree's /proc/meminfo and, as /proc/self/mountinfo, the local
# mounts of tests/umockdev/host.mountinfo; its exit status is CMD's.
#
# In a root without /sys (tests/debian-root), umockdev 0.19 reports every
# uevent of the tree it cannot send ("ERROR: uevent_sender_send: No such
# device ..."): those lines are dropped from stderr, anything else is kept.
ra_umock_run() {
        local dir rc errexit=0
        dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../umockdev" && pwd)
        [[ $- == *e* ]] && errexit=1
        set +e
        {
                umockdev-run -d "$dir/trees/$1.umockdev" -- sh -c '
                        mkdir -p "$UMOCKDEV_DIR/proc/self"
                        cp "$1" "$UMOCKDEV_DIR/proc/meminfo"
                        cp "$2" "$UMOCKDEV_DIR/proc/self/mountinfo"
                        shift 2
                        exec "$@"
                ' sh "$dir/trees/$1.meminfo" "$dir/host.mountinfo" "${@:2}" 2>&1 >&3 3>&- |
                        grep -v '^ERROR: uevent_sender_send: No such device ' >&2
                rc=${PIPESTATUS[0]}
        } 3>&1
        [ "$errexit" = 0 ] || set -e
        return "$rc"
}

# ra_umock_probe TREE REL [WHAT]: umockdev-run loads TREE and shows REL below
# $UMOCKDEV_DIR. The preload library must work, or every check after would be
# meaningless: a testbed that cannot even start is a failure, not a skip.
ra_umock_probe() {
        local out
        if ! out=$(umockdev-run -d "$1" -- sh -c 'test -d "$UMOCKDEV_DIR/$1"' sh "$2" 2>&1); then
                echo "FAIL: umockdev-run cannot load ${3:-$1}: $out" >&2
                exit 1
        fi
}

# ra_umock_tmp NAME: a private directory $RA_UMOCK_TMP, removed at exit
# (kept with RA_KEEP_TMP set), holding $RA_UMOCK_TMP/root, a copy of the
# configuration root: nothing a case writes reaches another case.
ra_umock_tmp() {
        RA_UMOCK_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ra-$1.XXXXXX")
        trap ra_umock_cleanup EXIT
        cp -a "$RA_TESTROOT" "$RA_UMOCK_TMP/root"
}

ra_umock_cleanup() {
        if [ -n "${RA_KEEP_TMP:-}" ]; then
                echo "kept $RA_UMOCK_TMP"
        else
                rm -rf "$RA_UMOCK_TMP"
        fi
}
