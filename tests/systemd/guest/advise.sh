#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The advise lab (issue 22), run in the booted guest by ra-lab.service
# (run.sh --lab advise): tests/real's advise cases that attribute evidence
# per cgroup, (g) advise-neighbour-thrash, (h) advise-neighbour-faults and
# (i) advise-shared-device, and in trixie advise-converge,
# advise-tune-converge (Tune=yes tunes three workloads apart) and
# advise-tune-switch (Tune=yes follows a switch, the controls left alone),
# on cgroup v2 under systemd,
# as ctest runs them on the host but for the HDD model's speed (below): the
# same scripts, with the environment ctest gives them (advise.env in the
# build dir, written by tests/systemd/CMakeLists.txt).
# The host's tree (/ra/src) and release build dir (/ra/share, run.sh
# --share) are bind-mounted at the host's paths, so that the paths in that
# environment hold here. Each case gets one more try after a failure, as on
# the host (ctest --repeat until-pass:2).
#
# The cgroups: systemd owns the tree. Each case runs in a transient scope
# with Delegate=yes (systemd then keeps io and memory enabled down to it),
# moves itself into a leaf of the scope and enables io and memory for the
# scope's children, where emulate.sh makes the test's cgroups
# (RA_EMU_CGROUP_PARENT). Made under the root instead, systemd would not
# know them, and the next time it realized the root slice it would write
# "-io" to the root's cgroup.subtree_control, dropping the io.max that
# emulates the HDD under a running case.
#
# udev: systemd-udevd.service's daemon. The cases get RA_UDEVD pointing at
# no program, so a case that did not find the running daemon fails instead
# of starting a second one; after each case the service's daemon is the
# same and every systemd-udevd process is in its cgroup.
set -euo pipefail
# shellcheck source=tests/systemd/guest/common.sh
. "$(dirname "$0")/common.sh"
LAB=systemd-advise-$RA_LAB_SUITE
LAB_STEP=advise

# The HDD model at 40% (advise-common.sh): under TCG the guest's CPU, not
# the model at 100%, limited one reader at 512K (40-59 MiB/s where the
# model gives 62.5; readers stalled on I/O 11-25%, under advise's 25% for
# a raise), and advise-converge's seq1 stopped at 512K, 0.61-0.68 of the
# best (README.md).
export RA_HDD_PERCENT=40
cases=(advise-neighbour-thrash advise-neighbour-faults advise-shared-device)
# Following advise to the end, and Tune=yes, on cgroup v2 under Debian 13's
# systemd: in the trixie guest only (CI's time is bounded: advise-converge
# took 130 s in bookworm's, where the cases above read the same cgroup v2
# files from 6.1).
if [ "$RA_LAB_SUITE" = trixie ]; then
        cases+=(advise-converge advise-tune-converge advise-tune-switch)
fi
# run.sh --hold MIN (bench/tune-hold -g): the hold alone, MIN minutes.
# ra-lab.service stops a lab after 20 minutes (image.sh): for this run its
# start timeout goes (a daemon-reload arms the running start's timer
# again from the unit's new value); run.sh's --timeout still bounds it.
if [ "${RA_LAB_HOLD:-0}" -gt 0 ]; then
        cases=(advise-tune-switch)
        export RA_TUNE_HOLD_SEC=$((RA_LAB_HOLD * 60))
        mkdir -p /run/systemd/system/ra-lab.service.d
        printf '[Service]\nTimeoutStartSec=infinity\n' >/run/systemd/system/ra-lab.service.d/hold.conf
        systemctl daemon-reload
        lab_expect_eq "ra-lab.service's start timeout" "$(systemctl show -P TimeoutStartUSec ra-lab.service)" infinity
fi

# cgroup v2 only: the cases must not run emulate.sh's v1 path here.
lab_expect_eq "file system on /sys/fs/cgroup" "$(stat -fc %T /sys/fs/cgroup)" cgroup2fs
lab_expect_eq "cgroup v1 hierarchies mounted" "$(awk '$3 == "cgroup"' /proc/mounts | wc -l)" 0
lab_expect_eq "this process's cgroups" "$(grep -vc '^0::/' /proc/self/cgroup || true)" 0
for c in io memory; do
        grep -qw "$c" /sys/fs/cgroup/cgroup.controllers || lab_fail "no $c controller in cgroup v2"
done

# The environment ctest gives tests/real's advise cases, KEY=VALUE lines.
env_file=/ra/share/tests/systemd/advise.env
[ -r "$env_file" ] || lab_fail "no $env_file: run.sh --share the release build dir"
while IFS= read -r line; do
        [[ $line =~ ^RA_[A-Z_]+=/ ]] || lab_fail "unexpected line in $env_file: $line"
        export "${line?}"
done <"$env_file"
mkdir -p "$RA_SOURCE_DIR" "$RA_BUILD_DIR"
mount --bind /ra/src "$RA_SOURCE_DIR"
mount --bind /ra/share "$RA_BUILD_DIR"
export RA_UDEVD=/nonexistent/systemd-udevd-of-the-test
lab_log "$(uname -r), systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'), tests from $RA_SOURCE_DIR, build $RA_BUILD_DIR"

udevd_pid=$(systemctl show -P MainPID systemd-udevd.service)
[ "$udevd_pid" -gt 0 ] || lab_fail "systemd-udevd.service does not run"
udevd_check() {
        local pid cg
        lab_expect_eq "systemd-udevd.service's daemon" "$(systemctl show -P MainPID systemd-udevd.service)" "$udevd_pid"
        for pid in $(pidof systemd-udevd); do
                cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup" 2>/dev/null) || continue # a worker that just exited
                case $cg in
                /system.slice/systemd-udevd.service | /system.slice/systemd-udevd.service/*) ;;
                *) lab_fail "a systemd-udevd (pid $pid) outside systemd-udevd.service, in $cg" ;;
                esac
        done
}

# run_case NAME ATTEMPT: tests/real/NAME.sh in a delegated scope; its status.
run_case() {
        # shellcheck disable=SC2016 # expanded by the shell in the scope
        systemd-run --quiet --scope --unit="ra-lab-$1-$2" -p Delegate=yes -- bash -c '
                scope=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)
                mkdir "$scope/test" && echo $$ >"$scope/test/cgroup.procs" &&
                        echo "+io +memory" >"$scope/cgroup.subtree_control" || exit 1
                RA_EMU_CGROUP_PARENT=$scope exec bash "$1"' ra-advise-case "$RA_SOURCE_DIR/tests/real/$1.sh"
}

failed=()
for c in "${cases[@]}"; do
        for attempt in 1 2; do
                lab_log "$c: attempt $attempt"
                start=$EPOCHREALTIME
                rc=0
                run_case "$c" "$attempt" 2>&1 || rc=$?
                lab_log "$c: attempt $attempt: exit $rc in $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
                udevd_check
                # A skip (77) is a failure here: the guest has all they need.
                [ "$rc" != 0 ] || break
        done
        [ "$rc" = 0 ] || failed+=("$c")
done
[ "${#failed[@]}" -eq 0 ] || lab_fail "failed twice: ${failed[*]}"
lab_log "all ${#cases[@]} cases passed"
