#!/bin/bash
# SPDX-License-Identifier: MIT
# readahead-ctl advise on NFS mounts, in a real kernel, from the mount's own
# READ counters (/proc/self/mountstats): NFSv4.2, rsize=1M, over loopback,
# with netem adding round-trip time on lo (half each way).
#   (a) one sequential reader at 128K with 10 ms added RTT: raise; following
#       the advice reads faster (both throughputs printed)
#   (b) the profile's value (4 x rsize = 4M) with no added delay: keep or no
#       signal
#   (c) an idle mount: no signal, exit 0, also when advise lists every device
#   (d) a busy local disk beside the mount: the mount's advice is its own
#       (no signal when idle, raise when read as in (a)), the disk's reads
#       are the disk's
#   (e) advise followed to the end at rsize=512K and 10 ms added RTT from
#       128K and from 16M (apply what it suggests until keep, at most 4
#       windows: on one lab machine, in 4 runs of 4 on 2026-11-29, the RTT
#       at 2M read 15.3-15.7 ms against 11.6-12.2 ms at 128K-512K, so 2M
#       showed 101-103% of its window in flight and took a third raise, to
#       4M; in the run where it showed 100% and was kept, 2M read 0.83-0.84
#       of the best, 8M): each value it ends at reads within 10% of the best of a
#       short sweep made in the same run (medians of 3 interleaved passes;
#       a gap is measured again with 3 more runs of both values), or its
#       runs reach into the best's (the emulator's run-to-run spread is
#       20-50% under load: bench/README-nfs.md)
#   (f) --write on an NFS mount: a drop-in that names the mount by server and
#       mount point, applied at once, and applied again by the agent when
#       the mount is made again (a new bdi); refused, with nothing written,
#       for mounts stacked on one directory and for a mount point a profile
#       line cannot carry (a space)
. "$(dirname "$0")/lib.sh"

advise_seconds=5
run_seconds=4
modprobe sch_netem || vm_fail "no sch_netem in the image (tests/vm/image.sh)"
vm_nfs_server data half top
truncate -s 64G /srv/nfs/data/big /srv/nfs/half/big # sparse: no storage, no server cache
vm_nfs_mount 4.2 1048576 data /mnt/data
vm_nfs_mount 4.2 524288 half /mnt/half
vm_settle
bdi=$(vm_bdi_of /mnt/data)
profile_kb=$(vm_status_entry "$bdi" | jq -r .target_kb)
vm_expect_eq "the profile's value for rsize=1M (4 x rsize)" "$profile_kb" "$(vm_nfs_kb 1048576)"
disk=$(vm_disks 1)

set_rtt() {
        tc qdisc del dev lo root 2>/dev/null || true
        [ "$1" = 0 ] || tc qdisc add dev lo root netem delay "$(($1 / 2))ms" limit 100000 || vm_fail "tc netem failed"
}
set_ra() { # KB [BDI]
        local b=${2:-$bdi}
        echo "$1" >"/sys/class/bdi/$b/read_ahead_kb"
        vm_expect_eq "bdi $b read_ahead_kb" "$(vm_bdi_ra_kb "$b")" "$1"
}

# mib_per_s KB [MOUNT READ_KB]: sequential reads (4 KiB unless said) of
# MOUNT's big file (/mnt/data's unless said) from a cold cache for run_seconds.
mib_per_s() {
        local mnt=${2:-/mnt/data} read_kb=${3:-4}
        set_ra "$1" "$(vm_bdi_of "$mnt")" >&2 # its log line is not the number
        sync
        echo 3 >/proc/sys/vm/drop_caches
        # --foreground: one SIGINT to dd only (its handler is SA_RESETHAND).
        timeout --foreground -s INT "$run_seconds" dd if="$mnt/big" of=/dev/null bs="${read_kb}k" 2>"$VM_TMP/dd.out" || true
        sed -n 's/^\([0-9]*\) bytes .* copied, \([0-9.e-]*\) s,.*/\1 \2/p' "$VM_TMP/dd.out" |
                awk '{ printf "%.1f", $1 / 1048576 / $2 }'
}

# A background reader of the mount (and of the disk) while advise watches.
readers=()
start_reader() { # FILE
        sync
        echo 3 >/proc/sys/vm/drop_caches
        dd if="$1" of=/dev/null bs=4k 2>/dev/null &
        readers+=($!)
}
stop_readers() {
        kill "${readers[@]}" 2>/dev/null || true
        wait "${readers[@]}" 2>/dev/null || true
        readers=()
}

