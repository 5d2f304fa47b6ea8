# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared by the advise-* tests: an emulated device (calibrate-common.sh),
# a workload from bench/ (ra-workload) read inside its cgroup while
# readahead-ctl advise watches from outside, and the workload's numbers.
. "$(dirname "${BASH_SOURCE[0]}")/calibrate-common.sh"
RA_MUST_RUN="the advise lab"

# ra_advise_init: ra_init, plus ra_workload_init.
ra_advise_init() {
        ra_init
        ra_workload_init
}

# ra_workload_init: ra_throttle_init, plus the workload program (a script
# that called ra_init itself).
ra_workload_init() {
        ra_throttle_init
        [ -x "${RA_WORKLOAD:-}" ] || ra_fail "ra-workload is not built (RA_WORKLOAD=${RA_WORKLOAD:-})"
}

# Wu's HDD model, as bench/benefit's hdd: 125 IOPS, 100 MiB/s, rotational.
# RA_HDD_PERCENT (1-100, default 100) runs it that much slower, for a
# machine whose CPU cannot carry it: in the systemd lab's TCG guests one
# reader at 512K read 40-59 MiB/s where the model gives 62.5, limited by
# the guest's CPU, not the model. Both limits scale, so throughput,
# min(IOPS x request size, BPS), scales as a whole and the model's best
# value stays the same.
RA_HDD_PERCENT=${RA_HDD_PERCENT:-100}
[[ $RA_HDD_PERCENT =~ ^[1-9][0-9]?$|^100$ ]] || ra_fail "RA_HDD_PERCENT=$RA_HDD_PERCENT: not 1-100"
RA_HDD_IOPS=$((125 * RA_HDD_PERCENT / 100))
RA_HDD_BPS=$((104857600 * RA_HDD_PERCENT / 100))

# ra_hdd VAR: an emulated device of the HDD model; VAR gets its name.
ra_hdd() {
        local hdd_name
        ra_emulated_device "$RA_HDD_IOPS" "$RA_HDD_BPS" hdd_name
        echo 1 >"/sys/block/$hdd_name/queue/rotational"
        printf -v "$1" "%s" "$hdd_name"
}

# ra_sectors DEV: sectors DEV has read.
ra_sectors() { awk '{ print $3 }' "/sys/block/$1/stat"; }

# ra_workload_bg DEV OUT ARGS...: starts ra-workload ARGS in the cgroup in the
# background, its output line to OUT, the device's sectors before it to
# OUT.sectors; ra_workload_wait DEV OUT then adds device_bytes= and rc=.
ra_workload_bg() {
        local dev=$1 out=$2
        shift 2
        ra_sectors "$dev" >"$out.sectors"
        (ra_emu_exec "$RA_WORKLOAD" "$1" "/dev/$dev" "${@:2}" >"$out" 2>"$out.err") &
        RA_WORKLOAD_PID=$!
        RA_BG_PIDS+=("$RA_WORKLOAD_PID")
}
ra_workload_wait() {
        local dev=$1 out=$2 rc=0
        wait "$RA_WORKLOAD_PID" || rc=$?
        RA_BG_PIDS=()
        [ -s "$out" ] || echo "ops=0 bytes=0 mib_per_s=0 ops_per_s=0" >"$out"
        printf ' device_bytes=%s rc=%s\n' "$((($(ra_sectors "$dev") - $(cat "$out.sectors")) * 512))" "$rc" >>"$out"
        tr '\n' ' ' <"$out" | tr -s ' ' >"$out.1" && mv "$out.1" "$out"
        ra_log "workload: $(cat "$out")"
}
# ra_field OUT KEY: a key=value of the workload's line.
ra_field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -n1; }

