# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Sourced by every lab the systemd lab's guest runs (guest/LAB.sh, chosen by
# run.sh --lab): the settings from the kernel command line (ra_lab.suite=,
# ra_lab.suspend=, ra_lab.hold=, ra_lab.ci=), the log and check helpers (and wait_for), and
# the verdict.
# Output goes to the second serial port (the host's lab.log); the last line
# is "ra-lab status: N", then the guest powers off, unless the lab set
# finished=1 (it reboots instead). The lab sets LAB_STEP (e.g. "boot 2"),
# shown in every line.
cmdline_value() { tr ' ' '\n' </proc/cmdline | sed -n "s/^ra_lab\.$1=//p" | tail -n 1; }
RA_LAB_SUITE=$(cmdline_value suite)
# shellcheck disable=SC2034 # read by lab.sh
RA_LAB_SUSPEND=$(cmdline_value suspend)
# shellcheck disable=SC2034 # read by advise.sh
RA_LAB_HOLD=$(cmdline_value hold)
CI=$(cmdline_value ci)
export CI
LAB=systemd-$RA_LAB_SUITE
LAB_STEP=""

lab_log() {
        local up
        read -r up _ </proc/uptime
        printf '# %s %s %s: %s\n' "$LAB" "$LAB_STEP" "$up" "$*"
}
lab_fail() {
        printf 'FAIL: %s %s: %s\n' "$LAB" "$LAB_STEP" "$*"
        echo "--- journal of this boot (last 80 lines)"
        journalctl -b --no-pager -n 80 || true
        exit 1
}
lab_expect_eq() {
        [ "$2" = "$3" ] || lab_fail "$1: expected '$3', got '$2'"
        lab_log "ok: $1 = $3"
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds; 1 if it never did.
wait_for() {
        local i
        for ((i = 0; i < $1 * 10; i++)); do
                "${@:2}" && return 0
                sleep 0.1
        done
        return 1
}

# The verdict goes to the host; the guest powers off (or reboots: the lab
# sets finished=1 first).
finished=0
finish() {
        local rc=$?
        [ "$finished" = 1 ] && return
        sync
        echo "ra-lab status: $rc"
        systemctl poweroff --no-block
}
trap finish EXIT
# Stopped before the lab finished (ra-lab.service's TimeoutStartSec=20min,
# a shutdown): a failure, never the status of the last command that ran (a
# 30-minute hold cut at 20 minutes said 0). After the lab's own reboot: none.
trap '[ "$finished" = 1 ] && exit 0
lab_fail "terminated (SIGTERM): ra-lab.service was stopped, or its TimeoutStartSec passed"' TERM
# A command that fails without a check of its own still says where.
trap 'echo "FAIL: $LAB $LAB_STEP: line $LINENO: $BASH_COMMAND exited $?"' ERR
