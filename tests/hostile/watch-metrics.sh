#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-metrics.sh CASE: readahead-agent --watch --metrics-file (and --reset)
# against what anyone who can write the metrics directory can plant there,
# and against a readahead-ctl that hangs. The agent runs in
# `umockdev-run -d tests/umockdev/trees/board-16m.umockdev` (one eMMC disk:
# no udevd, no real device), with --ctl naming the built readahead-ctl or a
# stub written here. Cases:
#
#   planted-links   symbolic links at the old "<file>.tmp" name and at the
#                   file itself, both to a victim: never followed, the victim
#                   keeps its bytes, the link stays, the refusal is logged
#   fifo            a FIFO at the file and at "<file>.tmp": the agent is not
#                   blocked (answers SIGTERM within a second), the FIFOs stay
#   hung-ctl        a readahead-ctl that ignores SIGTERM and never exits:
#                   stopped after the check period (SIGTERM, then SIGKILL),
#                   reaped, logged; the agent keeps checking and answers
#                   SIGTERM within a second meanwhile
#   event-while-hung  while that readahead-ctl hangs, a change event for a
#                   disk whose value drifted is served at once (the event
#                   sent to the agent's monitor by tests/lib/uevent.py)
#   child-signals   the readahead-ctl child of --watch and of --reset blocks
#                   and ignores no signal (/proc/self/status SigBlk, SigIgn)
#   hung-reset      --reset with a readahead-ctl that hangs: SIGTERM still
#                   ends the agent within a second
#   missing-dir     a metrics directory that does not exist: "cannot write
#                   metrics to PATH: No such file or directory"
#   dir-as-file     a directory given as the file: refused by name, and no
#                   temporary left behind, check after check
#   gauge           the built readahead-ctl's gauges, then the agent's
#                   readahead_metrics_last_success_timestamp_seconds (now),
#                   and no temporary left in the directory
#
# Needs from the environment (ctest sets them): RA_TESTROOT, RA_VENDOR_DIR,
# RA_AGENT, RA_CTL. Without umockdev-run the test is skipped (exit 77), or
# fails when CI is set.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"
case=${1:?usage: watch-metrics.sh CASE}

ra_umock_require watch-metrics
ra_umock_tmp "watch-metrics-$case"
tmp=$RA_UMOCK_TMP
tree=$here/../umockdev/trees/board-16m.umockdev
ra_umock_probe "$tree" sys/block/mmcblk0 "board-16m"
mkdir "$tmp/d"
metrics=$tmp/d/readahead.prom
log=$tmp/agent.log
failed=0

fail() {
        echo "FAIL: $*"
        failed=1
}
ok() {
        echo "ok: $*"
}

# A stub readahead-ctl: stub NAME BODY (a sh script body).
stub() {
        printf '#!/bin/sh\n%s\n' "$2" >"$tmp/$1"
        chmod +x "$tmp/$1"
        echo "$tmp/$1"
}

# wait_nonempty SECONDS FILE: FILE has bytes.
wait_nonempty() {
        local i
        for i in $(seq $(($1 * 20))); do
                [ -s "$2" ] && return 0
                sleep 0.05
        done
        return 1
}

# start_agent ARGS...: the agent in the testbed, in the background; its pid
# in $agent_pid (the agent's own, not umockdev-run's), its stderr in $log.
start_agent() {
        : >"$log"
        rm -f "$tmp/agent.pid"
        umockdev-run -d "$tree" -- sh -c 'echo "$UMOCKDEV_DIR" >"$1.dir"; echo $$ >"$1"; log=$2; shift 2; exec "$@" 2>>"$log"' \
                sh "$tmp/agent.pid" "$log" "$RA_AGENT" --root "$tmp/root" "$@" &
        umockdev_pid=$!
        wait_nonempty 5 "$tmp/agent.pid" || true
        agent_pid=$(cat "$tmp/agent.pid")
}

# wait_log SECONDS REGEX: the agent logged a line matching REGEX.
wait_log() {
        local i
        for i in $(seq $(($1 * 20))); do
                grep -Eq -- "$2" "$log" && return 0
                sleep 0.05
        done
        return 1
}

