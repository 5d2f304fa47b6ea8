#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/watch.sh: what readahead-agent --watch (the DaemonSet's long-running
# mode) costs, against the issue's budget (0.1% of one CPU and 8 MiB RSS
# idle; a change storm as fast as the udev helper's):
#  1. idle: the agent watching this machine's disks, nothing happening, for
#     IDLE seconds (default 60) with its default check every 60 s: CPU time
#     from /proc/PID/stat over the window, RSS (VmRSS, and VmHWM: the peak).
#  2. change storm: N sparse loop devices (default 1000) set to 128 KiB
#     behind its back (sysfs writes send no event), then bench.sh's storm,
#     `udevadm trigger --action=change` on all of them; timed until every
#     one holds the profile's value again, R times (median).
# No udev rule of the product is installed while it runs: only the watcher
# sets values. The loop devices it created are removed at exit. Prints a
# markdown table on stdout.
#
#   sudo bench/watch.sh [-B BUILD_DIR] [-n N] [-r R] [-i IDLE_SECONDS]   (-n 0: idle only)
set -euo pipefail

SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/real/lib.sh
. "$SRC_DIR/tests/real/lib.sh"
RA_TEST_NAME=bench-watch
BUILD_DIR=$SRC_DIR/build N=1000 R=3 IDLE=60
while getopts "B:n:r:i:h" opt; do
        case $opt in
        B) BUILD_DIR=$(realpath "$OPTARG") ;;
        n) N=$OPTARG ;;
        r) R=$OPTARG ;;
        i) IDLE=$OPTARG ;;
        *) sed -n '3,18s/^# \{0,1\}//p' "$0"; exit 2 ;;
        esac
done
AGENT=$BUILD_DIR/readahead-agent
[ -x "$AGENT" ] || ra_fail "no agent at $AGENT (cmake --build $BUILD_DIR)"
[ -d "$BUILD_DIR/testroot" ] || ra_fail "no $BUILD_DIR/testroot (cmake --build $BUILD_DIR)"
[ "$(id -u)" -eq 0 ] || ra_fail "needs root (loop devices, udevd)"

W=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-bench-watch.XXXXXX")
LOOPS=()
WATCH_PID=""
CREATED=() # loop indices that did not exist before: removed again (bench/loopctl.c)
cleanup() {
        set +e
        [ -z "$WATCH_PID" ] || { kill -TERM "$WATCH_PID"; wait "$WATCH_PID"; }
        for l in "${LOOPS[@]}"; do losetup -d "$l"; done
        [ "${#LOOPS[@]}" -eq 0 ] || udevadm settle --timeout=120
        if [ "${#CREATED[@]}" -gt 0 ]; then
                "$W/loopctl" remove "${CREATED[@]}" || { sleep 1; udevadm settle --timeout=120; "$W/loopctl" remove "${CREATED[@]}"; }
                udevadm settle --timeout=120
        fi
        rm -rf "$W"
        ra_udevd_stop
}
ra_traps cleanup
# The vendor profiles as the build lays them out (the build tree's agent
# looks for them below its prefix otherwise).
mkdir -p "$W/root"
cp -a "$BUILD_DIR/testroot/." "$W/root/"
ra_lock 900 || ra_fail "another test or bench run holds $RA_LOCK"
ra_require_loop
ra_udevd_start || ra_fail "$RA_UDEVD_ERROR"
# The product's rule name, masked in /run: an installed agent must not act.
[ ! -e /run/udev/rules.d/99-readahead-agent.rules ] ||
        ra_fail "/run/udev/rules.d/99-readahead-agent.rules exists: a test is running"

