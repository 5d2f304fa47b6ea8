#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/watch.sh: what readahead-agent --watch (the DaemonSet's long-running
# mode) costs, against the issue's budget (0.1% of one CPU and 8 MiB RSS
# idle; a change storm as fast as the udev helper's):
#  1. idle: the agent watching this machine's disks, nothing happening, for
#     IDLE seconds (default 60) with its default check every 60 s: CPU time
#     from /proc/PID/stat over the window, RSS (VmRSS, and VmHWM: the peak).
#  2. observing: the agent restarted with --advise-sec=A (default 10; -a 0
#     skips it) and a drop-in rule Tune=yes for one loop device: CPU and RSS
#     over IDLE seconds with nothing reading, then over IDLE seconds with one
#     sequential reader (dd, 64 KiB) on that device; the budget is 0.1% of
#     one CPU idle, 1% while observing, 8 MiB.
#  3. change storm: N sparse loop devices (default 1000) set to 128 KiB
#     behind its back (sysfs writes send no event), then bench.sh's storm,
#     `udevadm trigger --action=change` on all of them; timed until every
#     one holds the profile's value again, R times (median).
# No udev rule of the product is installed while it runs: only the watcher
# sets values. The loop devices it created are removed at exit. Prints a
# markdown table on stdout.
#
#   sudo bench/watch.sh [-B BUILD_DIR] [-n N] [-r R] [-i IDLE_SECONDS] [-a ADVISE_SEC]   (-n 0: no storm)
set -euo pipefail

SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/real/lib.sh
. "$SRC_DIR/tests/real/lib.sh"
RA_TEST_NAME=bench-watch
BUILD_DIR=$SRC_DIR/build N=1000 R=3 IDLE=60 A=10
while getopts "B:n:r:i:a:h" opt; do
        case $opt in
        B) BUILD_DIR=$(realpath "$OPTARG") ;;
        n) N=$OPTARG ;;
        r) R=$OPTARG ;;
        i) IDLE=$OPTARG ;;
        a) A=$OPTARG ;;
        *) sed -n '3,23s/^# \{0,1\}//p' "$0"; exit 2 ;;
        esac
done
AGENT=$BUILD_DIR/readahead-agent
[ -x "$AGENT" ] || ra_fail "no agent at $AGENT (cmake --build $BUILD_DIR)"
[ -d "$BUILD_DIR/testroot" ] || ra_fail "no $BUILD_DIR/testroot (cmake --build $BUILD_DIR)"
[ "$(id -u)" -eq 0 ] || ra_fail "needs root (loop devices, udevd)"

