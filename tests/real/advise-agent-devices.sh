#!/bin/bash
# SPDX-License-Identifier: MIT
# readahead-agent --watch --advise-sec: a window over the same devices goes
# on from the last one's facts, so what changes the devices must reach the
# next window. (1) A new device attached while the agent observes (a udev
# event) gets advice from a later window, with the periodic check an hour
# away. (2) A rotational disk made non-rotational (a sysfs write, no event)
# is judged as one from the periodic check on: random mmap faults at 256K
# keep on a rotating disk (its read-around floor) and lower to 64K on a
# solid one. --dry-run: observing only.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
log=$RA_TMP/agent.log

# ra_agent_observe CHECK_SEC: the agent, advising every 2 s.
ra_agent_observe() {
        "$RA_AGENT" --root "$ROOT" --watch --dry-run --advise-sec=2 --check-sec="$1" \
                --alive-file "$RA_TMP/alive" --ctl "$RA_CTL" 2>"$log" &
        agent=$!
        RA_BG_PIDS+=("$agent")
}
# ra_agent_wait_log SECONDS PATTERN: until the agent's log has a line
# matching PATTERN, or fails.
ra_agent_wait_log() {
        local i
        for ((i = 0; i < $1 * 10; i++)); do
                grep -q "$2" <(ra_agent_log "$log") && return 0
                kill -0 "$agent" 2>/dev/null || break
                sleep 0.1
        done
        ra_agent_log "$log" >&2
        ra_fail "no '$2' in the agent's log within $1 s"
}
# ra_new_hdd VAR PROCS: ra_hdd_group's device at a loop index this machine
# has not got (losetup creates it), so that the agent learns of it from its
# add event alone: a detached loop device is still a block device, in the
# facts of every window. Removed at the end (LOOP_CTL_REMOVE).
ra_new_hdd() {
        local n=0 file
        while [ -e "/sys/block/loop$n" ]; do n=$((n + 1)); done
        file=$(mktemp "$RA_TMP/backing-XXXXXX.img")
        truncate -s 64G "$file"
        RA_CLEANUP_HOOKS+=("ra_remove_loop $n")
        losetup --direct-io=on "/dev/loop$n" "$file" || ra_fail "losetup /dev/loop$n $file failed"
        udevadm settle --timeout=60
        [ "$(cat "/sys/block/loop$n/loop/dio" 2>/dev/null)" = 1 ] ||
                ra_skip "the loop driver did not turn on direct I/O for loop$n"
        ra_log "attached /dev/loop$n, a new loop device (64G sparse)"
        ra_cgroup_group new "$2" "loop$n"
        echo 1 >"/sys/block/loop$n/queue/rotational"
        printf -v "$1" '%s' "loop$n"
}
ra_remove_loop() {
        local i
        losetup -d "/dev/loop$1" 2>/dev/null
        udevadm settle --timeout=30 2>/dev/null
        for ((i = 0; i < 50; i++)); do
                python3 -c 'import fcntl, os, sys
fcntl.ioctl(os.open("/dev/loop-control", os.O_RDWR), 0x4C81, int(sys.argv[1]))  # LOOP_CTL_REMOVE' "$1" \
                        2>/dev/null && return 0
                sleep 0.1
        done
        ra_log "could not remove loop$1"
}
ra_agent_stop() {
        kill -TERM "$agent"
        wait "$agent" || ra_fail "the agent exited $? on SIGTERM"
        local p others=()
        for p in "${RA_BG_PIDS[@]}"; do
                [ "$p" = "$agent" ] || others+=("$p")
        done
        RA_BG_PIDS=("${others[@]}")
}

# (1) Attached mid-run.
# in a memory cgroup of its own, as advise-tune-converge's faults: their
# major faults are counted per memory cgroup
ra_hdd_group first first first_procs -m $((16 << 30))
ra_set_ra "$first" 128
ra_workload_in first_procs "$first" "$RA_TMP/first" seq 1 16
first_reader=$RA_WORKLOAD_PID
ra_agent_observe 3600
ra_agent_wait_log 15 "^readahead-agent: $first: advice raise"
ra_new_hdd second second_procs
ra_set_ra "$second" 128
ra_workload_in second_procs "$second" "$RA_TMP/second" seq 1 12
second_reader=$RA_WORKLOAD_PID
ra_agent_wait_log 15 "^readahead-agent: $second: advice raise"
ra_log "attached: $(grep "^readahead-agent: $second: advice" <(ra_agent_log "$log") | head -n1)"
ra_agent_stop
ra_expect_ra "$second" 128
# the streams end before the faults begin: alone on the disk, the faults'
# reads are read-around
ra_workload_join "$first_reader" "$first" "$RA_TMP/first"
ra_workload_join "$second_reader" "$second" "$RA_TMP/second"

# (2) Made non-rotational: no event, the periodic check (6 s) sees it.
ra_set_ra "$first" 256
ra_agent_observe 6
ra_workload_in first_procs "$first" "$RA_TMP/faults" faults 24
faults=$RA_WORKLOAD_PID
ra_agent_wait_log 15 "^readahead-agent: $first: advice keep.*read-around is small already"
echo 0 >"/sys/block/$first/queue/rotational"
ra_agent_wait_log 20 "^readahead-agent: $first: advice lower, read_ahead_kb 64K suggested"
ra_log "non-rotational: $(grep "^readahead-agent: $first: advice lower" <(ra_agent_log "$log") | head -n1)"
ra_agent_stop
ra_workload_join "$faults" "$first" "$RA_TMP/faults"
ra_expect_ra "$first" 256