# ra_advise DEV SECONDS OUT [OPTIONS...]: readahead-ctl --json advise; the
# exit status in RA_ADVISE_RC.
ra_advise() {
        local dev=$1 seconds=$2 out=$3
        shift 3
        RA_ADVISE_RC=0
        "$RA_CTL" --root "$ROOT" --json advise --time "$seconds" "$@" "$dev" >"$out" 2>"$out.err" || RA_ADVISE_RC=$?
        cat "$out.err" >&2
        python3 -m json.tool "$out" >/dev/null || ra_fail "advise --json printed no JSON: $(cat "$out")"
        ra_log "advise: $(ra_json "$out" 'j["devices"][0]["advice"]') $(ra_json "$out" 'j["devices"][0]["suggested_kb"]')K: $(ra_json "$out" 'j["devices"][0]["reason"]') (cpu $(ra_json "$out" 'j["cpu_seconds"]') s)"
}

# ra_expect_advice OUT ADVICE SUGGESTED_KB
ra_expect_advice() {
        ra_expect_eq "advise exit status" "$RA_ADVISE_RC" 0
        ra_expect_eq "advice" "$(ra_json "$1" 'j["devices"][0]["advice"]')" "$2"
        ra_expect_eq "suggested_kb" "$(ra_json "$1" 'j["devices"][0]["suggested_kb"]')" "$3"
}

# ra_expect_better WHAT BEFORE AFTER higher|lower [GAIN]: AFTER is better
# than BEFORE by at least GAIN (1.25, a quarter, unless given); prints both.
ra_expect_better() {
        printf '# %s: %s: before %s, after %s\n' "$RA_TEST_NAME" "$1" "$2" "$3" >&2
        python3 -c 'import sys; b, a, g = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[4]); sys.exit(0 if (a > b * g if sys.argv[3] == "higher" else a < b / g) else 1)' \
                "$2" "$3" "$4" "${5:-1.25}" || ra_fail "$1 did not improve by ${5:-1.25}x: before $2, after $3"
}

# ra_hdd_group TAG VAR PROCS [ra_emu_cgroup options...]: an HDD model device
# (as ra_hdd) throttled in a cgroup of its own, ra-test-NAME-TAG-PID (with
# the options, e.g. -m BYTES, in the same cgroup); VAR gets its name, the
# array PROCS the cgroup.procs files a workload of this group runs in.
ra_hdd_group() {
        local tag=$1 var=$2 procs=$3 name
        shift 3
        ra_attach 64G name --direct-io=on
        [ "$(cat "/sys/block/$name/loop/dio" 2>/dev/null)" = 1 ] ||
                ra_skip "the loop driver did not turn on direct I/O for $name"
        ra_cgroup_group "$tag" "$procs" "$name" "$@"
        echo 1 >"/sys/block/$name/queue/rotational"
        printf -v "$var" '%s' "$name"
}