# stop_agent WHAT: SIGTERM, and the agent is gone within a second.
stop_agent() {
        local t0 i
        t0=$(date +%s%N)
        kill -TERM "$agent_pid"
        for i in $(seq 20); do
                kill -0 "$agent_pid" 2>/dev/null || break
                sleep 0.05
        done
        if kill -0 "$agent_pid" 2>/dev/null; then
                fail "$1: the agent still runs 1 s after SIGTERM"
                kill -KILL "$agent_pid" 2>/dev/null || true
        else
                ok "$1: the agent stopped $((($(date +%s%N) - t0) / 1000000)) ms after SIGTERM"
        fi
        wait "$umockdev_pid" 2>/dev/null || true
}

# signals_clean WHOSE FILE: FILE's SigBlk and SigIgn lines (the stub's
# /proc/self/status) name none of signals 1 to 31. (glibc's posix_spawn
# leaves its own two, 32 and 33, ignored.)
signals_clean() {
        local what hex
        for what in Blk:blocks Ign:ignores; do
                hex=$(sed -n "s/^Sig${what%%:*}:[[:space:]]*\([0-9a-f]*\)$/\1/p" "$2")
                if [ -n "$hex" ] && [ $((0x$hex & 0x7fffffff)) = 0 ]; then
                        ok "$1 readahead-ctl ${what#*:} no signal (Sig${what%%:*} $hex)"
                else
                        fail "$1 readahead-ctl ${what#*:} no signal: Sig${what%%:*} '$hex'"
                fi
        done
}

# wait_count SECONDS N REGEX: the agent logged N lines matching REGEX.
wait_count() {
        local i
        for i in $(seq $(($1 * 20))); do
                [ "$(grep -Ec -- "$3" "$log")" -ge "$2" ] && return 0
                sleep 0.05
        done
        return 1
}

no_temporaries() {
        local left
        # (Links and FIFOs planted by the case are not temporaries.)
        left=$(find "$tmp/d" -mindepth 1 -maxdepth 1 -type f ! -name readahead.prom -printf '%f ')
        if [ -n "$left" ]; then
                fail "no temporary left in the directory: $left"
        else
                ok "no temporary left in the directory"
        fi
}

case $case in
planted-links)
        echo "the victim's own bytes" >"$tmp/victim"
        echo "the other victim's bytes" >"$tmp/victim2"
        ln -s "$tmp/victim" "$metrics.tmp"
        ln -s "$tmp/victim2" "$metrics"
        start_agent --watch --check-sec 1 --metrics-file "$metrics" --ctl "$RA_CTL"
        wait_log 10 'watching:' || fail "the agent started: $(cat "$log")"
        wait_log 10 "cannot write metrics to $metrics: it is a symbolic link, not a regular file" &&
                ok "the link at the file is refused by name" ||
                fail "the link at the file is refused by name: $(cat "$log")"
        sleep 2.5 # two more checks
        stop_agent planted-links
        [ "$(cat "$tmp/victim")" = "the victim's own bytes" ] && ok "the victim of <file>.tmp is unchanged" ||
                fail "the victim of <file>.tmp is unchanged: now $(head -c 200 "$tmp/victim")"
        [ "$(cat "$tmp/victim2")" = "the other victim's bytes" ] && ok "the victim of the file's link is unchanged" ||
                fail "the victim of the file's link is unchanged: now $(head -c 200 "$tmp/victim2")"
        [ -L "$metrics" ] && [ -L "$metrics.tmp" ] && ok "both links are still links" ||
                fail "both links are still links"
        no_temporaries
        ;;
fifo)
        mkfifo "$metrics" "$metrics.tmp"
        start_agent --watch --check-sec 1 --metrics-file "$metrics" --ctl "$RA_CTL"
        wait_log 10 'watching:' || fail "the agent started: $(cat "$log")"
        wait_log 10 "cannot write metrics to $metrics: it is a FIFO, not a regular file" &&
                ok "the FIFO at the file is refused by name" ||
                fail "the FIFO at the file is refused by name: $(cat "$log")"
        sleep 1.5
        stop_agent fifo
        [ -p "$metrics" ] && [ -p "$metrics.tmp" ] && ok "both FIFOs are still FIFOs" || fail "both FIFOs are still FIFOs"
        no_temporaries
        ;;
