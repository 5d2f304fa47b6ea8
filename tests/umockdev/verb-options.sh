#!/bin/bash
# SPDX-License-Identifier: MIT
# Where options may stand: main's (--root, --json, --format) and a verb's own
# work before the verb and after it, and status's without the verb at all
# (the man page's synopsis); an option of another verb is a usage error
# (exit 2) that names the verbs that take it, wherever it stands. Each
# invocation runs in a fake tree, so a refusal that failed to refuse could
# not touch a real device.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"

ra_umock_require umockdev

fails=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ra-verb-options.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# ctl TREE ARGS...: readahead-ctl --root ROOT ARGS in TREE; sets $out, $err
# and $rc (the bdis of the host's mounts left out of $out).
ctl() {
        local tree=$1
        shift
        rc=0
        ra_umock_run "$tree" "$RA_CTL" --root "$RA_TESTROOT" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
        out=$(grep -v '^0:' "$tmp/out" || true)
        err=$(cat "$tmp/err")
}

ok() { echo "ok   $1"; }
fail() {
        printf 'FAIL %s: expected %s, got %s\n' "$1" "$2" "$3"
        fails=$((fails + 1))
}

# same TREE EXPECTED ARGS...: exit 0 and stdout EXPECTED.
same() {
        local tree=$1 want=$2
        shift 2
        ctl "$tree" "$@"
        if [ "$rc" = 0 ] && [ "$out" = "$want" ]; then
                ok "$tree: readahead-ctl $*: '${want%%$'\n'*}'"
        else
                fail "$tree: readahead-ctl $*" "exit 0 and '$want'" "exit $rc, '$out' (stderr: $err)"
        fi
}

# refused ARGS... -- MESSAGE: exit 2, nothing on stdout, stderr the one line
# MESSAGE.
refused() {
        local args=()
        while [ "$1" != -- ]; do
                args+=("$1")
                shift
        done
        ctl sata-hdd "${args[@]}"
        if [ "$rc" = 2 ] && [ -z "$out" ] && [ "$err" = "$2" ]; then
                ok "readahead-ctl ${args[*]}: exit 2, '$2'"
        else
                fail "readahead-ctl ${args[*]}" "exit 2 and '$2'" "exit $rc, stdout '$out', stderr '$err'"
        fi
}

# status's options before the verb, after it, and without it
for args in "status -o NAME,TARGET -r -n" "-o NAME,TARGET -r -n status" "-o NAME,TARGET -r -n" \
        "--raw -o NAME,TARGET status --noheadings" "-rno NAME,TARGET"; do
        # shellcheck disable=SC2086 # words on purpose
        same sata-hdd "sda 512K" $args
done
# -a: also the drive without a disc
same optical "" status -o NAME -l -n
for args in "status -a -o NAME -l -n" "-a status -o NAME -l -n" "-a -o NAME -l -n" "-o NAME -l -n --all"; do
        # shellcheck disable=SC2086
        same optical "sr0" $args
done
# main's options before and after the verb, and after its argument
ctl sata-hdd --json explain sda
json=$out
if [ "$rc" = 0 ] && grep -q '"name": "sda"' <<<"$json"; then
        ok "readahead-ctl --json explain sda: JSON"
else
        fail "readahead-ctl --json explain sda" "exit 0 and JSON" "exit $rc, stderr '$err'"
fi
same sata-hdd "$json" explain --json sda
same sata-hdd "$json" explain sda --json
same sata-hdd "$json" --format=table explain sda --format json

# An option of another verb, before the verb or after it.
refused -o NAME explain sda -- "readahead-ctl explain: --output is an option of the status table only"
refused explain sda --list -- "readahead-ctl explain: --list is an option of the status table only"
refused --json status -o NAME -- "readahead-ctl status: --output is an option of the status table only"
refused -n --format=prometheus -- "readahead-ctl status: --noheadings is an option of the status table only"
refused -a apply -- "readahead-ctl apply: --all is an option of status only"
refused reset sda --all -- "readahead-ctl reset: --all is an option of status only"
refused --time 5 status -- "readahead-ctl status: --time is an option of calibrate and advise"
refused check --write -- "readahead-ctl check: --write is an option of calibrate and advise"
refused advise --min 1M -- "readahead-ctl advise: --min is an option of calibrate only"
refused --rounds=2 advise sda -- "readahead-ctl advise: --rounds is an option of calibrate only"
refused advise --stream 2 -- "readahead-ctl advise: --streams is an option of calibrate only"
refused calibrate sda --raw -- "readahead-ctl calibrate: --raw is an option of the status table only"
refused cat-config --json -- \
        "readahead-ctl cat-config: --json is for status, explain, check, calibrate and advise only"
refused --format=prometheus explain sda -- \
        "readahead-ctl explain: --format=prometheus is for status and advise only"
# calibrate's own options before the verb: read by calibrate, checked first
refused --time 0 calibrate sda -- "readahead-ctl calibrate: --time=0: expected a whole number from 1 to 86400"
refused advise --time=0 -- "readahead-ctl advise: --time=0: expected a whole number of seconds from 1 to 86400"

# Errors are for people: what was typed is escaped, never sent to the
# terminal raw (ctl_error()).
refused $'st\e[2Jatus' -- "readahead-ctl: unknown verb 'st\\x1b[2Jatus' (see --help)"
# --help, --version and the tables end the parsing wherever they stand,
# after a verb's own options too, and run nothing.
for args in "--help" "status --help" "advise --time 5 --help" "calibrate sda --rounds 2 --help"; do
        # shellcheck disable=SC2086
        ctl sata-hdd $args
        if [ "$rc" = 0 ] && [[ $out == "Usage: readahead-ctl "* ]] && [ -z "$err" ]; then
                ok "readahead-ctl $args: exit 0, the usage"
        else
                fail "readahead-ctl $args" "exit 0 and the usage" "exit $rc, stderr '$err'"
        fi
done
same sata-hdd "readahead-ctl $("$RA_CTL" --version | cut -d' ' -f2)" apply sda --version

[ "$fails" -eq 0 ]
