# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared by the calibrate-* tests: an emulated device (tests/real/emulate.sh)
# that readahead-ctl calibrate measures from inside its throttling cgroup.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/emulate.sh"

# ra_calibrate_init: ra_init, plus what throttling needs.
ra_calibrate_init() {
        ra_init
        ra_throttle_init
}

# ra_throttle_init: what throttling needs (a script that called ra_init
# itself), and its cgroups removed at exit.
ra_throttle_init() {
        ra_emu_have_throttle ||
                ra_skip "no block throttling (cgroup v1 blkio.throttle.* or cgroup v2 io.max)"
        command -v python3 >/dev/null || ra_skip "python3 is not installed"
        RA_CLEANUP_HOOKS+=("ra_emu_cgroup_remove")
}

# ra_emulated_device IOPS BPS VAR: a 64 GiB sparse direct-I/O loop device
# (its small-device cap, 2M, stays above every knee tested) whose reads from
# inside the cgroup cost min(IOPS x request, BPS); sets VAR to its name.
ra_emulated_device() {
        local iops=$1 bps=$2 var=$3 name
        ra_attach 64G name --direct-io=on
        [ "$(cat "/sys/block/$name/loop/dio" 2>/dev/null)" = 1 ] ||
                ra_skip "the loop driver did not turn on direct I/O for $name"
        ra_emu_cgroup "ra-test-$RA_TEST_NAME-$$" -t "$(cat "/sys/block/$name/dev")" "$iops" "$bps" ||
                ra_fail "could not create a throttling cgroup"
        ra_log "$name: $iops IOPS, $bps bytes/s for readers in ${RA_EMU_DIRS[*]}"
        printf -v "$var" '%s' "$name"
}

# ra_json FILE EXPR: evaluates a Python expression on the JSON in FILE (as j).
ra_json() {
        python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
