#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What libmount would cost the bdi path, against our parser
# (src/core/mountinfo.c). Prints Markdown tables:
#  1. one lookup by major:minor (read, parse, find, rsize) in this machine's
#     /proc/self/mountinfo, in a 5000-line FUSE-like file and in a 9 MiB
#     hostile file (300-byte escaped mount points, 1.1 KiB super options):
#     wall µs per lookup, instructions per lookup (callgrind), and
#     whole-process instructions and peak RSS for a single lookup, as one
#     agent event does it;
#  2. what linking libmount costs every exec of the agent (dynamic loader:
#     libmount, libblkid, libselinux, libpcre2-8), on every event, bdi or not.
#
#   bench/mountinfo-parse.sh [-B BUILD_DIR] [-n EXECS]
# Needs a configured and built BUILD_DIR (libracore.a, readahead-agent),
# cc, pkg-config mount (libmount-dev), valgrind, python3. Runs unprivileged.
set -euo pipefail

build=build
execs=1000
while getopts "B:n:" o; do
        case $o in
        B) build=$OPTARG ;;
        n) execs=$OPTARG ;;
        *) echo "usage: $0 [-B BUILD_DIR] [-n EXECS]" >&2; exit 2 ;;
        esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
for f in "$build/libracore.a" "$build/readahead-agent"; do
        [ -e "$f" ] || { echo "$0: $f missing: build first (cmake --build $build)" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "$0: valgrind is needed" >&2; exit 1; }

tmp=$(mktemp -d /tmp/mountinfo-parse.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The same flags as a RelWithDebInfo build of the agent.
cflags="-O2 -g -DNDEBUG -I$src/src/core"
libs="$build/libracore.a $(find /usr/lib -name libinih.a -print -quit 2>/dev/null || true) $(pkg-config --libs libudev inih)"
cc $cflags -o "$tmp/parse-ours" "$src/bench/mountinfo-parse.c" $libs
cc $cflags -DRA_BENCH_LIBMOUNT $(pkg-config --cflags mount) -o "$tmp/parse-libmount" \
        "$src/bench/mountinfo-parse.c" $libs $(pkg-config --libs mount)

# Inputs. The NFS mount looked up is always the last line: the whole file is
# read and parsed, as for a mount made after all the others.
nfs="9999 27 0:9053 / /mnt/data rw,relatime shared:9053 - nfs4 srv:/export rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=10.0.0.2,local_lock=none,addr=10.0.0.1"
{ cat /proc/self/mountinfo; echo "$nfs"; } >"$tmp/small"
python3 - "$tmp" "$nfs" <<'EOF'
import sys
tmp, nfs = sys.argv[1], sys.argv[2]
# 5000 FUSE mounts of a user (sshfs, rclone, ...), as /proc/self/mountinfo prints them.
with open(f"{tmp}/large", "w") as f:
    for i in range(5000):
        f.write(f"{1000 + i} 27 0:{100 + i} / /home/user/mnt/host{i:05d} rw,nosuid,nodev,relatime "
                f"shared:{900 + i} - fuse.sshfs user@host{i % 50}:/home/user rw,user_id=1000,group_id=1000\n")
    f.write(nfs + "\n")
# Hostile: 9 MiB of FUSE mounts with 300-byte mount points full of octal
# escapes (\040 space, \134 backslash, \012 newline) and 1.1 KiB of super
# options (tests/hostile big-mountinfo and no-truncation, together).
point = ("/home/user/mnt/a\\040b\\134c\\012d" + "x" * 280)
opts = "rw,user_id=1000,group_id=1000," + ",".join(f"opt{j}=value{j}" for j in range(80))
size, i = 0, 0
with open(f"{tmp}/hostile", "w") as f:
    while size < 9 << 20:
        line = (f"{1000 + i} 27 0:{100 + i % 4000} / {point}{i:07d} rw,nosuid,nodev,relatime "
                f"shared:{900 + i} - fuse.evil user@host:/x {opts}\n")
        f.write(line)
        size += len(line)
        i += 1
    f.write(nfs + "\n")
EOF

lines() { wc -l <"$1"; }
kib() { echo $(( $(stat -c %s "$1") / 1024 )); }

# Instructions of the whole process (dynamic loader included), by callgrind.
instructions() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
                sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
# Peak RSS in KiB of one run.
peak_rss() {
        /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
}

echo "$(uname -r), $(nproc) CPUs, libmount $(pkg-config --modversion mount), $(cc --version | head -1)"
echo
echo "#### One lookup by major:minor, as the bdi path does it (read, parse, find, rsize)"
echo
echo "| mountinfo | parser | wall µs/lookup | CPU µs/lookup | instructions/lookup | process instructions, 1 lookup | peak RSS KiB, 1 lookup | found |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
for input in proc small large hostile; do
        case $input in
        proc) file=/proc/self/mountinfo; dev=$(tail -1 /proc/self/mountinfo | cut -d' ' -f3); n=5000
              desc="this machine's /proc/self/mountinfo ($(lines $file) lines, last one)" ;;
        small) file=$tmp/small; dev=0:9053; n=5000
               desc="this machine's + 1 NFS line ($(lines $file) lines, $(kib $file) KiB)" ;;
        large) file=$tmp/large; dev=0:9053; n=200
               desc="5000 FUSE + 1 NFS ($(lines $file) lines, $(kib $file) KiB)" ;;
        hostile) file=$tmp/hostile; dev=0:9053; n=10
                 desc="hostile: escaped 300-byte points, 1.1 KiB options ($(lines $file) lines, $(kib $file) KiB)" ;;
        esac
        found_ours=
        for p in ours libmount; do
                bin=$tmp/parse-$p
                # Warm the page cache, then the timed loop: the median of 5
                # (wall and CPU time each).
                "$bin" "$p" "$file" "$dev" 1 >/dev/null
                runs=$(for _ in 1 2 3 4 5; do "$bin" "$p" "$file" "$dev" "$n"; done)
                us=$(cut -d' ' -f3 <<<"$runs" | sort -n | sed -n 3p)
                cpu=$(cut -d' ' -f4 <<<"$runs" | sort -n | sed -n 3p)
                found=$("$bin" "$p" "$file" "$dev" 1 | cut -d' ' -f5-)
                i1=$(instructions "$bin" "$p" "$file" "$dev" 1)
                i3=$(instructions "$bin" "$p" "$file" "$dev" 3)
                rss=$(peak_rss "$bin" "$p" "$file" "$dev" 1)
                echo "| $desc | $p | $us | $cpu | $(( (i3 - i1) / 2 )) | $i1 | $rss | $found |"
                if [ -z "$found_ours" ]; then
                        found_ours=$found
                elif [ "$found" != "$found_ours" ]; then
                        echo "$0: $input: libmount found '$found', ours '$found_ours'" >&2
                        exit 1
                fi
        done
