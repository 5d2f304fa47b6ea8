#!/bin/bash
# SPDX-License-Identifier: MIT
#
# k8s.sh CASE: deploy/kubernetes's DaemonSet, its pod template played by
# `podman kube play` (tests/k8s/pod.py turns it into a Pod, as Debian 12's
# podman 4.3 takes it) from the image deploy/build-image.sh built (k8s-image,
# the fixture), on this machine's real udevd, loop devices and FUSE mounts.
# No udev rule of the product is installed: only the container sets values.
#   start-hotplug   a loop device present at start gets 512 with the pod's
#                   start; one attached later gets it within 2 s; the
#                   container does it with no capability, not privileged,
#                   without the host's /dev
#   configmap-rule  a ConfigMap rule by mount point sets a FUSE mount made on
#                   the host to 1 MiB; another FUSE mount is decided and left
#                   alone (default profile); both are in the gauges
#   drift           a value written behind its back is put back within one
#                   check period, and the log says it drifted
#   metrics         a real node_exporter scrapes the textfile the pod writes:
#                   the loop device's target, current and drift gauges, and
#                   the agent's recent readahead_metrics_last_success_timestamp_seconds
#   stop-reset      SIGTERM (pod stop) ends it at once with exit code 0 and
#                   leaves the values; deleting the pod too; the reset
#                   manifest's pod gives the kernel's values back, from
#                   its own network namespace (it needs no udev event)
#   liveness        the manifest's liveness probe passes while the agent
#                   runs, fails once it hangs (SIGSTOP) for two check
#                   periods and 20 s, and passes again when it goes on
#   tune            an operator opts in (--advise-sec, a ConfigMap rule with
#                   Tune=yes): the pod raises a sequential reader's HDD model
#                   device 128K -> 512K within 3 windows, and only observes
#                   another rule's device read the same way; the tuned value
#                   is kept in the tune-state hostPath and a new pod starts
#                   from it, and follows when the reader turns to random
#                   page faults (a lower)
# (advise-common.sh: lib.sh, and for tune the HDD model and the workloads.)
# shellcheck source=tests/real/advise-common.sh
. "$(dirname "$0")/../real/advise-common.sh"
RA_MUST_RUN="the k8s tests"
case=${1:?usage: k8s.sh CASE}
ra_init
# shellcheck source=tests/k8s/pod-lib.sh
. "$RA_SOURCE_DIR/tests/k8s/pod-lib.sh"

now_ms() { local us=${EPOCHREALTIME/./}; echo $((us / 1000)); }
# wait_value FILE KB SECONDS: until FILE holds KB (with KB "!N": anything
# but N); prints the ms it took.
wait_value() {
        local start v
        start=$(now_ms)
        while read -r v <"$1" && if [[ $2 == !* ]]; then [ "$v" = "${2#!}" ]; else [ "$v" != "$2" ]; fi; do
                if (($(now_ms) - start > $3 * 1000)); then
                        show_pod >&2
                        ra_fail "$1 is $v, not $2, after $3 s"
                fi
                sleep 0.05
        done
        echo $(($(now_ms) - start))
}
queue() { echo "/sys/block/$1/queue/read_ahead_kb"; }
# ctr_pid CONTAINER: its first process, as the host sees it.
ctr_pid() { podman inspect "$1" --format '{{.State.Pid}}'; }

case $case in
start-hotplug)
        ra_attach 20G before
        agent_pod
        ra_expect_ra "$before" 512
        # (From the kernel's value, which a queue-limits update may raise meanwhile.)
        has_line "^readahead-agent: $before: read_ahead_kb [0-9]* -> 512 " ||
                { logs >&2; ra_fail "no log line for $before"; }
        start=$(now_ms)
        ra_attach 20G later
        ms=$(wait_value "$(queue "$later")" 512 2)
        ra_log "$later: 512 $(($(now_ms) - start)) ms after losetup (${ms} ms after udev settled)"
        # All of it with no capability, and without the host's devices.
        pid=$(ctr_pid readahead-agent-readahead-agent)
        ra_expect_eq "the agent's effective capabilities" "$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$pid/status")" \
                0000000000000000
        ra_expect_eq "privileged" "$(podman inspect readahead-agent-readahead-agent --format '{{.HostConfig.Privileged}}')" false
        [ ! -e "/proc/$pid/root/dev/$later" ] || ra_fail "the container has the host's /dev/$later"
        ;;
