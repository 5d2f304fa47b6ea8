#!/bin/bash
# The whole test suite, as CI runs it (as root, on Debian 12):
#   - a build with AddressSanitizer and UndefinedBehaviorSanitizer, -Werror,
#     and the tests of this machine (unit, umockdev trees, real udevd with
#     loop devices, fuzz corpus replay, the short advise cases), once: the
#     release build's binaries are tested by the package build (unit,
#     umockdev, fuzz), the labs and the advise cases;
#   - a release build with -Werror, and the advise cases the sanitizer pass
#     leaves (labels advise-long, advise-variant);
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
#   - a short libFuzzer run of each fuzz target;
#   - the Debian package built, installed on this machine and removed
#     (tests/package/package.sh).
#
# With no option it runs all of that, as CI does (.ci/run); the options pick
# a middle gear (run.sh --help, and the README's Contributing).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
        cat <<'USAGE'
Usage: tests/run.sh [--no-labs] [--only PHASE] [-j N] [--dry-run] [--help]

With no option: the whole suite, as CI runs it (root; about 55 minutes).
Phases, in the order they run: asan (ASan+UBSan build, this machine's
tests), fuzz (libFuzzer, RA_FUZZ_SECONDS per target), package (.deb built,
installed and removed, lintian, piuparts), release (release build, the
labs, the advise cases).

  --no-labs     skip what boots or builds another system: the vm, systemd,
                debian-root, k8s and package labels, and the package phase
                (package.sh, quality.sh, piuparts)
  --only PHASE  run one phase: asan, fuzz, package or release
  -j N          build with N jobs and run N tests at a time (tests that
                share udevd, and the labs that judge speed, still run
                alone); default: nproc jobs, one test at a time, two of
                the labs that only check what happened side by side
  --dry-run     print the commands, run nothing
  --help        this text
USAGE
}

no_labs=0 only='' dry=0 test_jobs=1 lab_jobs=2
jobs=$(nproc)
while [ $# -gt 0 ]; do
        case $1 in
        --no-labs) no_labs=1 ;;
        --only)
                [ $# -ge 2 ] || { echo "run.sh: --only needs a phase: asan, fuzz, package or release" >&2; exit 2; }
                only=$2
                shift
                ;;
        --only=*) only=${1#--only=} ;;
        -j)
                [ $# -ge 2 ] || { echo "run.sh: -j needs a number" >&2; exit 2; }
                jobs=$2 test_jobs=$2 lab_jobs=$2
                shift
                ;;
        -j*) jobs=${1#-j} test_jobs=${1#-j} lab_jobs=${1#-j} ;;
        --dry-run) dry=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "run.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
        esac
        shift
done
case $only in
"" | asan | fuzz | release) ;;
package) ((!no_labs)) || { echo "run.sh: --only package and --no-labs leave nothing to run" >&2; exit 2; } ;;
*) echo "run.sh: --only '$only': expected asan, fuzz, package or release" >&2; exit 2 ;;
esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -j '$jobs': expected a number from 1" >&2; exit 2; }

# A command, or with --dry-run its words.
run() {
        if ((dry)); then
                echo "$*"
        else
                "$@"
        fi
}

phase() {
        [ -z "$only" ] || [ "$only" = "$1" ]
}

# The time so far, after each step (CI's budget is an hour): not in --dry-run.
mark=$SECONDS
took() {
        ((dry)) || printf '== took %d s: %s (%d min in)\n' $((SECONDS - mark)) "$1" $((SECONDS / 60))
        mark=$SECONDS
}

# The labels --no-labs leaves out of a phase's -LE.
labs='vm|systemd|debian-root|k8s|package'
except_labels() {
        if ((no_labs)); then
                echo "^($1|$labs)\$"
        elif [[ $1 == *"|"* ]]; then
                echo "^($1)\$"
        else
                echo "^$1\$"
        fi
}

run scripts/install-deps.sh --test
took dependencies

fuzz_seconds=${RA_FUZZ_SECONDS:-20}
fuzz_targets=(profile expr mountinfo mountstats text diskstats vmstat psi proc-cgroup memory-stat io-stat blkio
        cgroup-controllers cgroup-procs proc-stat tune-state)

# One libFuzzer target for fuzz_seconds on a copy of its corpus.
fuzz_one() {
        local t=$1 corpus
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
}