# advise_json NAME ARGS...: advise's JSON in $VM_TMP/NAME.json; exit 0 required.
advise_json() {
        local name=$1 rc=0
        shift
        readahead-ctl advise --time "$advise_seconds" --json "$@" >"$VM_TMP/$name.json" || rc=$?
        [ "$rc" = 0 ] || { cat "$VM_TMP/$name.json"; vm_fail "advise $* exited $rc"; }
}
entry() { # NAME DEVICE: one device's object
        jq -ce --arg d "$2" '[.devices[] | select(.device == $d)] | if length == 1 then .[0] else error("\(length) entries") end' \
                "$VM_TMP/$1.json" || { cat "$VM_TMP/$1.json"; vm_fail "advise JSON $1: $2 is not listed once"; }
}
show() { vm_log "advise $1 for $2: $(jq -r '"\(.advice), suggested \(.suggested_kb), \(.read_mib_per_s) MiB/s, RTT \(.nfs_rtt_ms // "-") ms, in flight \(.nfs_in_flight_kb // "-")K: \(.reason)"' <<<"$3")"; }

# (a) window-limited: 128K at 10 ms.
set_rtt 10
before=$(mib_per_s 128)
set_ra 128
start_reader /mnt/data/big
advise_json a /mnt/data
stop_readers
a=$(entry a "$bdi")
show "(a)" "$bdi" "$a"
vm_expect_eq "(a) advice at 128K with 10 ms added RTT" "$(jq -r .advice <<<"$a")" raise
suggested=$(jq -r .suggested_kb <<<"$a")
[ "$suggested" -gt 128 ] || vm_fail "(a) raise to $suggested"
after=$(mib_per_s "$suggested")
vm_log "(a) 10 ms added RTT: ${before} MiB/s at 128K, ${after} MiB/s at the advised ${suggested}K"
awk -v b="$before" -v a="$after" 'BEGIN { exit !(a >= 1.3 * b) }' ||
        vm_fail "(a) following the advice: ${after} MiB/s is not 1.3 x ${before} MiB/s"
vm_log "ok: (a) following the advice reads $(awk -v b="$before" -v a="$after" 'BEGIN { printf "%.2f", a / b }') x faster"

# (b) the profile's value, no added delay.
set_rtt 0
set_ra "$profile_kb"
start_reader /mnt/data/big
advise_json b /mnt/data
stop_readers
b=$(entry b "$bdi")
show "(b)" "$bdi" "$b"
case $(jq -r .advice <<<"$b") in
keep | "no signal") vm_log "ok: (b) at the profile's ${profile_kb}K with no added delay: $(jq -r .advice <<<"$b")" ;;
*) vm_fail "(b) at the profile's ${profile_kb}K with no added delay: $(jq -r .advice <<<"$b")" ;;
esac
vm_expect_eq "(b) read_ahead_kb unchanged (no --write)" "$(vm_bdi_ra_kb "$bdi")" "$profile_kb"

# (c) idle: named, and among every device.
advise_json c /mnt/data
c=$(entry c "$bdi")
show "(c)" "$bdi" "$c"
vm_expect_eq "(c) idle mount" "$(jq -r .advice <<<"$c")" "no signal"
vm_expect_eq "(c) idle mount's reason" "$(jq -r .reason <<<"$c")" "no NFS reads in $advise_seconds s"
advise_json c-all
vm_expect_eq "(c) idle mount among all devices" "$(entry c-all "$bdi" | jq -r .advice)" "no signal"