# ra_cgroup_group TAG PROCS DEV [options...]: another cgroup, throttling DEV
# as the HDD model, for a second group of readers of the same device.
ra_cgroup_group() {
        local tag=$1 procs=$2 dev=$3 first=${#RA_EMU_PROCS[@]}
        shift 3
        ra_emu_cgroup "ra-test-$RA_TEST_NAME-$tag-$$" -t "$(cat "/sys/block/$dev/dev")" "$RA_HDD_IOPS" "$RA_HDD_BPS" "$@" ||
                ra_fail "could not create the cgroup of $tag"
        eval "$procs=(\"\${RA_EMU_PROCS[@]:$first}\")"
        ra_log "group $tag: $dev, cgroups ${RA_EMU_DIRS[*]:$first}"
}

# ra_workload_in PROCS DEV OUT ARGS...: ra_workload_bg in the group PROCS
# only; its pid in RA_WORKLOAD_PID.
ra_workload_in() {
        local -n group=$1
        local saved=("${RA_EMU_PROCS[@]}")
        RA_EMU_PROCS=("${group[@]}")
        local keep=("${RA_BG_PIDS[@]}")
        ra_workload_bg "${@:2}"
        RA_BG_PIDS=("${keep[@]}" "$RA_WORKLOAD_PID")
        RA_EMU_PROCS=("${saved[@]}")
}

# ra_agent_log STDERR: the long-running agent's log, for a test's greps:
# its stderr (the file STDERR), or, where it logs to the journal instead
# (systemd's socket is there: a machine or guest under systemd), the
# journal's messages since the test began, as stderr would have them.
RA_AGENT_LOG_SINCE=$(date +%s)
ra_agent_log() {
        if [ -w /run/systemd/journal/socket ]; then
                journalctl --sync 2>/dev/null || true
                journalctl -q --no-pager -o cat SYSLOG_IDENTIFIER=readahead-agent --since "@$RA_AGENT_LOG_SINCE" |
                        sed 's/^/readahead-agent: /'
        else
                cat "$1"
        fi
}

# ra_workload_join PID DEV OUT: ra_workload_wait for the workload PID.
ra_workload_join() {
        local keep=("${RA_BG_PIDS[@]}")
        RA_WORKLOAD_PID=$1
        ra_workload_wait "$2" "$3"
        RA_BG_PIDS=()
        for p in "${keep[@]}"; do [ "$p" = "$1" ] || RA_BG_PIDS+=("$p"); done
}

# ra_wait_memory_full PROCS SECONDS: waits (at most SECONDS) until the
# memory cgroup among the group PROCS holds 90% of its limit. Until then a
# thrashing reader's reads are all first reads: nothing was reclaimed yet
# that could be read again. advise-neighbour-thrash in the trixie guest
# (the HDD model at 40%): B's 48 MiB filled 1.2-1.4 s after the start;
# advise from the first second saw refaults of 6.2-17.1% (6 of 13 runs
# under lowering's 10%), from the full cgroup 15.6-23.3% (6 runs).
ra_wait_memory_full() {
        local -n group=$1
        local seconds=$2 procs dir usage limit i
        for procs in "${group[@]}"; do
                dir=$(dirname "$procs")
                if [ -e "$dir/memory.max" ]; then
                        usage=$dir/memory.current limit=$(cat "$dir/memory.max")
                elif [ -e "$dir/memory.limit_in_bytes" ]; then
                        usage=$dir/memory.usage_in_bytes limit=$(cat "$dir/memory.limit_in_bytes")
                else
                        continue
                fi
                [[ $limit =~ ^[0-9]+$ ]] || ra_fail "ra_wait_memory_full: $dir has no memory limit ($limit)"
                for ((i = 0; i < seconds * 10; i++)); do
                        [ "$(cat "$usage")" -lt $((limit / 10 * 9)) ] || break
                        sleep 0.1
                done
                ra_log "memory of $(basename "$dir"): $(($(cat "$usage") >> 20)) MiB of $((limit >> 20)) after $((i / 10)).$((i % 10)) s"
                return 0
        done
        ra_fail "ra_wait_memory_full: no memory cgroup among ${group[*]}"
}

# ra_neighbour_faults OUT [ra_emu_cgroup options...]: the neighbour cases'
# devices and readers: A ($dev_a, 128K) read by one sequential stream, B
# ($dev_b, 4M) by random page faults through a read-only mapping, each in
# an HDD model cgroup of its own (with the options, e.g. -m BYTES: a memory
# cgroup of its own too), and one run of advise over both (JSON in OUT).
ra_neighbour_faults() {
        local out=$1 pid_a pid_b
        shift
        ra_hdd_group a dev_a group_a "$@"
        ra_hdd_group b dev_b group_b "$@"
        ra_set_ra "$dev_a" 128
        ra_set_ra "$dev_b" 4096
        ra_workload_in group_a "$dev_a" "$RA_TMP/a" seq 1 8
        pid_a=$RA_WORKLOAD_PID
        ra_workload_in group_b "$dev_b" "$RA_TMP/b" faults 8
        pid_b=$RA_WORKLOAD_PID
        sleep 1
        ra_advise_devices "$out" 5 "$dev_a" "$dev_b"
        ra_workload_join "$pid_a" "$dev_a" "$RA_TMP/a"
        ra_workload_join "$pid_b" "$dev_b" "$RA_TMP/b"
        ra_expect_eq "advise exit status" "$RA_ADVISE_RC" 0
        ra_expect_eq "A: advice" "$(ra_device_json "$out" "$dev_a" 'd["advice"], d["suggested_kb"]')" "('raise', 512)"
        ra_expect_eq "B: advice" "$(ra_device_json "$out" "$dev_b" 'd["advice"], d["suggested_kb"]')" "('lower', 1024)"
        ra_expect_eq "A: fault read-around under 10%" "$(ra_device_json "$out" "$dev_a" 'd["fault_share"] < 0.1')" True
}

# ra_sweep_best WORKLOAD FIELD: "KB VALUE" of bench/benefit.tsv's best run of
# WORKLOAD on the HDD model, VALUE scaled to RA_HDD_PERCENT (the sweep ran
# the model at 100%).
ra_sweep_best() {
        local sweep=$RA_SOURCE_DIR/bench/benefit.tsv
        [ -r "$sweep" ] || ra_fail "no $sweep"
        awk -F'\t' -v w="$1" -v f="$2" -v pct="$RA_HDD_PERCENT" '$1 == "hdd" && $2 == w {
                n = split($5, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); if (p[1] == f) v = p[2] + 0 }
                if (v > bv) { bv = v; bk = $3 } } END { printf "%s %.1f\n", bk, bv * pct / 100 }' "$sweep"
}