start_watch() {
        "$AGENT" --watch --root "$W/root" "$@" 2>"$W/watch.log" &
        WATCH_PID=$!
        ra_wait_output "$W/watch.log" "readahead-agent: version .* watching:" "$WATCH_PID" 600 ||
                { cat "$W/watch.log" >&2; ra_fail "the watcher did not start"; }
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# ------------------------------------------------------------------ idle --
start_watch
t0=$(cpu_ticks "$WATCH_PID")
sleep "$IDLE"
t1=$(cpu_ticks "$WATCH_PID")
hz=$(getconf CLK_TCK)
idle_pct=$(awk -v t=$((t1 - t0)) -v hz="$hz" -v s="$IDLE" 'BEGIN { printf "%.3f", 100 * t / hz / s }')
rss=$(status_kb "$WATCH_PID" VmRSS)
hwm=$(status_kb "$WATCH_PID" VmHWM)
ra_log "idle ${IDLE} s: $((t1 - t0)) ticks = ${idle_pct}% of one CPU, VmRSS $rss KiB, VmHWM $hwm KiB"

# ---------------------------------------------------------- change storm --
if [ "$N" -eq 0 ]; then
        echo "| idle CPU over ${IDLE} s (check every 60 s), $(ls /sys/block | wc -l) block devices | ${idle_pct}% of one CPU |"
        echo "| idle RSS (VmRSS / peak VmHWM) | $rss KiB / $hwm KiB |"
        exit 0
fi
cc -O2 -o "$W/loopctl" "$SRC_DIR/bench/loopctl.c" || ra_fail "cannot build bench/loopctl.c"
declare -A existed
for d in /sys/block/loop*; do [ -e "$d" ] && existed[${d##*/loop}]=1; done
for ((i = 0; i < N; i++)); do
        truncate -s 20G "$W/$i.img"
        l=$(losetup -f --show "$W/$i.img") || ra_fail "losetup failed after $i devices"
        LOOPS+=("$l")
        [ -n "${existed[${l#/dev/loop}]:-}" ] || CREATED+=("${l#/dev/loop}")
done
udevadm settle --timeout=600
names=("${LOOPS[@]#/dev/}")
want=$(cat "/sys/block/${names[0]}/queue/read_ahead_kb")
[ "$want" != 128 ] || ra_fail "the watcher did not set ${names[0]}"
syspaths=()
for n in "${names[@]}"; do syspaths+=("/sys/devices/virtual/block/$n"); done
times=()
for ((r = 1; r <= R; r++)); do
        for n in "${names[@]}"; do echo 128 >"/sys/block/$n/queue/read_ahead_kb"; done
        t0=$(date +%s%N)
        udevadm trigger --action=change --subsystem-match=block --sysname-match='loop*' "${syspaths[@]}"
        udevadm settle --timeout=300
        t_settle=$(date +%s%N)
        for ((i = N - 1; i >= 0; i--)); do
                # read, not cat: a fork per device would be timed too.
                while read -r v <"/sys/block/${names[i]}/queue/read_ahead_kb" && [ "$v" != "$want" ]; do
                        (($(date +%s%N) - t0 < 60000000000)) || { tail -n 5 "$W/watch.log" >&2; ra_fail "${names[i]} not set after 60 s"; }
                        sleep 0.01
                done
        done
        t1=$(date +%s%N)
        times+=($(((t1 - t0) / 1000000)))
        ra_log "storm $r/$R: all $N at $want KiB after $(((t1 - t0) / 1000000)) ms (udev settled at $(((t_settle - t0) / 1000000)) ms)"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
storm_hwm=$(status_kb "$WATCH_PID" VmHWM)
cat <<EOF
#### readahead-agent --watch: $(uname -r), $(nproc) CPUs, udev $(udevadm --version)

| measure | value |
|---|---|
| idle CPU over ${IDLE} s (check every 60 s) | ${idle_pct}% of one CPU |
| idle RSS (VmRSS / peak VmHWM) | $((rss / 1024)).$(((rss % 1024) * 10 / 1024)) MiB / $((hwm / 1024)).$(((hwm % 1024) * 10 / 1024)) MiB |
| change storm, $N loop devices, trigger to all set (median of $R) | $median ms |
| peak RSS after the storms | $((storm_hwm / 1024)).$(((storm_hwm % 1024) * 10 / 1024)) MiB |
EOF
