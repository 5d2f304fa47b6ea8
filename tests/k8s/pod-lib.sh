# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Sourced after ra_init (tests/real/lib.sh) by k8s.sh and, for the Tune=yes
# labs with RA_TUNE_POD=1, by advise-common.sh: deploy/kubernetes's pod
# template played by podman from the k8s-image fixture's image, and what a
# test reads of it (its log, status). The pod sets every disk of this
# machine, as on a node: the values the others had are put back at exit.
for t in podman runc python3 curl; do
        command -v "$t" >/dev/null || ra_skip "$t is not installed (scripts/install-deps.sh --test)"
done
python3 -c 'import yaml' 2>/dev/null || ra_skip "python3-yaml is not installed (scripts/install-deps.sh --test)"
image=${RA_K8S_IMAGE:-localhost/readahead-agent-test:latest}
podman image exists "$image" || ra_fail "no image $image: the k8s-image test builds it (ctest -L '^k8s$')"
# The host's mount table is PID 1's, the one file of the host's /proc that
# the template binds (host-mountinfo). Where this test runs in another mount
# namespace than PID 1 (a sandboxed runner), its loop and FUSE mounts are in
# that one: the pod is given this shell's instead. PID 1's may be
# unreadable: then the same.
mountinfo=()
pid1_mnt=$(readlink /proc/1/ns/mnt 2>/dev/null || true)
if [ -n "$pid1_mnt" ] && [ "$pid1_mnt" != "$(readlink /proc/self/ns/mnt)" ]; then
        mountinfo=(--mountinfo "/proc/$$/mountinfo")
fi
manifests=$RA_SOURCE_DIR/deploy/kubernetes
# This machine only (design.md): runc, as crun refuses hybrid cgroups, and
# ulimits below root's hard limits. A cluster's runtime needs neither.
cat >"$RA_TMP/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$RA_TMP/containers.conf
check_sec=2
textdir=$RA_TMP/textfile
mkdir -p "$textdir"
# The pod sets every disk of this machine, as on a node: put back the values
# the others had (the ones this test attached go away with it).
declare -gA SAVED_RA # global: advise-common.sh sources this in a function
for f in /sys/block/*/queue/read_ahead_kb; do SAVED_RA[$f]=$(cat "$f"); done
restore_disks() {
        local f
        for f in "${!SAVED_RA[@]}"; do
                [ -e "$f" ] && echo "${SAVED_RA[$f]}" >"$f" 2>/dev/null
        done
        return 0
}
PODS=()
pod_down() {
        local p
        for p in "${PODS[@]}"; do
                podman pod rm -f -t 0 "$p" >/dev/null 2>&1 || true
        done
        PODS=()
}
RA_CLEANUP_HOOKS+=(pod_down restore_disks)

# play [pod.py options]: the pod of readahead-agent.yaml (or --manifest).
play() {
        local manifest=$manifests/readahead-agent.yaml name=readahead-agent
        if [ "${1:-}" = --manifest ]; then
                manifest=$2 name=$3
                shift 3
        fi
        python3 "$RA_SOURCE_DIR/tests/k8s/pod.py" "$manifest" --image "$image" --name "$name" "$@" \
                >"$RA_TMP/$name.yaml" || ra_fail "pod.py failed"
        PODS+=("$name")
        # A pod without hostNetwork (the reset pod) gets a network namespace
        # of its own with only loopback: netavark cannot make podman's bridge
        # on this machine, and the pod needs no network (a cluster gives it
        # the pod network, unused).
        local network=()
        grep -q '^  hostNetwork: true$' "$RA_TMP/$name.yaml" || network=(--network none)
        podman kube play "${network[@]}" "$RA_TMP/$name.yaml" >"$RA_TMP/play.log" 2>&1 ||
                { cat "$RA_TMP/play.log" >&2; ra_fail "podman kube play failed"; }
}
agent_pod() {
        play --check-sec "$check_sec" --textfile "$textdir" "${mountinfo[@]}" "$@"
        # The start line comes after the pass over every device.
        local i
        for i in $(seq 100); do
                has_line 'watching:' && return 0
                sleep 0.1
        done
        logs >&2
        ra_fail "the agent did not start"
}
# logs [CONTAINER]: its log, the agent's by default (podman kube play names
# the container POD-CONTAINER).
logs() { podman logs "${1:-readahead-agent-readahead-agent}" 2>&1; }
# has_line REGEX [CONTAINER]: that log has a line that matches. It is read
# whole first: under pipefail, `logs | grep -q` fails when grep quits at a
# match before podman has written the rest.
has_line() {
        local text
        text=$(logs "${@:2}")
        grep -q -- "$1" <<<"$text"
}
# On a failure: the agent's log and what readahead-ctl sees in the pod.
show_pod() {
        logs
        echo "--- readahead-ctl status in the pod:"
        podman exec readahead-agent-readahead-agent /usr/bin/readahead-ctl status 2>&1 || true
}
