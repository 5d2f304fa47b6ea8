#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/bench.sh: what readahead-agent costs udev, next to doing nothing, to
# the cheapest possible helper, and to nfs-utils' nfsrahead.
#
#  1. change storm: N sparse loop devices (default 200), then
#       udevadm trigger --action=change --subsystem-match=block \
#               --sysname-match='loop*' <the bench's /sys paths>; udevadm settle
#     timed R times (median) with one of these in /run/udev/rules.d, the
#     variants interleaved round by round so drift hits them all alike:
#       none     no rule (an empty file masks an installed one)
#       trivial  RUN+=bench/trivial.c (exits 0) on block change disk, as our rule runs the agent
#       agent    our rule: the installed /usr/lib/udev/rules.d one if there is
#                one, else the template with the build-tree agent
#       nfsrahead  99-nfs.rules adapted to the same events:
#                PROGRAM="/usr/libexec/nfsrahead %k", ATTR{queue/read_ahead_kb}="%c"
#  2. per call: peak RSS (/usr/bin/time -f %M), instructions (valgrind
#     --tool=callgrind, "Collected"), wall time, of the agent run by hand with
#     a real event environment (one of the loops, ACTION=change), dry run and
#     real write, of the trivial program and of nfsrahead.
#  3. add storm: attaching N loop devices that did not exist (each adds a
#     block device and a bdi: bdi add, block add, block change), with no rule,
#     with nfsrahead's own 99-nfs.rules, with ours, R_ADD times (median).
#  4. mount storm: N FUSE mounts (tests/real/fuse-null.c, no libfuse), each
#     an anonymous bdi "0:N" like an NFS mount: the agent's bdi path, next to
#     no rule, 99-nfs.rules, the libudev program, and the libudev program
#     that also reads /proc/self/mountinfo (what finding the mount costs
#     whoever does it), R_ADD times (median). Skipped without FUSE.
#
# Prints raw numbers on stderr and markdown tables on stdout (and in -o FILE).
# Everything is undone on exit: loops detached, the devices it created
# removed, rule files restored, rules reloaded, files deleted, and udevd
# stopped if this script started it.
#
# Needs root. Run from anywhere:
#   cmake -S . -B build -DCMAKE_INSTALL_PREFIX=/usr && cmake --build build
#   sudo bench/bench.sh -B build            # or with the agent installed
#   sudo bench/bench.sh -n 400 -r 7 -o bench.md

set -euo pipefail

SELF_DIR=$(cd "$(dirname "$0")" && pwd)
SRC_DIR=$(cd "$SELF_DIR/.." && pwd)
# The helpers of tests/real (and through it tests/udevd.sh): the udev lock,
# udevd, loop support, traps, waiting for a helper's output.
# shellcheck source=tests/real/lib.sh
. "$SRC_DIR/tests/real/lib.sh"

N=200
R=5
R_ADD=5
BASE=""
BUILD_DIR=${RA_BUILD_DIR:-}
AGENT=""
CONF_ROOT=""
DO_CHANGE=1
DO_CALLS=1
DO_ADD=1
DO_MOUNT=1
OUT=""
CALLS=200 # direct invocations timed per program for wall time/call

usage() {
        cat <<EOF
usage: $0 [options]
  -n N       loop devices (default $N, at least 200 unless -f)
  -r R       change-storm repetitions per variant, median reported (default $R)
  -R R       add-storm repetitions per variant (default $R_ADD)
  -B DIR     build directory with readahead-agent and testroot/
             (default \$RA_BUILD_DIR, else $SRC_DIR/build)
  -a PATH    agent binary to use (overrides -B and the installed one)
  -c DIR     config root passed as --root to that agent (default BUILD/testroot)
  -b INDEX   first loop index to create (default: above every existing one)
  -C         skip the change storm     -P  skip per-call numbers
  -A         skip the add storm        -M  skip the FUSE mount storm
  -f         allow N < 200 (quick runs)
  -o FILE    also write the markdown tables to FILE
EOF
}

force_small=0
while getopts "n:r:R:B:a:c:b:CPAMfo:h" opt; do
        case $opt in
        n) N=$OPTARG ;;
        r) R=$OPTARG ;;
        R) R_ADD=$OPTARG ;;
        B) BUILD_DIR=$OPTARG ;;
        a) AGENT=$OPTARG ;;
        c) CONF_ROOT=$OPTARG ;;
        b) BASE=$OPTARG ;;
        C) DO_CHANGE=0 ;;
        P) DO_CALLS=0 ;;
        A) DO_ADD=0 ;;
        M) DO_MOUNT=0 ;;
        f) force_small=1 ;;
        o) OUT=$OPTARG ;;
        h) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
        esac