configmap-rule)
        ra_require_fuse
        cat >"$RA_TMP/cluster.conf" <<EOF
[Rule k8s-test-mount]
MountPoint=$RA_TMP/mnt/ruled
Size=1M
EOF
        agent_pod --config readahead-agent-rules/50-cluster.conf="$RA_TMP/cluster.conf"
        ra_fuse_mount ruled plain
        ruled=$(ra_bdi_of "$RA_TMP/mnt/ruled")
        plain=$(ra_bdi_of "$RA_TMP/mnt/plain")
        plain_kb=$(ra_bdi_ra_kb "$plain")
        # FUSE_INIT may lower a value written before it: the check puts it back.
        wait_value "/sys/class/bdi/$ruled/read_ahead_kb" 1024 $((check_sec + 2)) >/dev/null
        ra_expect_eq "left-alone FUSE mount $plain" "$(ra_bdi_ra_kb "$plain")" "$plain_kb"
        sleep $((check_sec + 1)) # a check, then the gauges
        grep -q "^readahead_current_bytes{device=\"$plain\",kind=\"mount\",class=\"fuse\"} " "$textdir/readahead.prom" ||
                { cat "$textdir/readahead.prom" >&2; ra_fail "the gauges do not list the FUSE mount $plain"; }
        ! grep -q "^readahead_target_bytes{device=\"$plain\"" "$textdir/readahead.prom" ||
                ra_fail "the left-alone FUSE mount $plain has a target gauge"
        grep -q "^readahead_target_bytes{device=\"$ruled\",kind=\"mount\",class=\"fuse\"} 1048576$" \
                "$textdir/readahead.prom" || { cat "$textdir/readahead.prom" >&2; ra_fail "no 1 MiB target for $ruled"; }
        ;;
drift)
        ra_attach 20G disk
        agent_pod
        ra_expect_ra "$disk" 512
        ra_set_ra "$disk" 4096
        ms=$(wait_value "$(queue "$disk")" 512 $((check_sec + 1)))
        ra_log "$disk: 4096 put back to 512 after $ms ms (check every $check_sec s)"
        has_line "^readahead-agent: $disk: read_ahead_kb 4096 -> 512 .*; drifted: " ||
                { logs >&2; ra_fail "no drift line for $disk"; }
        ;;
metrics)
        ra_attach 20G disk
        agent_pod
        ra_node_exporter "$textdir"
        labels="class=\"hdd\",device=\"$disk\",kind=\"block\""
        metric() { sed -n "s/^$1{$labels} //p" <<<"$out" | awk '{ printf "%.0f", $1 }'; }
        # The agent writes the file in a child after its start line: wait
        # for the gauge it adds last, then read everything from that scrape.
        for _ in $(seq $(((check_sec + 5) * 10))); do
                out=$(ra_scrape) || ra_fail "scrape failed"
                grep -q '^readahead_metrics_last_success_timestamp_seconds ' <<<"$out" && break
                sleep 0.1
        done
        grep -q '^node_textfile_scrape_error 0$' <<<"$out" || ra_fail "the textfile collector reports an error"
        ra_expect_eq "readahead_target_bytes{$labels}" "$(metric readahead_target_bytes)" $((512 * 1024))
        ra_expect_eq "readahead_current_bytes{$labels}" "$(metric readahead_current_bytes)" $((512 * 1024))
        ra_expect_eq "readahead_drift{$labels}" "$(metric readahead_drift)" 0
        # The agent's own gauge, after readahead-ctl's: the time of the write.
        last=$(sed -n 's/^readahead_metrics_last_success_timestamp_seconds //p' <<<"$out" | awk '{ printf "%.0f", $1 }')
        [ -n "$last" ] && (($(date +%s) - last <= check_sec + 5)) ||
                ra_fail "readahead_metrics_last_success_timestamp_seconds is not a recent time: '$last'"
        ;;