# (d) a busy local disk beside the mount: idle mount, then a reader on both.
start_reader "$disk"
advise_json d-idle /mnt/data "$disk"
stop_readers
d=$(entry d-idle "$bdi")
show "(d) idle mount, busy disk:" "$bdi" "$d"
vm_log "(d) the disk ${disk##*/}: $(entry d-idle "${disk##*/}" | jq -r '"\(.read_mib_per_s) MiB/s, \(.advice)"')"
awk -v r="$(entry d-idle "${disk##*/}" | jq -r .read_bytes)" 'BEGIN { exit !(r >= 1048576) }' ||
        vm_fail "(d) the disk was not busy"
vm_expect_eq "(d) idle mount beside a busy disk" "$(jq -r .advice <<<"$d")" "no signal"
vm_expect_eq "(d) its reason" "$(jq -r .reason <<<"$d")" "no NFS reads in $advise_seconds s"

set_rtt 10
set_ra 128
start_reader "$disk"
start_reader /mnt/data/big
advise_json d-read /mnt/data "$disk"
stop_readers
set_rtt 0
d=$(entry d-read "$bdi")
show "(d) reader, busy disk:" "$bdi" "$d"
vm_expect_eq "(d) reader at 128K, 10 ms, beside a busy disk" "$(jq -r .advice <<<"$d")" raise
vm_expect_eq "(d) suggested as in (a)" "$(jq -r .suggested_kb <<<"$d")" "$suggested"

# (e) advise followed until keep at rsize=512K, +10 ms, from both ends. 64 KiB
# reads: 4 KiB dd reads cost the emulated CPUs more than the window saves.
half=$(vm_bdi_of /mnt/half)
set_rtt 10
follow() { # START_KB: the value advise ends at, in $followed_kb
        local kb=$1 round advice e
        for ((round = 1; round <= 4; round++)); do
                set_ra "$kb" "$half"
                start_reader /mnt/half/big
                advise_json "e-$1-$round" /mnt/half
                stop_readers
                e=$(entry "e-$1-$round" "$half")
                show "(e) from ${1}K, round $round:" "$half" "$e"
                advice=$(jq -r .advice <<<"$e")
                case $advice in
                raise | lower) kb=$(jq -r .suggested_kb <<<"$e") ;;
                *) break ;;
                esac
        done
        [ "$advice" = keep ] || vm_fail "(e) from ${1}K: advise ended at ${kb}K with '$advice', not keep, after $((round - 1)) windows"
        followed_kb=$kb
}
follow 128
from_low=$followed_kb
follow 16384
from_high=$followed_kb
declare -A runs=()
for pass in 1 2 3; do
        for kb in $(printf '%s\n' 512 1024 2048 4096 8192 16384 "$from_low" "$from_high" | sort -un | shuf); do
                runs[$kb]+=" $(mib_per_s "$kb" /mnt/half 64)"
        done
