#!/bin/bash
# SPDX-License-Identifier: MIT
# Tune=yes converges (issue 33, point 4, on this machine): the three lab
# workloads of advise-converge at once, each on an HDD model device of its
# own from its start value (one stream from 128K, random page faults from
# 4M, 32 streams in 48 MiB from 2560K), each run again and again (a step
# reaches files opened after it), and nobody runs advise: one agent with
# --advise-sec=4 tunes all three apart. After 3 windows each value is
# measured against the sweep's best value run again now
# (bench/benefit.tsv): within 10% (a gap measured twice more, medians of
# three), in at most 3 changes; two windows more change nothing.
# The windows are the agent's own, counted from its first (ra_tune_agent
# waits for it), here and in the systemd lab's TCG guest alike.
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
ra_hdd_group seq dev_seq group_seq -m $((16 << 30))
ra_hdd_group mmap dev_mmap group_mmap -m $((16 << 30))
ra_hdd_group mem dev_mem group_mem -m $((48 << 20))
window=4
settle=3
log=$RA_TMP/agent.log
# no small-device cap: the lab's 64 GiB devices would cap at 2M, below
# the faults' start
ra_tune_lab Default=128K Minimum=32K Maximum=16M SmallDeviceCap=no <<CONF
[Rule seq1]
Kind=block
Name=$dev_seq
Size=128K
Tune=yes

[Rule mmap]
Kind=block
Name=$dev_mmap
Size=4M
Tune=yes

[Rule mem32]
Kind=block
Name=$dev_mem
Size=2560K
Tune=yes
CONF
ra_install_rule
ra_change "$dev_seq" "$dev_mmap" "$dev_mem"
ra_expect_ra "$dev_seq" 128
ra_expect_ra "$dev_mmap" 4096
ra_expect_ra "$dev_mem" 2560

ra_again seq1 group_seq "$dev_seq" seq 1 3 &
loops=($!)
ra_again mmap group_mmap "$dev_mmap" faults 3 &
loops+=($!)
ra_again mem32 group_mem "$dev_mem" seq 32 12 3 &
loops+=($!)
RA_BG_PIDS+=("${loops[@]}")
ra_tune_agent $window "$log"

sleep $((settle * window + 2)) # the windows end a moment after each multiple of the window
declare -A after3
for d in "$dev_seq" "$dev_mmap" "$dev_mem"; do after3[$d]=$(ra_ra_kb "$d"); done
sleep $((2 * window))
declare -A after5
for d in "$dev_seq" "$dev_mmap" "$dev_mem"; do after5[$d]=$(ra_ra_kb "$d"); done
touch "$RA_TMP/seq1.stop" "$RA_TMP/mmap.stop" "$RA_TMP/mem32.stop"
ra_tune_agent_stop
wait "${loops[@]}" || true
RA_BG_PIDS=()
{ grep ": tune: " <(ra_agent_log "$log") || true; } | sed "s/^/# $RA_TEST_NAME: /" >&2

# measure NAME DEV GROUP KB FIELD ARGS...: the workload's FIELD at KB, now
measure() {
        local name=$1 dev=$2 group=$3 kb=$4 field=$5 attempt
        shift 5
        ra_set_ra "$dev" "$kb"
        for attempt in 1 2 3; do
                ra_workload_in "$group" "$dev" "$RA_TMP/$name-$kb" "$@"
                ra_workload_join "$RA_WORKLOAD_PID" "$dev" "$RA_TMP/$name-$kb"
                [ "$(ra_field "$RA_TMP/$name-$kb" rc)" = 137 ] || break
        done
        ra_field "$RA_TMP/$name-$kb" "$field"
}
# check NAME DEV GROUP START FIELD ARGS...
check() {
        local name=$1 dev=$2 group=$3 start=$4 field=$5 final=${after3[$2]} changes best_kb best_sweep got best_now ratio
        shift 5
        changes=$(grep -c "^readahead-agent: $dev: tune: read_ahead_kb [^ ]* -> " <(ra_agent_log "$log") || true)
        read -r best_kb best_sweep < <(ra_sweep_best "$name" "$field")
        got=$(measure "$name" "$dev" "$group" "$final" "$field" "$@")
        best_now=$(measure "$name" "$dev" "$group" "$best_kb" "$field" "$@")
        ratio=$(ratio_of "$got" "$best_now")
        ra_log "$name: ${start}K -> ${final}K after $settle windows, $changes changes; $field $got, the sweep's best ${best_kb}K $best_now now (sweep $best_sweep): ratio $ratio"
        # One run of each can differ by 10% (seq1 read 0.89 at 1280K against
        # 1024K in the trixie guest): a gap is judged on medians of three.
        if [ "$final" != "$best_kb" ] && ! ratio_ok "$ratio"; then
                local gots=("$got") bests=("$best_now") i
                for i in 1 2; do
                        gots+=("$(measure "$name" "$dev" "$group" "$final" "$field" "$@")")
                        bests+=("$(measure "$name" "$dev" "$group" "$best_kb" "$field" "$@")")
                done
                got=$(median_of "${gots[@]}") best_now=$(median_of "${bests[@]}")
                ratio=$(ratio_of "$got" "$best_now")
                ra_log "$name: again: ${final}K ${gots[*]}, ${best_kb}K ${bests[*]}: medians $got and $best_now, ratio $ratio"
        fi
        ra_expect_eq "$name: at most 3 changes" "$((changes <= 3))" 1
        ra_expect_eq "$name: unchanged two windows on" "${after5[$dev]}" "$final"
        ra_expect_eq "$name: within 10% of the best (ratio $ratio)" "$(ratio_ok "$ratio" && echo yes)" yes
}
ratio_of() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
ratio_ok() { python3 -c 'import sys; sys.exit(float(sys.argv[1]) < 0.9)' "$1"; }
median_of() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
check seq1 "$dev_seq" group_seq 128 mib_per_s seq 1 8
check mmap "$dev_mmap" group_mmap 4096 ops_per_s faults 8
check mem32 "$dev_mem" group_mem 2560 mib_per_s seq 32 12 8
