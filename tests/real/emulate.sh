# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Emulated devices with a known cost model, for the calibrate tests and
# bench/benefit: a direct-I/O loop device on a sparse file, read by a process
# in a cgroup that throttles its reads of that device to IOPS requests and
# BPS bytes a second. Throughput is then min(IOPS x request size, BPS).
# cgroup v1 blkio.throttle.read_{iops,bps}_device where the blkio controller
# is mounted, else cgroup v2 io.max (riops=, rbps=). A memory limit can be
# added (memory.limit_in_bytes, or memory.max).
#
# cgroup v2 under systemd: the cgroups go below RA_EMU_CGROUP_PARENT, a
# cgroup systemd delegated to the test (a unit with Delegate=yes, the test's
# own processes moved out of it into a leaf); default the hierarchy's root.
#
#   ra_emu_cgroup NAME [-t MAJ:MIN IOPS BPS] [-m BYTES]
#       creates the cgroup(s) NAME; RA_EMU_PROCS lists their cgroup.procs
#   ra_emu_exec [-x] CMD...  runs CMD inside them (and waits); with -x the
#                          calling (sub)shell becomes CMD: `ra_emu_exec -x CMD &`
#                          leaves CMD's pid in $!
#   ra_emu_cgroup_remove   removes what ra_emu_cgroup created
#
# The caller removes its cgroups at exit; they must hold no process then.

RA_EMU_DIRS=()  # cgroup directories created, removed by ra_emu_cgroup_remove
RA_EMU_PROCS=() # their cgroup.procs files

# Prints the v1 mount point of a controller, or nothing.
ra_emu_v1_mount() {
        awk -v c="$1" '$3 == "cgroup" { n = split($4, o, ","); for (i = 1; i <= n; i++) if (o[i] == c) print $2 }' \
                /proc/mounts | head -n1
}

# Prints the cgroup2 mount point, or nothing.
ra_emu_v2_mount() {
        awk '$3 == "cgroup2" { print $2 }' /proc/mounts | head -n1
}

# _ra_emu_have V1_CONTROLLER V1_FILE V2_CONTROLLER: 0 if either hierarchy
# offers it.
_ra_emu_have() {
        local v1 v2
        v1=$(ra_emu_v1_mount "$1")
        [ -n "$v1" ] && [ -e "$v1/$2" ] && return 0
        v2=$(ra_emu_v2_mount)
        [ -n "$v2" ] && grep -qw "$3" "$v2/cgroup.controllers" 2>/dev/null
}

# 0 if reads can be throttled here; 0 if memory can be limited.
ra_emu_have_throttle() { _ra_emu_have blkio blkio.throttle.read_iops_device io; }
ra_emu_have_memory_limit() { _ra_emu_have memory memory.limit_in_bytes memory; }

_ra_emu_mkdir() {
        mkdir "$1" || return 1
        RA_EMU_DIRS+=("$1")
        RA_EMU_PROCS+=("$1/cgroup.procs")
}

ra_emu_cgroup() {
        local name=$1 majmin="" iops="" bps="" mem="" v1 v2 dir
        shift
        while [ $# -gt 0 ]; do
                case $1 in
                -t) majmin=$2 iops=$3 bps=$4; shift 4 ;;
                -m) mem=$2; shift 2 ;;
                *) echo "ra_emu_cgroup: unknown option $1" >&2; return 2 ;;
                esac
        done
        v1=$(ra_emu_v1_mount blkio)
        if [ -n "$majmin" ] && [ -n "$v1" ] && [ -e "$v1/blkio.throttle.read_iops_device" ]; then
                dir=$v1/$name
                _ra_emu_mkdir "$dir" || return 1
                echo "$majmin $iops" >"$dir/blkio.throttle.read_iops_device" || return 1
                echo "$majmin $bps" >"$dir/blkio.throttle.read_bps_device" || return 1
                majmin=""
        fi
        v1=$(ra_emu_v1_mount memory)
        if [ -n "$mem" ] && [ -n "$v1" ] && [ -e "$v1/memory.limit_in_bytes" ]; then
                dir=$v1/$name
                _ra_emu_mkdir "$dir" || return 1
                echo "$mem" >"$dir/memory.limit_in_bytes" || return 1
                # A reader whose readahead under I/O fills the limit was
                # OOM-killed (the pages are locked, reclaim finds nothing),
                # and the case watched an idle device; with the killer off
                # its read fails with ENOMEM and ra-workload reads again:
                # the limit slows it down instead of ending the run. (v2
                # has no such switch: the cases' retries stay for it.)
                echo 1 >"$dir/memory.oom_control" || return 1
                mem=""
        fi
        if [ -n "$majmin" ] || [ -n "$mem" ]; then
                # What v1 could not do, v2 must.
                v2=$(ra_emu_v2_mount)
                [ -n "$v2" ] || { echo "ra_emu_cgroup: no cgroup for throttling or memory" >&2; return 1; }
                v2=${RA_EMU_CGROUP_PARENT:-$v2}
                [ -z "$majmin" ] || echo +io >"$v2/cgroup.subtree_control" || return 1
                [ -z "$mem" ] || echo +memory >"$v2/cgroup.subtree_control" || return 1
                dir=$v2/$name
                _ra_emu_mkdir "$dir" || return 1
                [ -z "$majmin" ] || echo "$majmin riops=$iops rbps=$bps" >"$dir/io.max" || return 1
                [ -z "$mem" ] || echo "$mem" >"$dir/memory.max" || return 1
        fi
}

# Runs "$@" with this shell's child moved into the cgroups first.
ra_emu_exec() {
        local n=${#RA_EMU_PROCS[@]} how=""
        if [ "$1" = -x ]; then
                how=exec
                shift
        fi
        $how bash -c 'for f in "${@:1:'"$n"'}"; do echo $$ >"$f" || exit 125; done; shift '"$n"'; exec "$@"' \
                ra-emu "${RA_EMU_PROCS[@]}" "$@"
}

# Kills what still runs in the cgroups, then removes them. A caller
# interrupted mid-run leaves its workload behind: `timeout` puts the
# command in a process group of its own, which a signal to the caller's
# group misses, and it would keep the filesystem busy.
ra_emu_cgroup_remove() {
        local d i pid
        for d in "${RA_EMU_DIRS[@]}"; do
                [ -r "$d/cgroup.procs" ] || continue
                while read -r pid; do
                        kill -KILL "$pid" 2>/dev/null
                done <"$d/cgroup.procs"
        done
        for d in "${RA_EMU_DIRS[@]}"; do
                # A process that just exited can hold the cgroup a moment.
                for i in $(seq 50); do
                        rmdir "$d" 2>/dev/null && break
                        [ -d "$d" ] || break
                        sleep 0.1
                done
                [ ! -d "$d" ] || echo "ra_emu_cgroup_remove: could not remove $d" >&2
        done
        RA_EMU_DIRS=()
        RA_EMU_PROCS=()
}