if phase asan; then
        echo "== sanitizer build (ASan + UBSan)"
        run cmake -S . -B build-asan -DCMAKE_INSTALL_PREFIX=/usr -DRA_WERROR=ON -DRA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
        run cmake --build build-asan -j"$jobs"
        # The labs that boot or build another system run once, in the release build
        # below: the guests' kernels do not change with our build, each boot costs
        # emulated seconds, and the systemd lab and the Debian 13 root build their own
        # package and binaries (`ctest --test-dir build-asan -L '^vm$'` runs the VM lab
        # with the sanitized binaries).
        #
        # The advise cases (label advise) judge real workloads on throttled loop
        # devices by the host's and the cgroups' counters: another process's page
        # faults or refaults on the machine enter them (seen: a build beside the run
        # turned a sequential reader's raise into keep). Each gets one more try;
        # a wrong advice twice in a row fails.
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
        run ctest --test-dir build-asan --output-on-failure -j"$test_jobs" -LE "$(except_labels 'vm|systemd|debian-root|k8s|advise')"
        # (the long ones, label advise-long, and those whose code another case
        # takes, label advise-variant, in the release pass; the others only here)
        run ctest --test-dir build-asan --output-on-failure -j"$test_jobs" -L '^advise$' -LE '^(advise-long|advise-variant)$' \
                --repeat until-pass:2
        unset ASAN_OPTIONS UBSAN_OPTIONS
        took sanitizers
fi

if phase fuzz; then
        echo "== libFuzzer (${fuzz_seconds}s per target)"
        run cmake -S . -B build-fuzz -DRA_WERROR=ON -DCMAKE_C_COMPILER=clang -DRA_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
        run cmake --build build-fuzz -j"$jobs" --target "${fuzz_targets[@]/#/fuzz-}"
        # Each target on one core: $jobs of them at a time.
        if ((dry)); then
                printf 'fuzz_one %s\n' "${fuzz_targets[@]}"
        else
                export -f fuzz_one
                export fuzz_seconds
                printf '%s\n' "${fuzz_targets[@]}" | xargs -P "$jobs" -I{} bash -euo pipefail -c 'fuzz_one "$1"' fuzz_one {}
        fi
        took libFuzzer
fi

if phase package && ((!no_labs)); then
        echo "== Debian package: dpkg-buildpackage, lintian, install with udevd and loops, remove, purge"
        run bash tests/package/package.sh

        # Debian's own checks (tests/package/README.md): the .deb built twice is the
        # same bytes, lintian --pedantic, blhc on the build log; piuparts in a clean
        # chroot of each release, with the upgrade from 0.1.0.
        echo "== Debian quality: reproducible .deb, lintian --pedantic, blhc"
        run bash tests/package/quality.sh
        echo "== piuparts: install, remove, purge, upgrade from 0.1.0 (bookworm, trixie)"
        # Both at once: each waits on dpkg and apt in its own chroot more than
        # it computes (55 s each alone).
        piuparts_suites=(bookworm trixie)
        if ((dry)); then
                printf 'bash tests/package/piuparts.sh %s\n' "${piuparts_suites[@]}"
        else
                piuparts_pids=() piuparts_logs=$(mktemp -d) piuparts_failed=0
                for suite in "${piuparts_suites[@]}"; do
                        bash tests/package/piuparts.sh "$suite" >"$piuparts_logs/$suite.log" 2>&1 &
                        piuparts_pids+=($!)
                done
                for pid in "${piuparts_pids[@]}"; do
                        wait "$pid" || piuparts_failed=1
                done
                for suite in "${piuparts_suites[@]}"; do
                        cat "$piuparts_logs/$suite.log"
                done
                rm -r "$piuparts_logs"
                ((!piuparts_failed)) || { echo "run.sh: piuparts failed (above)" >&2; exit 1; }
        fi
        took package
fi

if phase release; then
        echo "== release build, the labs, the advise cases"
        run cmake -S . -B build -DCMAKE_INSTALL_PREFIX=/usr -DRA_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
        run cmake --build build -j"$jobs"
        took "release build"
        # The labs are CPU-bound guests under TCG, each using about 1.5 of 2
        # cores; those that only check what happened (PROCESSORS 1) run two at
        # a time, those that judge speed alone (RUN_SERIAL).
        if ((!no_labs)); then
                run ctest --test-dir build --output-on-failure -j"$lab_jobs" -L "^($labs)\$" -LE '^advise$'
                took labs
        fi
        # The advise cases the sanitizer pass left (with --no-labs, not those a
        # lab's machinery runs: k8s-advise-*).
        advise_except=()
        ((!no_labs)) || advise_except=(-LE "^($labs)\$")
        run ctest --test-dir build --output-on-failure -j"$test_jobs" -L '^(advise-long|advise-variant)$' \
                "${advise_except[@]}" --repeat until-pass:2
        took "advise cases"
fi