done
[[ $N =~ ^[0-9]+$ && $R =~ ^[1-9][0-9]*$ && $R_ADD =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 2; }
if [ "$N" -lt 200 ] && [ "$force_small" = 0 ]; then
        echo "bench: -n $N: use at least 200 devices (or -f for a quick run)" >&2
        exit 2
fi
[ "$N" -ge 1 ] || { echo "bench: -n must be at least 1" >&2; exit 2; }

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (udev rules, loop devices)"
for t in udevadm losetup truncate cc awk sort; do
        command -v "$t" >/dev/null || die "$t is not installed"
done

RULE_DIR=/run/udev/rules.d
RULE_AGENT=$RULE_DIR/99-readahead-agent.rules
RULE_99=$RULE_DIR/99-nfs.rules
INSTALLED_RULE=/usr/lib/udev/rules.d/99-readahead-agent.rules
INSTALLED_AGENT=/usr/libexec/readahead-agent
NFSRAHEAD=/usr/libexec/nfsrahead
NFS_RULE=""
for f in /usr/lib/udev/rules.d/99-nfs.rules /lib/udev/rules.d/99-nfs.rules /etc/udev/rules.d/99-nfs.rules; do
        [ -e "$f" ] && { NFS_RULE=$f; break; }
done

W=""
SAVED_AGENT=""
SAVED_99=""
RULES_TOUCHED=0
IDX=()     # loop indices this script created and still owns
FUSE_PID="" # the fuse-null serving the mount storm's mounts

# ---------------------------------------------------------------- cleanup --

detach_and_remove() {
        # detach_and_remove: undoes every loop device in IDX.
        local i dev bf
        [ "${#IDX[@]}" -gt 0 ] || return 0
        for i in "${IDX[@]}"; do
                dev=/dev/loop$i
                bf=$(cat "/sys/block/loop$i/loop/backing_file" 2>/dev/null || true)
                # Only a device bound to one of our files is ours to detach.
                if [ -n "$bf" ] && [[ $bf == "$W"/* ]]; then
                        losetup -d "$dev" 2>/dev/null || log "could not detach $dev"
                fi
        done
        udevadm settle --timeout=120 || true
        "$W/loopctl" remove "${IDX[@]}" 2>/dev/null || {
                # EBUSY while udev still holds one open: settle and retry once.
                sleep 1
                udevadm settle --timeout=120 || true
                for i in "${IDX[@]}"; do
                        [ -e "/sys/block/loop$i" ] && "$W/loopctl" remove "$i"
                done
        }
        udevadm settle --timeout=120 || true
        IDX=()
}

# fuse_down: ends the mount storm's helper; it unmounts what it mounted.
fuse_down() {
        local m
        if [ -n "$FUSE_PID" ]; then
                kill -TERM "$FUSE_PID" 2>/dev/null && wait "$FUSE_PID" 2>/dev/null
                FUSE_PID=""
        fi
        if [ -d "$W/mnt" ]; then
                for m in "$W"/mnt/*; do
                        mountpoint -q "$m" 2>/dev/null && umount -l "$m"
                done
        fi
        udevadm settle --timeout=120 || true
}

cleanup() {
        local rc=$?
        set +e
        trap - EXIT INT TERM HUP
        if [ -n "$W" ]; then
                fuse_down
                detach_and_remove
        fi
        if [ "$RULES_TOUCHED" = 1 ]; then
                rm -f "$RULE_AGENT" "$RULE_99"
                [ -n "$SAVED_AGENT" ] && mv -f "$SAVED_AGENT" "$RULE_AGENT"
                [ -n "$SAVED_99" ] && mv -f "$SAVED_99" "$RULE_99"
                udevadm control --reload
        fi
        ra_udevd_stop
        [ -n "$W" ] && rm -rf "$W"
        exit "$rc"
}
ra_traps cleanup
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR

# ------------------------------------------------------------------ setup --

# The lock of tests/real: one owner of udevd and /run/udev/rules.d at a time.
ra_lock 600 || die "a test or another bench run holds $RA_LOCK"

ra_udevd_start || die "$RA_UDEVD_ERROR"
KMSG_START=$(ra_udevd_kmsg_lines)
ra_loop_control || die "no loop device support"

W=$(mktemp -d /tmp/ra-bench.XXXXXX)
mkdir -p "$W/img"
cc -O2 -o "$W/trivial" "$SELF_DIR/trivial.c"
cc -O2 -o "$W/trivial-udev" "$SELF_DIR/trivial-udev.c" -ludev
cc -O2 -o "$W/loopctl" "$SELF_DIR/loopctl.c"
FUSE_NULL=""
if [ "$DO_MOUNT" = 1 ]; then
        [ -c /dev/fuse ] || modprobe fuse 2>/dev/null || true
        if [ -c /dev/fuse ] && command -v mountpoint >/dev/null &&
                cc -O2 -o "$W/fuse-null" "$SRC_DIR/tests/real/fuse-null.c" 2>/dev/null; then
                FUSE_NULL=$W/fuse-null
        else
                log "no FUSE (or tests/real/fuse-null.c does not build): mount storm skipped"
                DO_MOUNT=0
        fi
fi

# Which agent, and which rule runs it.
AGENT_MODE=""
if [ -n "$AGENT" ]; then
        AGENT_MODE=given
elif [ -e "$INSTALLED_RULE" ] && [ -x "$INSTALLED_AGENT" ]; then
        AGENT=$INSTALLED_AGENT
        AGENT_MODE=installed
else
        [ -n "$BUILD_DIR" ] || BUILD_DIR=$SRC_DIR/build
        AGENT=$BUILD_DIR/readahead-agent
        AGENT_MODE=build
fi
[ -x "$AGENT" ] || die "no agent at $AGENT (build it, or use -B/-a)"
# udev runs the rule's program from /: every path in it must be absolute.
AGENT=$(realpath "$AGENT")
if [ "$AGENT_MODE" != installed ] && [ -z "$CONF_ROOT" ]; then
        [ -n "$BUILD_DIR" ] || BUILD_DIR=$(dirname "$AGENT")
        CONF_ROOT=$BUILD_DIR/testroot
        [ -d "$CONF_ROOT" ] || die "no config root at $CONF_ROOT (build the testroot target, or -c)"
fi
AGENT_ARGS=()
[ -n "$CONF_ROOT" ] && CONF_ROOT=$(realpath "$CONF_ROOT") && AGENT_ARGS=(--root "$CONF_ROOT")
case "$AGENT ${AGENT_ARGS[*]}" in
*[[:space:]]*[[:space:]]*[[:space:]]* | *\"* | *%*)
        # "agent --root DIR" has two spaces; more means a path with one.
        die "agent path or config root contains characters a udev rule cannot carry" ;;
esac
log "agent: $AGENT ${AGENT_ARGS[*]} ($AGENT_MODE)"

# Loop indices: N consecutive ones above everything that exists now.
if [ -z "$BASE" ]; then
        BASE=$(ls /sys/block /dev 2>/dev/null | sed -n 's/^loop\([0-9][0-9]*\)$/\1/p' | sort -n | tail -1)
        BASE=$(((${BASE:-0} / 100 + 1) * 100))
fi
for ((i = BASE; i < BASE + N; i++)); do
        [ ! -e "/sys/block/loop$i" ] || die "loop$i exists; choose another -b"
done
# Add-storm devices come after the change-storm ones.
ADD_BASE=$((BASE + N))

# The rules this script swaps. Anything already in /run is put back at exit.
mkdir -p "$RULE_DIR"
if [ -e "$RULE_AGENT" ] || [ -L "$RULE_AGENT" ]; then
        SAVED_AGENT=$W/saved-agent.rules
        mv "$RULE_AGENT" "$SAVED_AGENT"
fi
if [ -e "$RULE_99" ] || [ -L "$RULE_99" ]; then
        SAVED_99=$W/saved-99.rules
        mv "$RULE_99" "$SAVED_99"
fi
RULES_TOUCHED=1

# Variant rules. Each is written as /run/udev/rules.d/99-readahead-agent.rules,
# which masks an installed rule of that name; 99-nfs.rules is masked (empty
# file) except in the add storm's nfsrahead variant.
MATCH='ACTION=="change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk"'
rule_text() {
        case $1 in
        none) printf '# bench: no rule (masks an installed one)\n' ;;
        trivial) printf '%s, RUN+="%s"\n' "$MATCH" "$W/trivial" ;;
        trivial-udev) printf '%s, RUN+="%s"\n' "$MATCH" "$W/trivial-udev" ;;
        nfsrahead) printf '%s, PROGRAM="%s %%k", ATTR{queue/read_ahead_kb}="%%c"\n' "$MATCH" "$NFSRAHEAD" ;;
        trivial-bdi) printf 'SUBSYSTEM=="bdi", ACTION=="add", PROGRAM="%s %%k"\n' "$W/trivial" ;;
        trivial-udev-bdi)
                # The floor for our bdi rule: the same match and the same
                # IMPORT{program}, of a program that only reads its event.
                printf 'SUBSYSTEM=="bdi", ACTION=="add", KERNEL=="0:*|btrfs-*", IMPORT{program}="%s"\n' "$W/trivial-udev" ;;
        mountinfo-udev-bdi)
                # The same, also reading mountinfo: the floor of finding the mount.
                printf 'SUBSYSTEM=="bdi", ACTION=="add", KERNEL=="0:*|btrfs-*", IMPORT{program}="%s --mountinfo"\n' "$W/trivial-udev" ;;
        agent-bdi)
                # Our rule without its block branch: what the bdi part alone
                # costs a storm of bdi add events.
                sed -e "s|@RA_AGENT_PATH@|$AGENT ${AGENT_ARGS[*]}|g" -e '/SUBSYSTEM=="block", GOTO=/d' \
                        "$SRC_DIR/rules/99-readahead-agent.rules.in" ;;
        agent-fuse)
                # Our rule with a config root whose drop-in sets FUSE mounts.
                sed "s|@RA_AGENT_PATH@|$AGENT --root $W/root-fuse|g" "$SRC_DIR/rules/99-readahead-agent.rules.in" ;;
        agent)
                if [ "$AGENT_MODE" = installed ]; then
                        return 1 # the installed file itself
                fi
                # >>> readahead-agent bdi rule <<<
                # The bdi section (SUBSYSTEM=="bdi") lives in the same template
                # and comes along here. Should it move to a file of its own,
                # emit that file here too, with @RA_AGENT_PATH@ replaced the
                # same way, and the add storm below measures it unchanged.
                sed "s|@RA_AGENT_PATH@|$AGENT ${AGENT_ARGS[*]}|g" "$SRC_DIR/rules/99-readahead-agent.rules.in"
                ;;
        esac
}
# What our rule does on a loop device's bdi add event (bdi "7:N").
agent_bdi_note() {
        local f=$SRC_DIR/rules/99-readahead-agent.rules.in
        [ "$AGENT_MODE" = installed ] && f=$INSTALLED_RULE
        if ! grep -qs 'SUBSYSTEM=="bdi"' "$f"; then
                echo "block add/change; **no bdi rule yet**"
        elif grep -qs 'SUBSYSTEM=="bdi".*KERNEL=="0:\*"' "$f"; then
                echo "block add/change; its bdi rule matches only anonymous 0:N bdis, so it runs nothing for 7:N"
        else
                echo "block add/change and bdi add"
        fi
}

# use_rules VARIANT [nfs]: installs the variant; "nfs" keeps 99-nfs.rules live.
CURRENT=""
use_rules() {
        local key="$1 ${2:-}"
        [ "$CURRENT" = "$key" ] && return 0
        rm -f "$RULE_AGENT"
        if rule_text "$1" >"$W/rule.tmp"; then
                mv "$W/rule.tmp" "$RULE_AGENT"
        fi
        if [ "${2:-}" = nfs ]; then
                rm -f "$RULE_99"
        else
                : >"$RULE_99"
        fi
        udevadm control --reload
        CURRENT=$key
}

now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }

# attach_range FIRST COUNT: sparse 20 GiB files on /dev/loopFIRST...
attach_range() {
        local first=$1 count=$2 i f
        for ((i = first; i < first + count; i++)); do
                f=$W/img/$i.img
                [ -e "$f" ] || truncate -s 20G "$f"
                IDX+=("$i")
                losetup "/dev/loop$i" "$f" || die "losetup /dev/loop$i failed"
        done
}

MD=$W/report.md
{
        echo "### readahead-agent udev cost"
        echo
        # Relative to the source tree when inside it: the report names no
        # machine's checkout (bench/README.md quotes it).
        echo "$(uname -r), $(nproc) CPUs, udev $(udevadm --version), N=$N loop devices, agent: \`${AGENT#"$SRC_DIR"/}\` ($AGENT_MODE)."
        echo
} >"$MD"

# ----------------------------------------------------------- change storm --

SYSPATHS=()
if [ "$DO_CHANGE" = 1 ] || [ "$DO_CALLS" = 1 ]; then
        use_rules none
        log "creating $N sparse loop devices loop$BASE..loop$((BASE + N - 1))"
        attach_range "$BASE" "$N"
        udevadm settle --timeout=300
        for ((i = BASE; i < BASE + N; i++)); do
                SYSPATHS+=("/sys/devices/virtual/block/loop$i")
        done
fi

storm() {
        udevadm trigger --action=change --subsystem-match=block --sysname-match='loop*' "${SYSPATHS[@]}"
        udevadm settle --timeout=300
}

declare -A CH_MED
if [ "$DO_CHANGE" = 1 ]; then
        VARIANTS=(none trivial trivial-udev agent)
        if [ -x "$NFSRAHEAD" ]; then VARIANTS+=(nfsrahead); else log "no $NFSRAHEAD: nfsrahead variant skipped"; fi
        declare -A CH_RAW
        for ((r = 1; r <= R; r++)); do
                for v in "${VARIANTS[@]}"; do
                        use_rules "$v"
                        storm # warm-up: rules parsed, agent's first write done
                        t0=$(now_ns)
                        storm
                        t1=$(now_ns)
                        CH_RAW[$v]+="$((t1 - t0)) "
                        log "change storm round $r/$R $v: $(ms $((t1 - t0))) ms"
                done
        done
        # What the agent left on the devices, as a sanity check.
        use_rules agent
        storm
        vals=$(for p in "${SYSPATHS[@]}"; do cat "$p/queue/read_ahead_kb"; done | sort | uniq -c | awk '{ printf "%s x %s KiB; ", $1, $2 }')
        log "read_ahead_kb after the agent's rule: $vals"
        # A rule that ran but decided nothing would make the numbers above meaningless.
        want=$(env -i DEVPATH="${SYSPATHS[0]#/sys}" SUBSYSTEM=block DEVTYPE=disk ACTION=change SEQNUM=1 \
                "$AGENT" "${AGENT_ARGS[@]}" --dry-run | sed -n 's/^READAHEAD_TARGET_KB=//p')
        [ "$vals" = "$N x $want KiB; " ] || die "the agent's rule left '$vals', not $N x ${want:-?} KiB"
        use_rules none
        for v in "${VARIANTS[@]}"; do
                # shellcheck disable=SC2086
                CH_MED[$v]=$(printf '%s\n' ${CH_RAW[$v]} | median)
        done
        base=${CH_MED[none]}
        {
                echo "#### change storm: \`udevadm trigger --action=change\` on $N loop devices + \`udevadm settle\`, median of $R"
                echo
                echo "| rule on block change (disk) | wall ms | ms/event | added ms/event vs no rule |"
                echo "|---|---:|---:|---:|"
                for v in "${VARIANTS[@]}"; do
                        case $v in
                        none) label="no rule" ;;
                        trivial) label="\`RUN\` of a program that exits 0" ;;
                        trivial-udev) label="the same, linked to libudev, reading its event" ;;
                        agent) label="readahead-agent (\`RUN\`)" ;;
                        nfsrahead) label="nfsrahead (\`PROGRAM\` + \`ATTR{queue/read_ahead_kb}\`)" ;;
                        esac
                        awk -v l="$label" -v t="${CH_MED[$v]}" -v b="$base" -v n="$N" -v v="$v" 'BEGIN {
                                add = (v == "none") ? "-" : sprintf("%+.3f", (t - b) / 1e6 / n)
                                printf "| %s | %.1f | %.3f | %s |\n", l, t / 1e6, t / 1e6 / n, add }'
                done
                echo
                echo "Events are handled by several udev workers in parallel, so ms/event is wall time divided by events, not the time one event takes. Values left by the agent: ${vals%; }."
                echo
        } >>"$MD"
fi

# -------------------------------------------------------------- per call --

if [ "$DO_CALLS" = 1 ]; then
        use_rules none
        dev=loop$BASE
        # As udev hands it to a helper: the device's properties, this action.
        mapfile -t EVENV < <(udevadm info --query=property --path="/devices/virtual/block/$dev" | grep -v -e '^READAHEAD_' -e '^ACTION=')
        # libudev takes a device from the environment only with a SEQNUM, as
        # udev gives every event; without it the agent sees no event and
        # exits at once, and the numbers would measure nothing.
        EVENV+=(ACTION=change SEQNUM=1)
        log "event environment for the direct calls: ${EVENV[*]}"
        ra_file=/sys/block/$dev/queue/read_ahead_kb
        bdi=$(cat "/sys/block/$dev/dev")

        # Each entry: label, setup, command, and a line its output must have
        # (what the call did), checked once before it is measured.
        CALL_LABELS=()
        CALL_CMDS=()
        CALL_PRE=()
        CALL_EXPECT=()
        add_call() { CALL_LABELS+=("$1"); CALL_PRE+=("$2"); CALL_CMDS+=("$3"); CALL_EXPECT+=("${4:-}"); }
        q() { printf '%q ' "$@"; }
        add_call "readahead-agent --dry-run" ":" "$(q "$AGENT" "${AGENT_ARGS[@]}" --dry-run)" READAHEAD_RESULT=dry-run
        add_call "readahead-agent (value already right)" ":" "$(q "$AGENT" "${AGENT_ARGS[@]}")" READAHEAD_RESULT=unchanged
        add_call "readahead-agent (writes)" "echo 4096 > $ra_file" "$(q "$AGENT" "${AGENT_ARGS[@]}")" READAHEAD_RESULT=written
        add_call "trivial (exit 0)" ":" "$(q "$W/trivial")"
        add_call "trivial + libudev (reads the event)" ":" "$(q "$W/trivial-udev")"
        if [ -x "$NFSRAHEAD" ]; then
                add_call "nfsrahead $dev (block change)" ":" "$(q "$NFSRAHEAD" "$dev")"
                add_call "nfsrahead $bdi (bdi add)" ":" "$(q "$NFSRAHEAD" "$bdi")"
        fi

        # in_env CMD...: CMD (a quoted string) with exactly the event environment.
        in_env() { eval "env -i \"\${EVENV[@]}\" $*" </dev/null; }
        # Makes the dry-run and "already right" calls see a settled device.
        in_env "$(q "$AGENT" "${AGENT_ARGS[@]}")" >/dev/null 2>&1 || true
        have_time=0; [ -x /usr/bin/time ] && have_time=1
        VALGRIND=$(command -v valgrind || true)
        {
                echo "#### per call, run by hand with the event environment of \`$dev\` (ACTION=change)"
                echo
                echo "| program | peak RSS KiB | instructions (callgrind) | wall µs/call (mean of $CALLS) | µs over \`/bin/true\` |"
                echo "|---|---:|---:|---:|---:|"
        } >>"$MD"
        for k in "${!CALL_LABELS[@]}"; do
                label=${CALL_LABELS[$k]}
                pre=${CALL_PRE[$k]}
                cmd=${CALL_CMDS[$k]}
                if [ -n "${CALL_EXPECT[$k]}" ]; then
                        eval "$pre"
                        out=$(in_env "$cmd" 2>&1 || true)
                        grep -qx "${CALL_EXPECT[$k]}" <<<"$out" ||
                                die "per call: $label: expected ${CALL_EXPECT[$k]}, got: $out"
                fi
                rss="n/a"
                if [ "$have_time" = 1 ]; then
                        rss=$(for _ in 1 2 3 4 5; do
                                eval "$pre"
                                in_env /usr/bin/time -f %M -o "$W/time.out" "$cmd" >/dev/null 2>&1 || true
                                cat "$W/time.out"
                        done | median)
                fi
                ins="n/a"
                if [ -n "$VALGRIND" ]; then
                        eval "$pre"
                        ins=$(in_env "$VALGRIND" --tool=callgrind --callgrind-out-file=/dev/null "$cmd" 2>&1 >/dev/null |
                                sed -n 's/.*Collected : *\([0-9][0-9]*\).*/\1/p' | head -1 || true)
                        [ -n "$ins" ] || ins="n/a"
                fi
                t0=$(now_ns)
                for ((c = 0; c < CALLS; c++)); do
                        eval "$pre"
                        in_env "$cmd" >/dev/null 2>&1 || true
                done
                t1=$(now_ns)
                # The same loop around /bin/true: what fork + env + exec cost.
                if [ -z "${LOOP_NS:-}" ]; then
                        s0=$(now_ns)
                        for ((c = 0; c < CALLS; c++)); do
                                in_env /bin/true >/dev/null 2>&1 || true
                        done
                        s1=$(now_ns)
                        LOOP_NS=$(((s1 - s0) / CALLS))
                fi
                us=$(awk -v t="$((t1 - t0))" -v c="$CALLS" 'BEGIN { printf "%.0f", t / c / 1000 }')
                log "per call: $label: rss=$rss KiB, instructions=$ins, $us µs/call (loop with /bin/true: $((LOOP_NS / 1000)) µs)"
                over=$(awk -v u="$us" -v l="$LOOP_NS" 'BEGIN { printf "%+.0f", u - l / 1000 }')
                printf '| %s | %s | %s | %s | %s |\n' "$label" "$rss" "$ins" "$us" "$over" >>"$MD"
        done
        {
                echo
                echo "Wall time includes the fork of the shell and \`env -i\` around each call, measured at $((LOOP_NS / 1000)) µs with \`/bin/true\`. The writing call is preceded by \`echo 4096 > read_ahead_kb\`; each agent call was checked to do what its label says (its READAHEAD_RESULT). Instructions count every instruction of the process (dynamic loader included)."
                echo
        } >>"$MD"
        in_env "$(q "$AGENT" "${AGENT_ARGS[@]}")" >/dev/null 2>&1 || true
fi

# The change-storm devices are done with.
use_rules none
detach_and_remove

# -------------------------------------------------------------- add storm --

if [ "$DO_ADD" = 1 ]; then
        ADD_VARIANTS=(none trivial-bdi)
        [ -n "$NFS_RULE" ] && [ -x "$NFSRAHEAD" ] && ADD_VARIANTS+=(nfsrahead-99) || log "no 99-nfs.rules: nfsrahead add-storm variant skipped"
        ADD_VARIANTS+=(agent-bdi agent)
        declare -A ADD_RAW
        add_round() {
                # add_round VARIANT: times attaching N new loop devices into
                # ADD_NS. Not in a subshell: IDX must stay right for cleanup.
                case $1 in
                none) use_rules none ;;
                trivial-bdi) use_rules trivial-bdi ;;
                nfsrahead-99) use_rules none nfs ;;
                agent) use_rules agent ;;
                agent-bdi) use_rules agent-bdi ;;
                esac
                local t0 t1
                udevadm settle --timeout=300
                t0=$(now_ns)
                attach_range "$ADD_BASE" "$N"
                udevadm settle --timeout=300
                t1=$(now_ns)
                # Teardown is not timed, and runs with no rule.
                use_rules none
                detach_and_remove
                ADD_NS=$((t1 - t0))
        }
        for v in "${ADD_VARIANTS[@]}"; do add_round "$v"; done # warm-up
        for ((r = 1; r <= R_ADD; r++)); do
                for v in "${ADD_VARIANTS[@]}"; do
                        add_round "$v"
                        t=$ADD_NS
                        ADD_RAW[$v]+="$t "
                        log "add storm round $r/$R_ADD $v: $(ms "$t") ms"
                done
        done
        declare -A ADD_MED
        for v in "${ADD_VARIANTS[@]}"; do
                # shellcheck disable=SC2086
                ADD_MED[$v]=$(printf '%s\n' ${ADD_RAW[$v]} | median)
        done
        base=${ADD_MED[none]}
        bdi_note=$(agent_bdi_note)
        {
                echo "#### add storm: attaching $N new loop devices (bdi add + block add + block change each) + \`udevadm settle\`, median of $R_ADD"
                echo
                echo "| rules | wall ms | ms per device | added ms per device vs no rule |"
                echo "|---|---:|---:|---:|"
                for v in "${ADD_VARIANTS[@]}"; do
                        case $v in
                        none) label="no rule (99-nfs.rules masked)" ;;
                        trivial-bdi) label="\`PROGRAM\` of a program that exits 0 on bdi add" ;;
                        nfsrahead-99) label="nfs-common's 99-nfs.rules (nfsrahead on bdi add)" ;;
                        agent) label="readahead-agent ($bdi_note)" ;;
                        agent-bdi) label="readahead-agent, bdi part only (guarded by \`KERNEL==\"0:*\"\`)" ;;
                        esac
                        awk -v l="$label" -v t="${ADD_MED[$v]}" -v b="$base" -v n="$N" -v v="$v" 'BEGIN {
                                add = (v == "none") ? "-" : sprintf("%+.3f", (t - b) / 1e6 / n)
                                printf "| %s | %.1f | %.3f | %s |\n", l, t / 1e6, t / 1e6 / n, add }'
                done
                echo
                echo "Wall time includes \`losetup\` itself ($N processes). Each loop adds a bdi named 7:N; nfsrahead runs for every bdi add and looks it up in mountinfo."
                echo
        } >>"$MD"