hung-ctl)
        # Ignores SIGTERM (sh's trap '' is inherited by sleep): only SIGKILL ends it.
        ctl=$(stub hung-ctl "echo \$\$ >>'$tmp/ctl.pids'; trap '' TERM; while :; do sleep 0.1; done")
        start_agent --watch --check-sec 2 --metrics-file "$metrics" --ctl "$ctl"
        wait_log 10 'watching:' || fail "the agent started: $(cat "$log")"
        wait_log 10 "readahead-ctl status still running after 2 s: stopped, $metrics not updated" &&
                ok "the hung readahead-ctl is stopped after the check period, logged" ||
                fail "the hung readahead-ctl is stopped after the check period: $(cat "$log")"
        first=$(head -n 1 "$tmp/ctl.pids")
        sleep 1.5 # SIGKILL comes 1 s after SIGTERM
        if kill -0 "$first" 2>/dev/null; then
                fail "the first readahead-ctl ($first) was killed"
        else
                ok "the first readahead-ctl ($first) was killed and reaped"
        fi
        wait_count 10 2 'still running after' && ok "the agent keeps checking: another run, stopped too" ||
                fail "the agent keeps checking: $(cat "$log")"
        stop_agent hung-ctl
        sleep 0.2
        for p in $(cat "$tmp/ctl.pids"); do
                kill -0 "$p" 2>/dev/null && { fail "readahead-ctl $p outlives the agent"; kill -KILL "$p"; }
        done
        [ ! -e "$metrics" ] && ok "no metrics file written" || fail "no metrics file written"
        no_temporaries
        ;;
event-while-hung)
        ctl=$(stub hung-ctl "echo \$\$ >>'$tmp/ctl.pids'; trap '' TERM; while :; do sleep 0.1; done")
        start_agent --watch --check-sec 30 --metrics-file "$metrics" --ctl "$ctl"
        wait_log 10 'watching:' || fail "the agent starts while readahead-ctl hangs: $(cat "$log")"
        wait_nonempty 5 "$tmp/ctl.pids" || fail "readahead-ctl runs"
        ctl_pid=$(head -n 1 "$tmp/ctl.pids")
        udir=$(cat "$tmp/agent.pid.dir")
        disk=$(find "$udir/sys/devices" -type d -path '*/block/mmcblk0' -print -quit)
        IFS=: read -r major minor <"$disk/dev"
        # Drift behind the agent's back, on the queue and on the bdi it writes through.
        for f in "$disk/queue/read_ahead_kb" "$udir/sys/devices/virtual/bdi/$major:$minor/read_ahead_kb"; do
                [ ! -e "$f" ] || echo 4096 >"$f"
        done
        UMOCKDEV_DIR=$udir python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import uevent
sys.exit(0 if uevent.send([("ACTION", "change"), ("DEVPATH", sys.argv[2]), ("SUBSYSTEM", "block"),
                           ("SEQNUM", "7"), ("DEVNAME", "/dev/mmcblk0"), ("DEVTYPE", "disk"),
                           ("MAJOR", sys.argv[3]), ("MINOR", sys.argv[4])]) >= 1 else 1)
' "$here/../lib" "${disk#"$udir/sys"}" "$major" "$minor" || fail "the change event reaches the agent's monitor"
        t0=$(date +%s%N)
        if wait_log 2 'mmcblk0: read_ahead_kb 4096 -> 64'; then
                ok "a change event is served while readahead-ctl hangs ($((($(date +%s%N) - t0) / 1000000)) ms)"
        else
                fail "a change event is served while readahead-ctl hangs: $(cat "$log")"
        fi
        [ "$(cut -d' ' -f3 "/proc/$ctl_pid/stat" 2>/dev/null)" = S ] && ok "readahead-ctl was still running then" ||
                fail "readahead-ctl was still running then"
        stop_agent event-while-hung
        ;;
