#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/nfs-benefit's guest (not a test: bench/nfs-benefit boots it through
# run.sh and keeps the rows it prints). The seed's experiment (Wu, "nfs: use
# 4*rsize readahead size", 2010) in Debian 12's kernel: NFS server and client
# over loopback, sparse files on the server's tmpfs (holes: no storage, no
# server cache), sequential reads with dd after dropping the client's caches,
# each run timed, for each read_ahead_kb x added round-trip time (netem on
# lo: one delay counts in both directions, so RTT/2 each way).
#
# RA_VM_ARGS: SECONDS (each run), GROUPS (which parts of the sweep, in the
# order given: r1m,r512,r32,v3,s4,small; default all), RTTS and SWEEP (comma
# lists of milliseconds and KiB), REPS (runs of each cell), SETTINGS (comma
# list of sweep, profile, advise) and READ_KB (dd's read size).
#
# Each repetition is one pass over the cell's values in an order of its own
# (shuf, seeded by the pass), so that a slow period of the host lands on
# several values, not on one. `profile` is the default profile's value for
# the mount, measured as a value of its own; `advise` first follows
# `readahead-ctl advise` from the profile's value while a reader runs
# (apply what it suggests, until keep or no signal, at most 3 rounds; the
# path is the row's advise_path), then measures the value it ended at.
#
# Prints one line a run: "row<TAB>" followed by the TSV columns of HEADER.
. "$(dirname "$0")/lib.sh"

read -r seconds groups rtts_ms sweep_kb reps settings read_kb <<<"${RA_VM_ARGS:-}"
seconds=${seconds:-2}
groups=${groups:-r1m,r512,r32,v3,s4,small}
rtts_ms=${rtts_ms:-0,2,10,20}
sweep_kb=${sweep_kb:-16,32,64,128,256,512,1024,2048,4096,8192,15360,16384}
reps=${reps:-1}
settings=${settings:-sweep}
read_kb=${read_kb:-4}
advise_seconds=5 # each advise window, a reader running
advise_rounds=3
small_mib=512    # the small client: the readers' memory cgroup
ballast_mib=320  # of which an application's resident memory (tmpfs, no swap)

HEADER="group	vers	rsize_kb	rtt_ms	read_ahead_kb	streams	mem_limit_mib	seconds	bytes	mib_per_s	server_bytes	amplification	read_ops	rtt_ms_per_read	exe_ms_per_read	product_kb	refault_bytes	setting	rep	read_kb	cpu_busy_pct	advise_path"

modprobe sch_netem || vm_fail "no sch_netem: the image lacks it (tests/vm/image.sh)"
vm_nfs_server r1m r512 r32 v3
rpc.nfsd 8 # Debian's default thread count; the lab's 4 would queue the 32K READs
for d in r1m r512 r32 v3; do
        for i in 1 2 3 4 5 6 7 8; do
                truncate -s 64G "/srv/nfs/$d/f$i" # larger than any client's memory
        done
done

declare -A MP BDI VERS RSIZE PRODUCT
mount_one() { # group vers rsize_bytes
        local g=$1
        vm_nfs_mount "$2" "$3" "$g" "/mnt/$g"
        MP[$g]=/mnt/$g BDI[$g]=$(vm_bdi_of "/mnt/$g") VERS[$g]=$2 RSIZE[$g]=$(($3 / 1024))
        vm_settle
        PRODUCT[$g]=$(vm_status_entry "${BDI[$g]}" | jq -r .target_kb)
        vm_log "$g: NFSv$2 rsize=$3 bdi ${BDI[$g]}, this product's target ${PRODUCT[$g]} KiB"
}
mount_one r1m 4.2 1048576
mount_one r512 4.2 524288
mount_one r32 4.2 32768
mount_one v3 3 1048576

# The small client: the readers in a memory cgroup of small_mib, ballast_mib
# of it held by an application's unswappable memory (a tmpfs file written from
# inside the cgroup): what is left is the page cache a small machine has.
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || true
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/small /run/ballast
echo "${small_mib}M" >/sys/fs/cgroup/small/memory.max
mount -t tmpfs -o size=$((ballast_mib + 16))m tmpfs /run/ballast
(echo "$BASHPID" >/sys/fs/cgroup/small/cgroup.procs &&
        exec dd if=/dev/zero of=/run/ballast/app bs=1M count="$ballast_mib" status=none) ||
        vm_fail "could not fill the small client's ballast"