fi

# ------------------------------------------------------------ mount storm --

if [ "$DO_MOUNT" = 1 ]; then
        MOUNT_VARIANTS=(none trivial-udev-bdi mountinfo-udev-bdi)
        [ -n "$NFS_RULE" ] && [ -x "$NFSRAHEAD" ] && MOUNT_VARIANTS+=(nfsrahead-99)
        MOUNT_VARIANTS+=(agent)
        if [ -n "$CONF_ROOT" ]; then
                # The agent writing, as it would for NFS: a drop-in for FUSE.
                mkdir -p "$W/root-fuse"
                cp -a "$CONF_ROOT/." "$W/root-fuse/"
                mkdir -p "$W/root-fuse/etc/readahead-agent/profiles/default.conf.d"
                printf '[Rule bench-fuse]\nClass=fuse\nSize=1M\n' \
                        >"$W/root-fuse/etc/readahead-agent/profiles/default.conf.d/50-bench-fuse.conf"
                MOUNT_VARIANTS+=(agent-fuse)
        fi
        mkdir -p "$W/mnt"
        MPS=()
        for ((i = 0; i < N; i++)); do
                mkdir -p "$W/mnt/$i"
                MPS+=("$W/mnt/$i")
        done
        mount_round() {
                # mount_round VARIANT: times N FUSE mounts into MOUNT_NS.
                case $1 in
                none) use_rules none ;;
                trivial-udev-bdi) use_rules trivial-udev-bdi ;;
                mountinfo-udev-bdi) use_rules mountinfo-udev-bdi ;;
                nfsrahead-99) use_rules none nfs ;;
                agent) use_rules agent ;;
                agent-fuse) use_rules agent-fuse ;;
                esac
                local t0 t1
                udevadm settle --timeout=300
                : >"$W/fuse.out"
                t0=$(now_ns)
                "$FUSE_NULL" "${MPS[@]}" >"$W/fuse.out" 2>&1 &
                FUSE_PID=$!
                ra_wait_output "$W/fuse.out" ready "$FUSE_PID" 6000 0.01 ||
                        { cat "$W/fuse.out" >&2; die "fuse-null did not mount"; }
                udevadm settle --timeout=300
                t1=$(now_ns)
                # FUSE writes are done by the detached waiter after the
                # daemon's FUSE_INIT answer: give it (untimed) a moment.
                sleep 2
                MOUNT_VALS=$(for m in "${MPS[@]}"; do cat "/sys/class/bdi/$(mountpoint -d "$m")/read_ahead_kb"; done |
                        sort | uniq -c | awk '{ printf "%s x %s KiB; ", $1, $2 }')
                use_rules none
                fuse_down
                MOUNT_NS=$((t1 - t0))
        }
        for v in "${MOUNT_VARIANTS[@]}"; do mount_round "$v"; done # warm-up
        declare -A MOUNT_RAW MOUNT_MED MOUNT_LEFT
        for ((r = 1; r <= R_ADD; r++)); do
                for v in "${MOUNT_VARIANTS[@]}"; do
                        mount_round "$v"
                        MOUNT_RAW[$v]+="$MOUNT_NS "
                        MOUNT_LEFT[$v]=${MOUNT_VALS%; }
                        log "mount storm round $r/$R_ADD $v: $(ms "$MOUNT_NS") ms ($MOUNT_VALS)"
                done
        done
        for v in "${MOUNT_VARIANTS[@]}"; do
                # shellcheck disable=SC2086
                MOUNT_MED[$v]=$(printf '%s\n' ${MOUNT_RAW[$v]} | median)
        done
        base=${MOUNT_MED[none]}
        {
                echo "#### mount storm: $N FUSE mounts (one anonymous 0:N bdi add each) + \`udevadm settle\`, median of $R_ADD"
                echo
                echo "| rules | wall ms | ms per mount | added ms per mount vs no rule | read_ahead_kb left (last round) |"
                echo "|---|---:|---:|---:|---|"
                for v in "${MOUNT_VARIANTS[@]}"; do
                        case $v in
                        none) label="no rule (99-nfs.rules masked)" ;;
                        trivial-udev-bdi) label="\`IMPORT{program}\` of a program linked to libudev, reading its event" ;;
                        mountinfo-udev-bdi) label="the same program, also reading /proc/self/mountinfo once" ;;
                        nfsrahead-99) label="nfs-common's 99-nfs.rules (nfsrahead on bdi add)" ;;
                        agent) label="readahead-agent, default profile (FUSE: keep)" ;;
                        agent-fuse) label="readahead-agent, drop-in \`Class=fuse Size=1M\` (writes)" ;;
                        esac
                        awk -v l="$label" -v t="${MOUNT_MED[$v]}" -v b="$base" -v n="$N" -v v="$v" -v left="${MOUNT_LEFT[$v]}" 'BEGIN {
                                add = (v == "none") ? "-" : sprintf("%+.3f", (t - b) / 1e6 / n)
                                printf "| %s | %.1f | %.3f | %s | %s |\n", l, t / 1e6, t / 1e6 / n, add, left }'
                done
                echo
                awk -v a="${MOUNT_MED[agent]}" -v t="${MOUNT_MED[trivial-udev-bdi]}" -v b="$base" 'BEGIN {
                        if (t > b) printf "Added cost of readahead-agent (default profile) over the libudev program'"'"'s: %.2fx", (a - b) / (t - b)
                        else printf "The libudev program added nothing measurable: no ratio" }'
                awk -v a="${MOUNT_MED[agent]}" -v t="${MOUNT_MED[mountinfo-udev-bdi]}" -v b="$base" 'BEGIN {
                        if (t > b) printf "; over the one that also reads mountinfo: %.2fx.\n\n", (a - b) / (t - b)
                        else print ".\n" }'
                echo "FUSE stands in for NFS (no NFS client in this kernel): the same kind of bdi, added while mount(2) runs. The default profile leaves FUSE alone (Size=keep): the agent decides and writes nothing; with the drop-in it writes, as it would for NFS. The helper answers FUSE_INIT right after each mount(2) with the kernel's own max_readahead offer (128 KiB), as libfuse does; the kernel lowers the bdi to that when the reply arrives, so the agent hands FUSE writes to its detached waiter, which writes after that answer (tests/real/fuse-init-race.sh): \"read_ahead_kb left\" is counted 2 s after settle, untimed. The wall time includes the mount(2) calls."
                echo
        } >>"$MD"
fi

# A helper that is too slow gets its udev worker killed: say whether any was.
if [ "$RA_UDEVD_STARTED" = 1 ]; then
        kills=$(ra_udevd_worker_kills "$KMSG_START")
        if [ -n "$kills" ]; then
                log "udevd reported killed or timed-out workers:"
                printf '%s\n' "$kills" >&2
                echo "udev workers killed or timed out during the run: **$(wc -l <<<"$kills")** (see stderr)." >>"$MD"
        else
                echo "udev workers killed or timed out during the run: 0 (udevd, started by the bench, logs to the kernel log)." >>"$MD"
        fi
else
        echo "udev workers killed: not checked (a udevd was already running; its log is not ours to read)." >>"$MD"
fi

echo
cat "$MD"
[ -n "$OUT" ] && cp "$MD" "$OUT"
exit 0