stop-reset)
        ra_attach 20G disk
        kernel_kb=$(ra_ra_kb "$disk")
        [ "$kernel_kb" != 512 ] || ra_fail "the kernel's value is 512 already: nothing to tell apart"
        agent_pod
        ra_expect_ra "$disk" 512
        start=$(now_ms)
        podman pod stop -t 5 readahead-agent >/dev/null || ra_fail "podman pod stop failed"
        ms=$(($(now_ms) - start))
        ra_log "pod stopped in $ms ms"
        ((ms < 2000)) || ra_fail "the pod took $ms ms to stop (SIGTERM must end it within a second)"
        ra_expect_eq "exit code" "$(podman inspect readahead-agent-readahead-agent --format '{{.State.ExitCode}}')" 0
        has_line "stopping; read_ahead_kb values stay as set" || { logs >&2; ra_fail "no stop line"; }
        ra_expect_ra "$disk" 512
        pod_down
        ra_expect_ra "$disk" 512
        # Removal, as deploy/kubernetes/README.md says: the reset pod.
        play --manifest "$manifests/readahead-agent-reset.yaml" readahead-agent-reset
        wait_value "$(queue "$disk")" "$kernel_kb" 10 >/dev/null
        for _ in $(seq 50); do
                has_line "readahead-ctl reset done; waiting for SIGTERM" readahead-agent-reset-reset && break
                sleep 0.1
        done
        has_line "readahead-ctl reset done" readahead-agent-reset-reset ||
                { logs readahead-agent-reset-reset >&2; ra_fail "the reset pod does not say it is done"; }
        ra_expect_eq "reset pod state" "$(podman inspect readahead-agent-reset-reset --format '{{.State.Status}}')" running
        [ "$(readlink "/proc/$(ctr_pid readahead-agent-reset-reset)/ns/net")" != "$(readlink /proc/self/ns/net)" ] ||
                ra_fail "the reset pod runs in the host's network namespace"
        ;;