# What this product gives a machine of small_mib (the memory cap: 1 KiB per
# MiB); the 4 GiB guest's own target is PRODUCT.
small_product_kb=$((PRODUCT[r1m] < small_mib ? PRODUCT[r1m] : small_mib))
vm_log "small client: cgroup memory.max ${small_mib}M, $(($(cat /sys/fs/cgroup/small/memory.current) >> 20)) MiB in use before the reads"

set_rtt() {
        tc qdisc del dev lo root 2>/dev/null || true
        [ "$1" = 0 ] && return
        # Half the RTT each way; a long queue: 16 MiB windows are 256 64K packets.
        tc qdisc add dev lo root netem delay "$(awk -v r="$1" 'BEGIN { printf "%gms", r / 2 }')" limit 100000 ||
                vm_fail "tc netem failed"
}

# This mount's counters: the server's read bytes ("bytes:" line), and the
# READ operations' count and cumulative RTT and execute milliseconds.
mount_counters() {
        awk -v mp="$1" '$1 == "device" { cur = ($5 == mp) }
                cur && $1 == "bytes:" { b = $6 }
                cur && $1 == "READ:" { print b, $2, $8, $9; exit } # ops trans timeouts sent recv queue rtt execute' /proc/self/mountstats
}

# Pages read again after reclaim took them (the guest's: only the runs read).
refaults() { awk '$1 == "workingset_refault_file" { print $2 }' /proc/vmstat; }

# The guest's CPU time, busy and total, in ticks (/proc/stat's "cpu" line:
# idle and iowait are the idle part).
cpu_ticks() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }

# run GROUP RTT KB STREAMS SETTING REP [CGROUP] [PATH]: one timed run, one row.
run() {
        local g=$1 rtt=$2 kb=$3 streams=$4 setting=$5 rep=$6 cg=${7:-} path=${8:-} i bytes=0 secs=0 b s mem=0
        local before after ops0 ops1 rtt0 rtt1 exe0 exe1 refaults0 busy0 total0 busy1 total1
        echo "$kb" >"/sys/class/bdi/${BDI[$g]}/read_ahead_kb"
        [ "$(vm_bdi_ra_kb "${BDI[$g]}")" = "$kb" ] || vm_fail "could not set read_ahead_kb $kb"
        sync
        echo 3 >/proc/sys/vm/drop_caches
        read -r before ops0 rtt0 exe0 < <(mount_counters "${MP[$g]}")
        refaults0=$(refaults)
        read -r busy0 total0 < <(cpu_ticks)
        for ((i = 1; i <= streams; i++)); do
                (
                        [ -z "$cg" ] || echo "$BASHPID" >"/sys/fs/cgroup/$cg/cgroup.procs"
                        # SIGINT: dd prints what it copied in how long, then
                        # exits; once: its handler is SA_RESETHAND, and a plain
                        # timeout signals the child and then its whole group.
                        exec timeout --foreground -s INT "$seconds" dd if="${MP[$g]}/f$i" of=/dev/null bs="${read_kb}k"
                ) 2>"$VM_TMP/dd.$i" &
        done
        wait || true
        read -r busy1 total1 < <(cpu_ticks)
        read -r after ops1 rtt1 exe1 < <(mount_counters "${MP[$g]}")
        local refault_pages=$(($(refaults) - refaults0))
        for ((i = 1; i <= streams; i++)); do
                b="" s=""
                read -r b s < <(sed -n 's/^\([0-9]*\) bytes .* copied, \([0-9.e-]*\) s,.*/\1 \2/p' "$VM_TMP/dd.$i") || true
                if [ -z "$b" ]; then
                        # Killed before it could say (the small client's OOM
                        # killer): the run is logged, not kept.
                        vm_log "$g ${rtt} ms ${kb}K: dd $i printed no result: $(dmesg | grep -i -o 'memory cgroup out of memory.*' | tail -n 1)$(cat "$VM_TMP/dd.$i")"
                        return 0
                fi
                bytes=$((bytes + b))
                secs=$(awk -v a="$secs" -v b="$s" 'BEGIN { print (b > a) ? b : a }')
        done
        [ -z "$cg" ] || mem=$small_mib
        printf 'row\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$g" "${VERS[$g]}" "${RSIZE[$g]}" \
                "$rtt" "$kb" "$streams" "$mem" "$secs" "$bytes" \
                "$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.2f", b / 1048576 / s }')" \
                "$((after - before))" \
                "$(awk -v a=$((after - before)) -v b="$bytes" 'BEGIN { printf "%.3f", b ? a / b : 0 }')" \
                $((ops1 - ops0)) \
                "$(awk -v n=$((ops1 - ops0)) -v r=$((rtt1 - rtt0)) -v e=$((exe1 - exe0)) 'BEGIN { printf "%.2f\t%.2f", n ? r / n : 0, n ? e / n : 0 }')" \
                "$([ -z "$cg" ] && echo "${PRODUCT[$g]}" || echo "$small_product_kb")" \
                $((refault_pages * 4096)) "$setting" "$rep" "$read_kb" \
                "$(awk -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) 'BEGIN { printf "%.0f", t ? 100 * b / t : 0 }')" \
                "$path"
}