done
stat() { # WHAT RUNS: median, min or max of the runs
        tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -g | awk -v w="$1" '{ v[NR] = $1 }
                END { printf "%.1f", w == "min" ? v[1] : w == "max" ? v[NR] : (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'
}
best_kb="" best=0
for kb in "${!runs[@]}"; do
        m=$(stat median "${runs[$kb]}")
        vm_log "(e) ${kb}K: runs${runs[$kb]} MiB/s, median $m"
        if awk -v m="$m" -v b="$best" 'BEGIN { exit !(m > b) }'; then best=$m best_kb=$kb; fi
done
share_of_best() { # START FINAL [NOTE]: $share = FINAL's median over the best's
        local m b
        m=$(stat median "${runs[$2]}") b=$(stat median "${runs[$best_kb]}")
        share=$(awk -v m="$m" -v b="$b" 'BEGIN { printf "%.2f", m / b }')
        vm_log "(e) from ${1}K advise ended at ${2}K: $m MiB/s, $share of the best median ($b MiB/s at ${best_kb}K)$3"
}
# judge START FINAL: FINAL within 10% of the best, or not separable from it
judge() {
        local start=$1 final=$2
        share_of_best "$start" "$final" ""
        # A short sweep under a loaded host can single out one value for a
        # slow period (a CI run read 2048K at 0.85 and 1024K and 4096K at
        # 0.96 and 1.00): a gap is confirmed with three more runs of the two
        # values, interleaved.
        if [ "$final" != "$best_kb" ] && awk -v s="$share" 'BEGIN { exit !(s < 0.9) }'; then
                for pass in 1 2 3; do
                        for kb in $(printf '%s\n' "$final" "$best_kb" | shuf); do
                                runs[$kb]+=" $(mib_per_s "$kb" /mnt/half 64)"
                        done
                done
                vm_log "(e) ${final}K: runs${runs[$final]} MiB/s; ${best_kb}K: runs${runs[$best_kb]} MiB/s"
                share_of_best "$start" "$final" ", over 6 runs or more each"
        fi
        if awk -v s="$share" 'BEGIN { exit !(s >= 0.9) }'; then
                vm_log "ok: (e) advise from ${start}K ends within 10% of the short sweep's best"
        elif awk -v a="$(stat max "${runs[$final]}")" -v b="$(stat min "${runs[$best_kb]}")" 'BEGIN { exit !(a >= b) }'; then
                vm_log "ok: (e) advise from ${start}K ends at ${final}K, whose runs reach into ${best_kb}K's: not separable in this run"
        else
                vm_fail "(e) from ${start}K: ${final}K reads $share of ${best_kb}K, every run below ${best_kb}K's"
        fi
}
judge 128 "$from_low"
judge 16384 "$from_high"
set_rtt 0

# (f) --write for an NFS mount, across a remount.
dropins=/etc/readahead-agent/profiles/default.conf.d
set_rtt 10
set_ra 128
start_reader /mnt/data/big
rc=0
readahead-ctl advise --time "$advise_seconds" --json --write /mnt/data >"$VM_TMP/f.json" 2>"$VM_TMP/f.err" || rc=$?
stop_readers
set_rtt 0
cat "$VM_TMP/f.err" >&2
vm_expect_eq "(f) advise --write exit status" "$rc" 0
f=$(entry f "$bdi")
show "(f)" "$bdi" "$f"
vm_expect_eq "(f) advice" "$(jq -r .advice <<<"$f")" raise
kb=$(jq -r .suggested_kb <<<"$f")
written=$(jq -r .written <<<"$f")
[ -f "$written" ] || vm_fail "(f) written names '$written', which does not exist"
case $written in "$dropins"/*) ;; *) vm_fail "(f) the drop-in $written is not in $dropins" ;; esac
vm_log "(f) $written: $(tr '\n' '|' <"$written")"
grep -qx 'Kind=mount' "$written" && grep -qx 'Server=127.0.0.1' "$written" && grep -qx 'MountPoint=/mnt/data' "$written" ||
        vm_fail "(f) the drop-in does not name the mount by server and mount point"
vm_expect_eq "(f) read_ahead_kb after --write" "$(vm_bdi_ra_kb "$bdi")" "$kb"
umount /mnt/data
vm_nfs_mount 4.2 1048576 data /mnt/data
vm_settle
again=$(vm_bdi_of /mnt/data)
# A new superblock's bdi starts at the kernel's 128K, and the profile alone
# would give it 4 x rsize: the suggested value can only come from the rule.
[ "$again" != "$bdi" ] || vm_log "(f) the remount got the bdi's number $bdi again (a new bdi)"
[ "$kb" != "$profile_kb" ] || vm_fail "(f) the advice equals the profile's value: the remount would prove nothing"
vm_expect_eq "(f) read_ahead_kb of the remounted $again" "$(vm_bdi_ra_kb "$again")" "$kb"
vm_expect_eq "(f) the rule that decides $again" "$(vm_status_entry "$again" | jq -r '.rule | sub(".*/"; "")')" \
        "$(basename "$written"):$(sed -n 's/^\[Rule \(.*\)\]$/\1/p' "$written")"
rm "$written"
readahead-ctl apply >/dev/null

# Refused: two mounts stacked on /mnt/half (a rule would decide both), and a
# mount point with a space (a glob list splits at spaces). Nothing written.
refused() { # WHAT MOUNTPOINT PATTERN
        local rc=0
        readahead-ctl advise --time 1 --write "$2" >"$VM_TMP/r.out" 2>"$VM_TMP/r.err" || rc=$?
        vm_log "(f) $1: exit $rc: $(cat "$VM_TMP/r.err")"
        [ "$rc" != 0 ] || vm_fail "(f) $1: advise --write exited 0"
        grep -q "$3" "$VM_TMP/r.err" || vm_fail "(f) $1: the message does not say '$3'"
        [ -z "$(ls -A "$dropins" 2>/dev/null)" ] || vm_fail "(f) $1: written: $(ls "$dropins")"
}
# An export mounted nowhere else: a second mount of data would share
# /mnt/data's superblock, whose rule names /mnt/data. (findmnt lists both
# mounts at /mnt/half: vm_nfs_mount's rsize check reads one.)
mount -t nfs -o vers=4.2,rsize=1048576 127.0.0.1:/srv/nfs/top /mnt/half || vm_fail "(f) the stacked mount failed"
refused "stacked mounts" /mnt/half "too: a rule by it would decide both"
umount /mnt/half
mkdir -p "/mnt/with space"
vm_nfs_mount 4.2 1048576 top "/mnt/with space" # top's only mount now
refused "a mount point with a space" "/mnt/with space" "cannot stand in a profile line"
umount "/mnt/with space"
vm_log "ok: (f) advise --write for NFS: written by server and mount point, applied across a remount, refused when ambiguous"
vm_pass
