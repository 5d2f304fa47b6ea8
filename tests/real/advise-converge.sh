#!/bin/bash
# SPDX-License-Identifier: MIT
# advise converges (issue 22, point 2): following advise until it says keep
# ends, for each lab workload, within 3 changes and within 10% of the best
# the workload does in bench/benefit's sweep (bench/benefit.tsv, the HDD
# model). Each round prints the value, the advice and the workload's
# numbers; the end prints the table (workload, start, rounds, final value,
# best value in the sweep, ratio).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
ra_hdd_group seq dev_seq group_seq -m $((16 << 30))
ra_hdd_group mmap dev_mmap group_mmap -m $((16 << 30))
ra_hdd_group mem dev_mem group_mem -m $((48 << 20))
table=$RA_TMP/table

# converge NAME DEV GROUP START FIELD WORKLOAD...: rounds of workload +
# advise from START; then the workload once more at the sweep's best value,
# now, so that the ratio compares two runs on this machine as it is (the
# sweep ran on a quiet one); one table line. Advise starts a second into
# each run, or after $RA_CONVERGE_SETTLE.
converge() {
        local name=$1 dev=$2 group=$3 start=$4 kb=$4 field=$5 changes=0 round advice suggested value final path=$4
        shift 5
        for round in 1 2 3 4 5; do
                ra_set_ra "$dev" "$kb"
                local out=$RA_TMP/$name-$round
                for attempt in 1 2 3; do
                        ra_workload_in "$group" "$dev" "$out.w" "$@"
                        local pid=$RA_WORKLOAD_PID
                        ${RA_CONVERGE_SETTLE:-sleep 1}
                        ra_advise_devices "$out.json" 5 "$dev"
                        ra_workload_join "$pid" "$dev" "$out.w"
                        [ "$(ra_field "$out.w" rc)" = 137 ] || break
                        ra_log "$name round $round: OOM-killed at ${kb}K, again"
                done
                advice=$(ra_device_json "$out.json" "$dev" 'd["advice"]')
                suggested=$(ra_device_json "$out.json" "$dev" 'd["suggested_kb"]')
                value=$(ra_field "$out.w" "$field")
                printf '# %s: round %s: %sK: %s %sK; workload %s=%s (%s)\n' "$name" "$round" "$kb" "$advice" \
                        "$suggested" "$field" "$value" "$(cat "$out.w")" >&2
                final=$kb # the value the last round ran at, and its number
                case $advice in
                raise | lower) ;;
                *) break ;;
                esac
                changes=$((changes + 1))
                kb=$suggested
                path="$path -> $kb"
        done
        local best_kb best_sweep best_now ratio
        read -r best_kb best_sweep < <(ra_sweep_best "$name" "$field")
        ra_set_ra "$dev" "$best_kb"
        for attempt in 1 2 3; do
                ra_workload_in "$group" "$dev" "$RA_TMP/$name-best" "$@"
                ra_workload_join "$RA_WORKLOAD_PID" "$dev" "$RA_TMP/$name-best"
                [ "$(ra_field "$RA_TMP/$name-best" rc)" = 137 ] || break
        done
        best_now=$(ra_field "$RA_TMP/$name-best" "$field")
        ratio=$(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$value" "$best_now")
        printf '%s\t%sK\t%s\t%s\t%sK: %s\t%sK: %s now (sweep %s)\t%s\n' "$name" "$start" "$path" "$changes" "$final" \
                "$value" "$best_kb" "$best_now" "$best_sweep" "$ratio" >>"$table"
}

ra_log "the HDD model at ${RA_HDD_PERCENT}%: $RA_HDD_IOPS IOPS, $RA_HDD_BPS bytes/s"
converge seq1 "$dev_seq" group_seq 128 mib_per_s seq 1 8
converge mmap "$dev_mmap" group_mmap 4096 ops_per_s faults 8
# thrashing shows once the 48 MiB are full (ra_wait_memory_full)
RA_CONVERGE_SETTLE="ra_wait_memory_full group_mem 8" converge mem32 "$dev_mem" group_mem 2560 mib_per_s seq 32 12 8

printf '# %s: workload\tstart\tvalues\tchanges\tfinal: %s\tbest in the sweep: now (sweep)\tratio\n' "$RA_TEST_NAME" "workload number" >&2
sed "s/^/# $RA_TEST_NAME: /" "$table" >&2
while IFS=$'\t' read -r name start path changes final best ratio; do
        ra_expect_eq "$name: changes at most 3" "$((changes <= 3))" 1
        ra_expect_eq "$name: within 10% of the best (ratio $ratio)" \
                "$(python3 -c 'import sys; print(float(sys.argv[1]) >= 0.9)' "$ratio")" True
done <"$table"