# follow_advise MOUNT STREAMS CGROUP KB: from KB, a window of advise while
# STREAMS cold readers run, then its suggestion applied, until it says keep
# or has no signal (at most advise_rounds windows). Sets advised_kb and
# advise_path ("4096 keep", "128 raise, 512 raise, 1024 keep").
follow_advise() {
        local mnt=$1 streams=$2 cg=$3 kb=$4 round i advice suggested json=$VM_TMP/advise.json pids
        advise_path=""
        for ((round = 1; round <= advise_rounds; round++)); do
                echo "$kb" >"/sys/class/bdi/${BDI[$mnt]}/read_ahead_kb"
                sync
                echo 3 >/proc/sys/vm/drop_caches
                pids=()
                for ((i = 1; i <= streams; i++)); do
                        (
                                [ -z "$cg" ] || echo "$BASHPID" >"/sys/fs/cgroup/$cg/cgroup.procs"
                                exec dd if="${MP[$mnt]}/f$i" of=/dev/null bs="${read_kb}k" 2>/dev/null
                        ) &
                        pids+=($!)
                done
                readahead-ctl advise --time "$advise_seconds" --json "${MP[$mnt]}" >"$json" || true
                kill "${pids[@]}" 2>/dev/null || true
                wait "${pids[@]}" 2>/dev/null || true
                read -r advice suggested < <(jq -r --arg d "${BDI[$mnt]}" \
                        '[.devices[] | select(.device == $d)][0] | "\(.advice | gsub(" "; "-")) \(.suggested_kb // "")"' "$json") ||
                        vm_fail "advise gave no entry for ${BDI[$mnt]}: $(cat "$json")"
                advise_path+="${advise_path:+, }$kb $advice"
                vm_log "advise round $round at ${kb}K: $advice${suggested:+ $suggested}"
                case $advice in
                raise | lower) kb=$suggested ;;
                *) break ;;
                esac
        done
        advised_kb=$kb
}

printf 'header\t%s\n' "$HEADER"
for grp in ${groups//,/ }; do
        case $grp in
        r1m | r512 | r32 | v3) mnt=$grp streams=1 cg="" ;;
        s4) mnt=r1m streams=4 cg="" ;;
        small) mnt=r1m streams=8 cg=small ;;
        *) vm_fail "unknown group $grp" ;;
        esac
        product_kb=${PRODUCT[$mnt]}
        [ -z "$cg" ] || product_kb=$small_product_kb
        for rtt in ${rtts_ms//,/ }; do
                set_rtt "$rtt"
                vm_log "$grp: ${rtt} ms added RTT"
                # What each pass measures: SETTING:KB[:ADVISE_PATH].
                cells=()
                for setting in ${settings//,/ }; do
                        case $setting in
                        sweep) for kb in ${sweep_kb//,/ }; do cells+=("sweep:$kb"); done ;;
                        profile) cells+=("profile:$product_kb") ;;
                        advise)
                                follow_advise "$mnt" "$streams" "$cg" "$product_kb"
                                cells+=("advise:$advised_kb:$advise_path")
                                ;;
                        *) vm_fail "unknown setting $setting" ;;
                        esac
                done
                for ((rep = 1; rep <= reps; rep++)); do
                        printf '%s\n' "${cells[@]}" | shuf --random-source=<(yes "$rep") >"$VM_TMP/pass"
                        while IFS=: read -r setting kb path; do
                                run "$mnt" "$rtt" "$kb" "$streams" "$setting" "$rep" "$cg" "$path" |
                                        sed "s/^row\t$mnt\t/row\t$grp\t/"
                        done <"$VM_TMP/pass"
                done
        done
done
set_rtt 0
vm_pass
