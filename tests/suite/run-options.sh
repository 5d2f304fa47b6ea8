#!/bin/bash
# SPDX-License-Identifier: MIT
# run-options.sh: tests/run.sh's gears, read through --dry-run (nothing is
# built or run): with no option exactly the commands of ci.txt (what CI runs,
# written by hand), and what --no-labs, --only, -j and --help change. Needs
# nothing but bash.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run_sh=$here/../run.sh
failed=0

fail() {
        echo "FAIL: $*"
        failed=1
}

# has TEXT WORDS: TEXT has a line holding WORDS.
has() { grep -qF -- "$2" <<<"$1"; }

unset RA_FUZZ_SECONDS
default=$(bash "$run_sh" --dry-run 2>&1) || fail "run.sh --dry-run: exit $?"
want=$(sed "s/@NPROC@/$(nproc)/" "$here/ci.txt")
if [ "$default" != "$want" ]; then
        fail "run.sh with no option is not what CI ran:"
        diff <(echo "$want") <(echo "$default") || true
fi

out=$(bash "$run_sh" --dry-run --no-labs 2>&1) || fail "run.sh --dry-run --no-labs: exit $?"
for gone in tests/package/package.sh quality.sh piuparts.sh; do
        ! has "$out" "$gone" || fail "--no-labs still runs $gone"
done
has "$out" "ctest --test-dir build --output-on-failure -j1 -L ^(advise-long|advise-variant)$ -LE ^(vm|systemd|debian-root|k8s|package)$" ||
        fail "--no-labs: the release advise pass does not leave out the labs' labels"
has "$out" "-LE ^(vm|systemd|debian-root|k8s|advise|vm|systemd|debian-root|k8s|package)$" ||
        fail "--no-labs: the sanitizer pass does not leave out the package label"
has "$out" "fuzz_one text" || fail "--no-labs left out the fuzzers"
! has "$out" "-L ^(vm|" || fail "--no-labs still runs the labs' pass"

for p in asan fuzz package release; do
        out=$(bash "$run_sh" --dry-run --only "$p" 2>&1) || fail "run.sh --dry-run --only $p: exit $?"
        n=$(grep -c '^== ' <<<"$out" || true)
        case $p in
        asan) first="== sanitizer build" ;;
        fuzz) first="== libFuzzer" ;;
        package) first="== Debian package" n=$((n - 2)) ;; # its three headings
        release) first="== release build" ;;
        esac
        [ "$n" = 1 ] || fail "--only $p runs other phases: $(grep '^== ' <<<"$out" | tr '\n' ' ')"
        has "$out" "$first" || fail "--only $p does not run $first"
done

out=$(bash "$run_sh" --dry-run --only release -j 3 2>&1) || fail "run.sh --dry-run -j 3: exit $?"
has "$out" "cmake --build build -j3" || fail "-j 3 does not build with 3 jobs"
has "$out" "ctest --test-dir build --output-on-failure -j3 -L ^(advise-long|" || fail "-j 3 does not run 3 tests at a time"
has "$out" "ctest --test-dir build --output-on-failure -j3 -L ^(vm|" || fail "-j 3 does not run 3 labs at a time"

out=$(bash "$run_sh" --help) || fail "--help exits $?"
for opt in --no-labs --only -j --dry-run --help; do
        has "$out" "  $opt" || fail "--help does not describe $opt"
done

for bad in "--only nothing" "--bogus" "-j 0" "-j" "--only package --no-labs"; do
        rc=0
        # shellcheck disable=SC2086 # the words of one bad call
        bash "$run_sh" --dry-run $bad >/dev/null 2>&1 || rc=$?
        [ "$rc" = 2 ] || fail "run.sh $bad: exit $rc, want 2 (usage) before running anything"
done

[ "$failed" = 0 ] && echo "ok: run.sh's gears"
exit "$failed"