child-signals)
        ctl=$(stub sig-ctl "grep -E '^Sig(Blk|Ign):' /proc/self/status | tee -a '$tmp/sigs'")
        start_agent --watch --check-sec 60 --metrics-file "$metrics" --ctl "$ctl"
        wait_log 10 'watching:' || fail "the agent started: $(cat "$log")"
        wait_nonempty 5 "$metrics" || true
        stop_agent child-signals
        signals_clean "--watch's" "$metrics"
        start_agent --reset --ctl "$ctl"
        wait_log 10 'readahead-ctl reset done' || fail "reset done: $(cat "$log")"
        stop_agent child-signals-reset
        sed -n 3,4p "$tmp/sigs" >"$tmp/reset-sigs"
        signals_clean "--reset's" "$tmp/reset-sigs"
        ;;
hung-reset)
        ctl=$(stub hung-ctl "echo \$\$ >>'$tmp/ctl.pids'; while :; do sleep 0.1; done")
        start_agent --reset --ctl "$ctl"
        wait_nonempty 5 "$tmp/ctl.pids" || true
        stop_agent hung-reset
        wait_log 1 'stopping, readahead-ctl reset not finished' && ok "the unfinished reset is logged" ||
                fail "the unfinished reset is logged: $(cat "$log")"
        sleep 0.2
        p=$(cat "$tmp/ctl.pids")
        kill -0 "$p" 2>/dev/null && { fail "readahead-ctl reset $p outlives the agent"; kill -KILL "$p"; } ||
                ok "readahead-ctl reset does not outlive the agent"
        ;;
missing-dir)
        start_agent --watch --check-sec 60 --metrics-file "$tmp/nodir/readahead.prom" --ctl "$RA_CTL"
        wait_log 10 'watching:' || fail "the agent started: $(cat "$log")"
        stop_agent missing-dir
        grep -qF "cannot write metrics to $tmp/nodir/readahead.prom: No such file or directory" "$log" &&
                ok "a missing directory is named as such" || fail "a missing directory is named as such: $(cat "$log")"
        ;;
dir-as-file)
        mkdir "$metrics"
        start_agent --watch --check-sec 1 --metrics-file "$metrics" --ctl "$RA_CTL"
        wait_log 10 'watching:' || fail "the agent started: $(cat "$log")"
        sleep 2.5
        stop_agent dir-as-file
        grep -qF "cannot write metrics to $metrics: it is a directory, not a regular file" "$log" &&
                ok "a directory as the file is refused by name" ||
                fail "a directory as the file is refused by name: $(cat "$log")"
        [ -d "$metrics" ] && [ -z "$(ls -A "$metrics")" ] && ok "the directory is left alone" ||
                fail "the directory is left alone"
        no_temporaries
        ;;
gauge)
        t0=$(date +%s)
        start_agent --watch --check-sec 60 --metrics-file "$metrics" --ctl "$RA_CTL"
        wait_log 10 'watching:' || fail "the agent started: $(cat "$log")"
        wait_nonempty 5 "$metrics" || true
        stop_agent gauge
        t1=$(date +%s)
        grep -q '^readahead_current_bytes{device="mmcblk0",kind="block",class="ssd"} ' "$metrics" &&
                ok "readahead-ctl's gauges are there" || fail "readahead-ctl's gauges are there: $(cat "$metrics")"
        g=readahead_metrics_last_success_timestamp_seconds
        grep -qx "# TYPE $g gauge" "$metrics" && ok "$g is typed" || fail "$g is typed"
        v=$(sed -n "s/^$g \([0-9]*\)$/\1/p" "$metrics")
        [ -n "$v" ] && [ "$v" -ge "$t0" ] && [ "$v" -le "$t1" ] && ok "$g is the write's time ($v)" ||
                fail "$g is the write's time: '$v' not in $t0..$t1"
        [ "$(tail -n 1 "$metrics")" = "$g $v" ] && ok "$g comes last, after readahead-ctl's output" ||
                fail "$g comes last"
        [ "$(stat -c %a "$metrics")" = 644 ] && ok "the file is readable by node_exporter (0644)" ||
                fail "the file is 0644: $(stat -c %a "$metrics")"
        no_temporaries
        ;;
*)
        echo "unknown case $case" >&2
        exit 2
        ;;
esac
# A stub an agent failed to stop must not outlive the test.
[ ! -s "$tmp/ctl.pids" ] || kill -KILL $(cat "$tmp/ctl.pids") 2>/dev/null || true
echo "--- agent log"
cat "$log"
exit $failed