# ra_tune_rules TUNED OBSERVED DEV_A DEV_B: the rules of advise-tune and
# k8s-tune: DEV_A and DEV_B at 128K, DEV_A's rule (named TUNED) with
# Tune=yes between 64K and 2M, DEV_B's (OBSERVED) only observed.
ra_tune_rules() {
        cat <<EOF
[Rule $1]
Kind=block
Name=$3
Size=128K
Minimum=64K
Maximum=2M
Tune=yes

[Rule $2]
Kind=block
Name=$4
Size=128K
EOF
}

# ra_tune_lab KEY=VALUE... <RULES: the tune labs' configuration in $ROOT:
# the profile "tune-lab", its [Profile] of the keys given, a first rule that
# leaves every other device of this machine alone (Size=keep), then the
# rules read from stdin; checked.
ra_tune_lab() {
        local etc=$ROOT/etc/readahead-agent key
        mkdir -p "$etc/profiles"
        printf '[Agent]\nProfile=tune-lab\n' >"$etc/readahead.conf"
        {
                printf "[Profile]\nDescription=the tune lab: only the test's devices\n"
                for key in "$@"; do printf '%s\n' "$key"; done
                printf '\n[Rule everything-else]\nSize=keep\n\n'
                cat
        } >"$etc/profiles/tune-lab.conf"
        "$RA_CTL" --root "$ROOT" check >/dev/null ||
                ra_fail "the lab's profile does not check: $("$RA_CTL" --root "$ROOT" check 2>&1)"
}