W=$(mktemp -d "${TMPDIR:-/var/tmp}/ra-bench-watch.XXXXXX")
LOOPS=()
WATCH_PID=""
READER_PID=""
CREATED=() # loop indices that did not exist before: removed again (bench/loopctl.c)
cleanup() {
        set +e
        [ -z "$READER_PID" ] || { kill "$READER_PID"; wait "$READER_PID"; } 2>/dev/null
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
        "$AGENT" --watch --root "$W/root" "$@" 2>>"$W/watch.log" &
        WATCH_PID=$!
        ra_wait_output "$W/watch.log" "readahead-agent: version .* watching:" "$WATCH_PID" 600 ||
                { cat "$W/watch.log" >&2; ra_fail "the watcher did not start"; }
}
stop_watch() {
        kill -TERM "$WATCH_PID"
        wait "$WATCH_PID" || ra_fail "the watcher exited $? on SIGTERM"
        WATCH_PID=""
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
mib() { echo "$(($1 / 1024)).$((($1 % 1024) * 10 / 1024))"; }
hz=$(getconf CLK_TCK)
# cpu_pct_over SECONDS: the watcher's CPU share of one CPU over that many seconds
cpu_pct_over() {
        local t0 t1
        t0=$(cpu_ticks "$WATCH_PID")
        sleep "$1"
        t1=$(cpu_ticks "$WATCH_PID")
        awk -v t=$((t1 - t0)) -v hz="$hz" -v s="$1" 'BEGIN { printf "%.3f", 100 * t / hz / s }'
}
cc -O2 -o "$W/loopctl" "$SRC_DIR/bench/loopctl.c" || ra_fail "cannot build bench/loopctl.c"
declare -A existed
for d in /sys/block/loop*; do [ -e "$d" ] && existed[${d##*/loop}]=1; done
# attach_loop IMAGE: a loop device for IMAGE, in $loop; detached at exit
attach_loop() {
        loop=$(losetup -f --show "$1") || ra_fail "losetup $1 failed"
        LOOPS+=("$loop")
        [ -n "${existed[${loop#/dev/loop}]:-}" ] || CREATED+=("${loop#/dev/loop}")
}

# ------------------------------------------------------------------ idle --
rows=()
row() { rows+=("| $1 | $2 |"); }
start_watch
idle_pct=$(cpu_pct_over "$IDLE")
rss=$(status_kb "$WATCH_PID" VmRSS)
hwm=$(status_kb "$WATCH_PID" VmHWM)
ra_log "idle ${IDLE} s: ${idle_pct}% of one CPU, VmRSS $rss KiB, VmHWM $hwm KiB"
blocks=(/sys/block/*)
row "idle CPU over ${IDLE} s (check every 60 s), ${#blocks[@]} block devices" "${idle_pct}% of one CPU"
row "idle RSS (VmRSS / peak VmHWM)" "$(mib "$rss") MiB / $(mib "$hwm") MiB"

# ------------------------------------------------------------- observing --
if [ "$A" -gt 0 ]; then
        truncate -s 20G "$W/observed.img"
        attach_loop "$W/observed.img"
        observed=${loop#/dev/}
        dropin=$W/root/etc/readahead-agent/profiles/default.conf.d/bench-watch.conf
        mkdir -p "${dropin%/*}"
        printf '[Rule bench-observed]\nKind=block\nName=%s\nTune=yes\n' "$observed" >"$dropin"
        udevadm settle --timeout=60
        stop_watch
        start_watch --advise-sec="$A"
        sleep "$A" # the first window: the sampler's baseline
        obs_idle_pct=$(cpu_pct_over "$IDLE")
        ra_log "observing every $A s, nothing read, ${IDLE} s: ${obs_idle_pct}% of one CPU"
        # dd after dd (a 20G hole-backed device reads in seconds), stopped by timeout
        # shellcheck disable=SC2016 # $1 is the inner shell's
        timeout "$IDLE" sh -c 'while dd if="$1" of=/dev/null bs=64k 2>/dev/null; do :; done' reader "$loop" &
        READER_PID=$!
        obs_busy_pct=$(cpu_pct_over "$IDLE")
        wait "$READER_PID" || true
        READER_PID=""
        obs_rss=$(status_kb "$WATCH_PID" VmRSS)
        obs_hwm=$(status_kb "$WATCH_PID" VmHWM)
        windows=$(grep -c "^readahead-agent: $observed: \(advice\|tune\)" "$W/watch.log" || true)
        ra_log "observing every $A s, one reader on $observed, ${IDLE} s: ${obs_busy_pct}% of one CPU, $windows windows logged, now $(cat "/sys/block/$observed/queue/read_ahead_kb") KiB"
        [ "$windows" -gt 0 ] || { tail -n 20 "$W/watch.log" >&2; ra_fail "the watcher logged no advice for $observed"; }
        row "observing (--advise-sec=$A), nothing read, over ${IDLE} s" "${obs_idle_pct}% of one CPU"
        row "observing, one sequential reader on a Tune=yes device, over ${IDLE} s ($windows windows logged)" "${obs_busy_pct}% of one CPU"
        row "observing RSS (VmRSS / peak VmHWM)" "$(mib "$obs_rss") MiB / $(mib "$obs_hwm") MiB"
        stop_watch
        rm "$dropin"
        start_watch
fi

# ---------------------------------------------------------- change storm --
print_table() {
        echo "#### readahead-agent --watch: $(uname -r), $(nproc) CPUs, udev $(udevadm --version)"
        echo
        echo "| measure | value |"
        echo "|---|---|"
        printf '%s\n' "${rows[@]}"
}
if [ "$N" -eq 0 ]; then
        print_table
        exit 0
fi
first=${#LOOPS[@]}
for ((i = 0; i < N; i++)); do
        truncate -s 20G "$W/$i.img"
        attach_loop "$W/$i.img"
done
udevadm settle --timeout=600
storm_loops=("${LOOPS[@]:first}")
names=("${storm_loops[@]#/dev/}")
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
row "change storm, $N loop devices, trigger to all set (median of $R)" "$median ms"
row "peak RSS after the storms" "$(mib "$storm_hwm") MiB"
print_table
