#!/bin/bash
# The whole test suite, as CI runs it (as root, on Debian 12):
#   - a normal build with -Werror, all tests (unit, umockdev trees, real udevd
#     with loop devices, fuzz corpus replay);
#   - md, dm and NFS in a real kernel: Debian 12's own, under QEMU (tests/vm,
#     ctest label vm; release build only, 7 to 9 minutes with a cold image);
#   - the systemd lab: Debian 12 and 13 booted with systemd as PID 1, the
#     .deb built for each installed with apt, rebooted, suspended, removed;
#     in the same guests, the advise cases that attribute per cgroup, on
#     cgroup v2, and (Debian 13) the Kubernetes DaemonSet played by podman
#     with NFS mounts (tests/systemd, label systemd; release build only);
#   - Debian 13 as a contributor's machine: install-deps.sh, setup.sh and the
#     tests that need no kernel, in a trixie root (tests/debian-root, label
#     debian-root; release build only);
#   - the same with AddressSanitizer and UndefinedBehaviorSanitizer;
#   - a short libFuzzer run of each fuzz target;
#   - the Debian package built, installed on this machine and removed
#     (tests/package/package.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --test

jobs=$(nproc)
fuzz_seconds=${RA_FUZZ_SECONDS:-20}

echo "== sanitizer build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_INSTALL_PREFIX=/usr -DRA_WERROR=ON -DRA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j"$jobs"
# The labs that boot or build another system run once, in the release build
# below: the guests' kernels do not change with our build, each boot costs
# emulated seconds, and the systemd lab and the Debian 13 root build their own
# package and binaries (`ctest --test-dir build-asan -L vm` runs the VM lab
# with the sanitized binaries).
#
# The advise cases (label advise) judge real workloads on throttled loop
# devices by the host's and the cgroups' counters: another process's page
# faults or refaults on the machine enter them (seen: a build beside the run
# turned a sequential reader's raise into keep). Each gets one more try;
# a wrong advice twice in a row fails.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-asan --output-on-failure -j1 -LE '^(vm|systemd|debian-root|k8s|advise)$'
ctest --test-dir build-asan --output-on-failure -j1 -L '^advise$' --repeat until-pass:2
unset ASAN_OPTIONS UBSAN_OPTIONS

echo "== libFuzzer (${fuzz_seconds}s per target)"
cmake -S . -B build-fuzz -DRA_WERROR=ON -DCMAKE_C_COMPILER=clang -DRA_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-fuzz -j"$jobs" --target fuzz-profile fuzz-expr fuzz-mountinfo fuzz-mountstats fuzz-text \
        fuzz-diskstats fuzz-vmstat fuzz-psi fuzz-proc-cgroup fuzz-memory-stat fuzz-io-stat fuzz-blkio \
        fuzz-cgroup-controllers fuzz-cgroup-procs
for t in profile expr mountinfo mountstats text diskstats vmstat psi proc-cgroup memory-stat io-stat blkio \
        cgroup-controllers cgroup-procs; do
        corpus=$(mktemp -d)
        cp tests/fuzz/corpus/"$t"/* "$corpus"/
        # On a finding, show the report (stack and input), not only its last lines.
        if ! build-fuzz/tests/fuzz/fuzz-"$t" -max_total_time="$fuzz_seconds" -max_len=4096 \
                        -artifact_prefix="$corpus/" "$corpus" > "$corpus.log" 2>&1; then
                grep -A60 -m1 '==ERROR\|ERROR:\|runtime error' "$corpus.log" || tail -n 60 "$corpus.log"
                for crash in "$corpus"/crash-* "$corpus"/leak-* "$corpus"/timeout-* "$corpus"/oom-*; do
                        [ -e "$crash" ] && { echo "input $crash:"; od -A x -t x1z "$crash" | head -n 40; }
                done
                exit 1
        fi
        tail -n 3 "$corpus.log"
        rm -rf "$corpus" "$corpus.log"
done

echo "== Debian package: dpkg-buildpackage, lintian, install with udevd and loops, remove, purge"
bash tests/package/package.sh

# Debian's own checks (tests/package/README.md): the .deb built twice is the
# same bytes, lintian --pedantic, blhc on the build log; piuparts in a clean
# chroot of each release, with the upgrade from 0.1.0.
echo "== Debian quality: reproducible .deb, lintian --pedantic, blhc"
bash tests/package/quality.sh
echo "== piuparts: install, remove, purge, upgrade from 0.1.0 (bookworm, trixie)"
for suite in bookworm trixie; do
        bash tests/package/piuparts.sh "$suite"
done

echo "== release build, full suite"
cmake -S . -B build -DCMAKE_INSTALL_PREFIX=/usr -DRA_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j1 -LE '^advise$'
ctest --test-dir build --output-on-failure -j1 -L '^advise$' --repeat until-pass:2