# ra_tune_agent WINDOW LOG: the long-running agent of the Tune=yes labs,
# --watch --advise-sec=WINDOW on ra_tune_lab's configuration, its log in
# LOG. With RA_TUNE_POD=1 (k8s-advise-tune-*, bench/tune-hold
# -k): the DaemonSet's pod (tests/k8s/pod-lib.sh) instead, the lab's
# profile its ConfigMap's rules (a drop-in of the image's default profile),
# its log followed into LOG. ra_tune_agent_stop ends either. It returns
# once the agent has started its first window ("advising every"), so that
# a case counts windows from there: the agent's first pass over every
# device can take seconds under TCG, the pod's start more.
ra_tune_agent() {
        local window=$1 log=$2
        if [ "${RA_TUNE_POD:-0}" = 1 ]; then
                RA_MUST_RUN="the k8s tests"
                # shellcheck source=tests/k8s/pod-lib.sh
                . "$RA_SOURCE_DIR/tests/k8s/pod-lib.sh"
                mkdir -p "$RA_TMP/tune-state"
                agent_pod --config readahead-agent-rules/50-cluster.conf="$ROOT/etc/readahead-agent/profiles/tune-lab.conf" \
                        --advise-sec "$window" --tune-state "$RA_TMP/tune-state"
                podman logs -f readahead-agent-readahead-agent >"$log" 2>&1 &
        else
                "$RA_AGENT" --root "$ROOT" --watch --advise-sec="$window" --alive-file "$RA_TMP/alive" \
                        --ctl "$RA_CTL" 2>"$log" &
        fi
        RA_TUNE_AGENT_PID=$!
        RA_BG_PIDS+=("$RA_TUNE_AGENT_PID")
        local waited
        for ((waited = 0; waited < 600; waited++)); do
                ra_agent_log "$log" | grep -q ": advising every $window s: " && return 0
                kill -0 "$RA_TUNE_AGENT_PID" 2>/dev/null || break
                sleep 0.2
        done
        ra_fail "the agent did not start advising within $((waited / 5)) s: $(ra_agent_log "$log" | tail -n 5)"
}
ra_tune_agent_stop() {
        if [ "${RA_TUNE_POD:-0}" = 1 ]; then
                pod_down # SIGTERM, as kubelet stops it; the log's follower ends with it
                wait "$RA_TUNE_AGENT_PID" || true
        else
                kill -TERM "$RA_TUNE_AGENT_PID"
                wait "$RA_TUNE_AGENT_PID" || ra_fail "the agent exited $? on SIGTERM"
        fi
}

# ra_again NAME GROUP DEV ARGS...: ra_workload_in GROUP DEV ARGS... run
# after run (a tuning step reaches files opened after it) until the file
# $RA_TMP/NAME.stop exists; a run the memory cgroup's OOM killer ends is
# one run. For the background.
ra_again() {
        local name=$1 group=$2 dev=$3 n=0
        shift 3
        while [ ! -e "$RA_TMP/$name.stop" ]; do
                n=$((n + 1))
                ra_workload_in "$group" "$dev" "$RA_TMP/$name-run$n" "$@" 2>/dev/null
                ra_workload_join "$RA_WORKLOAD_PID" "$dev" "$RA_TMP/$name-run$n" 2>/dev/null || true
        done
        return 0
}

# ra_advise_devices OUT SECONDS DEV...: readahead-ctl --json advise of
# several devices at once; logs each device's advice and attribution.
ra_advise_devices() {
        local out=$1 seconds=$2
        shift 2
        RA_ADVISE_RC=0
        "$RA_CTL" --root "$ROOT" --json advise --time "$seconds" "$@" >"$out" 2>"$out.err" || RA_ADVISE_RC=$?
        cat "$out.err" >&2
        python3 -m json.tool "$out" >/dev/null || ra_fail "advise --json printed no JSON: $(cat "$out")"
        ra_log "cgroups: $(ra_json "$out" 'j["cgroups"]'), cpu $(ra_json "$out" 'j["cpu_seconds"]') s"
        python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
for d in j["devices"]:
    a = d["attribution"]
    print("# %s: %s: %s %sK: %s | requests %.0fK, refaults %.1f%%, faults/s %.2f, reclaim %.0f%% | by %s: cgroup refaults %.0f KiB, host share %.0f KiB; cgroup faults %.1f, host share %.1f" % (
        sys.argv[2], d["device"], d["advice"], d["suggested_kb"], d["reason"], d["request_kb"], d["refault_share"] * 100,
        d["major_faults_per_s"], d["reclaim_share"] * 100, a["by"], a["cgroup_refault_bytes"] / 1024,
        a["host_share_refault_bytes"] / 1024, a["cgroup_major_faults"], a["host_share_major_faults"]))
' "$out" "$RA_TEST_NAME" >&2
}