done

# Startup: the cost of the shared objects alone, on every exec.
cat >"$tmp/trivial.c" <<'EOF'
int main(void) { return 0; }
EOF
cat >"$tmp/dlopen.c" <<'EOF'
#include <dlfcn.h>
int main(void) { return dlopen("libmount.so.1", RTLD_NOW) ? 0 : 1; }
EOF
cc -O2 -o "$tmp/trivial" "$tmp/trivial.c"
cc -O2 -o "$tmp/trivial-udev" "$tmp/trivial.c" -Wl,--no-as-needed $(pkg-config --libs libudev)
cc -O2 -o "$tmp/trivial-udev-mount" "$tmp/trivial.c" -Wl,--no-as-needed \
        $(pkg-config --libs libudev mount)
cc -O2 -o "$tmp/trivial-udev-dlopen" "$tmp/dlopen.c" -Wl,--no-as-needed $(pkg-config --libs libudev) -ldl
# The agent as built, and the same objects relinked with libmount as well.
(cd "$build" && eval "$(cat CMakeFiles/readahead-agent.dir/link.txt | sed "s| -o readahead-agent | -o $tmp/readahead-agent-libmount |") -Wl,--no-as-needed -lmount")
ldd "$tmp/readahead-agent-libmount" | grep -q libmount.so || { echo "$0: relink without libmount" >&2; exit 1; }

# Mean and median wall µs of N fork+exec+wait, without a shell in between.
exec_us() {
        python3 - "$execs" "$@" <<'EOF'
import os, statistics, sys, time
n, argv = int(sys.argv[1]), sys.argv[2:]
null = os.open(os.devnull, os.O_WRONLY)
t, cpu = [], []
for _ in range(n + 20):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, {}, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, _, ru = os.wait4(pid, 0)
    t.append(time.perf_counter_ns() - t0)
    cpu.append((ru.ru_utime + ru.ru_stime) * 1e6)
t, cpu = t[20:], cpu[20:]
print(f"{statistics.mean(t) / 1000:.0f} {statistics.median(t) / 1000:.0f} {statistics.mean(cpu):.0f}")
EOF
}

echo
echo "#### Exec cost: what each event pays for the shared objects (mean of $execs execs)"
echo
echo "| program | shared objects | wall µs/exec mean | median | CPU µs/exec (child, mean) | instructions (callgrind) | peak RSS KiB |"
echo "|---|---|---:|---:|---:|---:|---:|"
for prog in trivial trivial-udev trivial-udev-mount trivial-udev-dlopen readahead-agent readahead-agent-libmount; do
        case $prog in
        readahead-agent) bin=$build/readahead-agent; args=(--version); desc="readahead-agent --version (as built)" ;;
        readahead-agent-libmount) bin=$tmp/$prog; args=(--version); desc="readahead-agent --version, linked to libmount" ;;
        trivial-udev-dlopen) bin=$tmp/$prog; args=(); desc="exit 0, libudev linked, dlopen(libmount.so.1)" ;;
        trivial) bin=$tmp/$prog; args=(); desc="exit 0" ;;
        trivial-udev) bin=$tmp/$prog; args=(); desc="exit 0, libudev linked" ;;
        trivial-udev-mount) bin=$tmp/$prog; args=(); desc="exit 0, libudev + libmount linked" ;;
        esac
        sos=$(ldd "$bin" | grep -c '=>' || true)
        read -r mean median cpu < <(exec_us "$bin" "${args[@]}")
        echo "| $desc | $sos | $mean | $median | $cpu | $(instructions "$bin" "${args[@]}") | $(peak_rss "$bin" "${args[@]}") |"
done
