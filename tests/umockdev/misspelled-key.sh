#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 34: a drop-in rule whose only match is misspelled (MountPiont=) must
# not match every device. The rule is dropped whole, the good rule before it
# in the same file still applies, and each command says so where its user
# looks: check exits 1 naming file:line and the rule, status --json and
# explain show the good rule deciding sda, apply prints the error on stderr
# (and still applies), the agent logs it with the file and line (stderr here,
# the journal where there is one). On the sata-hdd tree: sda, 1 TB.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"

ra_umock_require umockdev
ra_umock_tmp misspelled-key
tmp=$RA_UMOCK_TMP
root=$tmp/root
dropin=$root/etc/readahead-agent/profiles/default.conf.d/50-data.conf
mkdir -p "$(dirname "$dropin")"
# Line 5 is the misspelled key. Before issue 34 the rule lost it to a
# warning, matched everything and, being last, set sda to 16M.
cat >"$dropin" <<'CONF'
[Rule sda-by-name]
Name=sda
Size=1M
[Rule data]
MountPiont=/data
Size=16M
CONF
problem="$dropin:5: error: [Rule data] dropped: unknown key MountPiont="

fails=0
ok() { echo "ok   $1"; }
fail() {
        printf 'FAIL %s: expected %s, got %s\n' "$1" "$2" "$3"
        fails=$((fails + 1))
}
# has WHAT FILE LINE: FILE holds LINE whole.
has() {
        if grep -qxF -- "$3" "$2"; then
                ok "$1: '$3'"
        else
                fail "$1" "the line '$3'" "$(cat "$2")"
        fi
}
# json_field WHAT FILE PYEXPR EXPECTED: PYEXPR of the JSON document d in FILE.
json_field() {
        local got
        got=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))' \
                "$2" "$3" 2>&1) || true
        if [ "$got" = "$4" ]; then
                ok "$1: $3 = $4"
        else
                fail "$1: $3" "$4" "$got"
        fi
}

# check: exit 1, the file, line and rule named; the file still in use.
rc=0
"$RA_CTL" --root "$root" check >"$tmp/out" 2>"$tmp/err" || rc=$?
cat "$tmp/out" "$tmp/err"
[ "$rc" = 1 ] && ok "check: exit 1" || fail "check: exit status" 1 "$rc"
has check "$tmp/out" "$problem"
has check "$tmp/out" "  used (1 dropped)  $dropin"

# status --json: sda decided by the good rule of the same file, at 1M.
rc=0
ra_umock_run sata-hdd "$RA_CTL" --root "$root" status --json >"$tmp/status.json" || rc=$?
[ "$rc" = 0 ] || fail "status --json: exit status" 0 "$rc"
sda='next(x for x in d["devices"] if x["name"] == "sda")'
json_field "status --json" "$tmp/status.json" "$sda[\"target_kb\"]" 1024
json_field "status --json" "$tmp/status.json" "$sda[\"rule_section\"]" '"sda-by-name"'
json_field "status --json" "$tmp/status.json" 'd["config_errors"]' 1

# explain: the dropped rule is not among the rules tried.
rc=0
ra_umock_run sata-hdd "$RA_CTL" --root "$root" explain sda --json >"$tmp/explain.json" || rc=$?
[ "$rc" = 0 ] || fail "explain sda --json: exit status" 0 "$rc"
json_field "explain sda --json" "$tmp/explain.json" '[r["section"] for r in d["rules"] if r["section"] in ("data", "sda-by-name")]' '["sda-by-name"]'
json_field "explain sda --json" "$tmp/explain.json" 'd["target_kb"]' 1024

# apply: writes what the rest says, and names the error on stderr, last.
rc=0
ra_umock_run sata-hdd sh -c '"$1" --root "$2" apply sda && cat /sys/class/bdi/8:0/read_ahead_kb' \
        sh "$RA_CTL" "$root" >"$tmp/out" 2>"$tmp/err" || rc=$?
cat "$tmp/out" "$tmp/err"
[ "$rc" = 0 ] && ok "apply: exit 0" || fail "apply: exit status" 0 "$rc"
[ "$(tail -n 1 "$tmp/out")" = 1024 ] && ok "apply: sda at 1024" || fail "apply: sda" 1024 "$(tail -n 1 "$tmp/out")"
has "apply's stderr" "$tmp/err" "readahead-ctl apply: $problem"

# The agent, on sda's change event: decides 1M and logs the problem with its
# file and line.
journal=
[ -w /run/systemd/journal/socket ] && journal=1
since=$(date '+%Y-%m-%d %H:%M:%S')
rc=0
ra_umock_run sata-hdd env ACTION=change SEQNUM=1 SUBSYSTEM=block DEVTYPE=disk DEVNAME=/dev/sda MAJOR=8 MINOR=0 \
        DEVPATH=/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda \
        "$RA_AGENT" --root "$root" >"$tmp/out" 2>"$tmp/err" || rc=$?
cat "$tmp/out" "$tmp/err"
[ "$rc" = 0 ] && ok "agent: exit 0" || fail "agent: exit status" 0 "$rc"
has agent "$tmp/out" READAHEAD_TARGET_KB=1024
logged="$dropin:5: [Rule data] dropped: unknown key MountPiont="
if [ -n "$journal" ]; then
        sleep 0.5
        journalctl -q -o cat "CONFIG_FILE=$dropin" CONFIG_LINE=5 --since "$since" >"$tmp/journal" || true
        has "agent's journal" "$tmp/journal" "$logged"
else
        has "agent's stderr" "$tmp/err" "readahead-agent: $logged"
fi

[ "$fails" = 0 ] && echo "PASS: misspelled-key"
exit "$((fails > 0))"