liveness)
        # The probe as the manifest gives it, run as kubelet runs an exec
        # probe: in the container.
        mapfile -t probe < <(python3 -c 'import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "DaemonSet":
        print("\n".join(d["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["exec"]["command"]))' \
                "$manifests/readahead-agent.yaml")
        [ "${#probe[@]}" -gt 0 ] || ra_fail "the manifest has no exec liveness probe"
        probe() { podman exec readahead-agent-readahead-agent "${probe[@]}" 2>&1; }
        agent_pod
        out=$(probe) || ra_fail "the liveness probe fails on a running agent: $out"
        pid=$(ctr_pid readahead-agent-readahead-agent)
        # A hung loop: stopped, it writes nothing and answers nothing.
        kill -STOP "$pid"
        RA_CLEANUP_HOOKS=("cont_agent" "${RA_CLEANUP_HOOKS[@]}")
        cont_agent() { kill -CONT "$pid" 2>/dev/null || true; }
        start=$(now_ms)
        bound_ms=$(((2 * check_sec + 20) * 1000))
        while out=$(probe); do
                (($(now_ms) - start < bound_ms + (check_sec + 5) * 1000)) ||
                        ra_fail "the liveness probe still passes $(($(now_ms) - start)) ms into a hang"
                sleep 1
        done
        ms=$(($(now_ms) - start))
        ra_log "a hung agent: the probe fails after $ms ms ($out)"
        ((ms >= bound_ms - check_sec * 1000)) || ra_fail "the probe failed after $ms ms, before the bound of $bound_ms ms"
        kill -CONT "$pid"
        for _ in $(seq $((check_sec * 10 + 20))); do
                out=$(probe) && break
                sleep 0.1
        done
        out=$(probe) || ra_fail "the liveness probe still fails once the agent goes on: $out"
        ;;
tune)
        ra_workload_init
        ra_hdd_group a dev_a group_a
        ra_hdd_group b dev_b group_b
        ra_tune_rules k8s-tuned k8s-observed "$dev_a" "$dev_b" >"$RA_TMP/cluster.conf"
        mkdir "$RA_TMP/tune-state"
        tuning_pod() {
                agent_pod --config readahead-agent-rules/50-cluster.conf="$RA_TMP/cluster.conf" --advise-sec 3 \
                        --tune-state "$RA_TMP/tune-state"
        }
        tuning_pod
        ra_expect_ra "$dev_a" 128
        ra_expect_ra "$dev_b" 128
        # (opened at 128K: the kernel copies read_ahead_kb into a file at open)
        ra_workload_in group_a "$dev_a" "$RA_TMP/a" seq 1 20
        pid_a=$RA_WORKLOAD_PID
        ra_workload_in group_b "$dev_b" "$RA_TMP/b" seq 1 20
        pid_b=$RA_WORKLOAD_PID
        # 3 windows of 3 s, and the window's own sampling
        ms=$(wait_value "$(queue "$dev_a")" 512 12)
        ra_log "$dev_a: raised to 512K by the pod ${ms} ms after its reader started"
        has_line "^readahead-agent: $dev_a: tune: read_ahead_kb 128K -> 512K (Tune=yes): " ||
                { logs >&2; ra_fail "no tuning step for $dev_a with its evidence in the pod's log"; }
        has_line "^readahead-agent: $dev_b: advice raise, read_ahead_kb 512K suggested (128K now, observing only)" ||
                { logs >&2; ra_fail "no observed advice for $dev_b"; }
        sleep 4 # a window more: B is still only observed
        ra_expect_ra "$dev_b" 128
        ! has_line "$dev_b: tune:" || ra_fail "$dev_b's rule does not tune, yet: $(logs | grep "$dev_b: tune:")"
        grep -q "^name=$dev_a,size=[0-9]*	512	128	" "$RA_TMP/tune-state/tune" ||
                ra_fail "no state for $dev_a in the tune-state hostPath: $(cat "$RA_TMP/tune-state/tune" 2>&1)"
        # A new pod (a restart; a node's reboot with the same disk): from the state.
        pod_down
        ra_set_ra "$dev_a" 256
        tuning_pod
        ra_expect_ra "$dev_a" 512
        ra_workload_join "$pid_a" "$dev_a" "$RA_TMP/a"
        ra_workload_join "$pid_b" "$dev_b" "$RA_TMP/b"
        # A's workload switches to random page faults: the new pod follows
        # with a lower (the raise's 3 windows of no reversal counted on
        # across the restart), and B, idle now, stays as it was.
        # (it runs as long as the wait may, and is joined: killing its
        # wrapper would leave the reader in A's cgroup past the cleanup)
        ra_workload_in group_a "$dev_a" "$RA_TMP/a-faults" faults 25
        pid_a=$RA_WORKLOAD_PID
        ms=$(wait_value "$(queue "$dev_a")" !512 25)
        lowered=$(<"$(queue "$dev_a")")
        ((lowered < 512)) || ra_fail "$dev_a went from 512K to ${lowered}K on random page faults, not lower"
        ra_log "$dev_a: random page faults: lowered 512K -> ${lowered}K by the new pod ${ms} ms after they started"
        has_line "^readahead-agent: $dev_a: tune: read_ahead_kb 512K -> ${lowered}K (Tune=yes): random page faults" ||
                { logs >&2; ra_fail "no tuning step 512K -> ${lowered}K for $dev_a's faults in the pod's log"; }
        ra_expect_ra "$dev_b" 128
        ra_workload_join "$pid_a" "$dev_a" "$RA_TMP/a-faults"
        ;;
*) ra_fail "unknown case $case" ;;
esac
ra_log "ok"