# ra_device_json OUT DEV EXPR: EXPR on the entry of DEV in advise's JSON (as d).
ra_device_json() {
        python3 -c 'import json, sys
d = [d for d in json.load(open(sys.argv[1]))["devices"] if d["device"] == sys.argv[2]][0]
print(eval(sys.argv[3]))' "$1" "$2" "$3"
}

# The advise-app-* tests: an application from Debian's archive on ext4 on
# the HDD model, in a group with less memory than its data (tests/real/apps.sh).
. "$(dirname "${BASH_SOURCE[0]}")/apps.sh"

# ra_app_fs DEV NAME: ext4 on DEV, mounted on $RA_TMP/mnt/NAME (unmounted at
# exit); ra_app_cold DEV NAME drops its page cache (and the device's) by
# mounting it again, nobody else's.
ra_app_fs() {
        command -v mkfs.ext4 >/dev/null || ra_skip "mkfs.ext4 (e2fsprogs) is not installed"
        mkfs.ext4 -q -E nodiscard "/dev/$1" || ra_fail "mkfs.ext4 /dev/$1 failed"
        ra_mount "$2" -o noatime "/dev/$1"
}
ra_app_cold() {
        umount "$RA_TMP/mnt/$2" && blockdev --flushbufs "/dev/$1" && mount -o noatime "/dev/$1" "$RA_TMP/mnt/$2" ||
                ra_fail "could not mount /dev/$1 again"
}

# ra_exec_in PROCS CMD...: CMD in the group PROCS (ra_hdd_group), waited for.
ra_exec_in() {
        local -n in_group=$1
        local saved=("${RA_EMU_PROCS[@]}") rc=0
        shift
        RA_EMU_PROCS=("${in_group[@]}")
        ra_emu_exec "$@" || rc=$?
        RA_EMU_PROCS=("${saved[@]}")
        return "$rc"
}

# ra_db_lab KEYS: the advise-app-* cases' database, KEYS keys (ra_db_fill),
# on ext4 on the HDD model in 64 MiB of memory: the device in dev, the
# group in group (ra_hdd_group), the database's directory in db.
ra_db_lab() {
        ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
        command -v db_bench >/dev/null || ra_skip "db_bench (rocksdb-tools) is not installed"
        ra_hdd_group db dev group -m $((64 << 20))
        ra_app_fs "$dev" db
        db=$RA_TMP/mnt/db/rocksdb
        ra_db_fill "$db" "$1" >"$RA_TMP/fill.log" 2>&1 || { cat "$RA_TMP/fill.log" >&2; ra_fail "db_bench fill failed"; }
        ra_log "database: $(du -sh "$db" | cut -f1)"
}

# ra_db_bench_bg PROCS DB OUT BENCH ARGS...: db_bench BENCH on the database DB
# in the group, in the background (pid in RA_WORKLOAD_PID), output to OUT;
# ra_db_bench_wait OUT BENCH waits for it and sets RA_DB_OPS to its ops/s.
ra_db_bench_bg() {
        local procs=$1 db=$2 out=$3 bench=$4
        shift 4
        (ra_exec_in "$procs" db_bench --db="$db" --use_existing_db=1 --benchmarks="$bench" --threads=1 \
                --ops_between_duration_checks=10 "${RA_DB_FLAGS[@]}" "$@" >"$out" 2>&1) &
        RA_WORKLOAD_PID=$!
        RA_BG_PIDS+=("$RA_WORKLOAD_PID")
}
ra_db_bench_wait() {
        local rc=0
        wait "$RA_WORKLOAD_PID" || rc=$?
        RA_BG_PIDS=()
        RA_DB_OPS=$(ra_db_ops "$2" <"$1")
        [ "$rc" = 0 ] && [ -n "$RA_DB_OPS" ] || { cat "$1" >&2; ra_fail "db_bench $2 failed (exit status $rc)"; }
        ra_log "db_bench $2: $(grep "^$2 " "$1")"
}
