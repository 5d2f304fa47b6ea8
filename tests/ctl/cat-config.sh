#!/bin/bash
# SPDX-License-Identifier: MIT
# cat-config.sh: `readahead-ctl cat-config` on a private configuration root
# with every kind of file: a vendor file overridden from /etc, a /run drop-in,
# drop-ins masked by an empty file and by a /dev/null symlink, a broken /etc
# drop-in, an /etc drop-in with a rule dropped for a misspelled key. The whole
# expected output is written down below.
#
# Needs RA_CTL, RA_TESTROOT and RA_VENDOR_DIR (ctest sets them); no root.
set -euo pipefail
: "${RA_CTL:?run through ctest}" "${RA_TESTROOT:?}" "${RA_VENDOR_DIR:?}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ra-cat-config.XXXXXX")
trap '[ -n "${RA_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
root=$tmp/root
cp -a "$RA_TESTROOT" "$root"
etc=$root/etc/readahead-agent
run=$root/run/readahead-agent
vendor=$root$RA_VENDOR_DIR
mkdir -p "$etc/readahead.conf.d" "$etc/profiles/throughput.conf.d" "$run/profiles/throughput.conf.d" \
        "$vendor/profiles/throughput.conf.d"

# readahead.conf from the vendor; the profile switched by an /etc drop-in.
printf '[Agent]\nProfile=throughput\n' >"$etc/readahead.conf.d/profile.conf"
# The profile itself overridden in /etc (no trailing newline: cat-config adds it).
printf '[Profile]\nDefault=2M\n\n[Rule disk]\nKind=block\nSize=default' >"$etc/profiles/throughput.conf"
# Vendor drop-ins: 10 used, 20 masked by an /etc symlink to /dev/null, 30
# masked by an empty /run file, 40 replaced by a broken /etc file.
printf '[Rule ssd]\nClass=ssd\nSize=4M\n' >"$vendor/profiles/throughput.conf.d/10-ssd.conf"
printf '[Rule hdd]\nClass=hdd\nSize=8M\n' >"$vendor/profiles/throughput.conf.d/20-hdd.conf"
ln -s /dev/null "$etc/profiles/throughput.conf.d/20-hdd.conf"
printf '[Rule raid]\nClass=raid\nSize=16M\n' >"$vendor/profiles/throughput.conf.d/30-raid.conf"
: >"$run/profiles/throughput.conf.d/30-raid.conf"
printf '[Rule usb]\nTransport=usb\nSize=1M\n' >"$vendor/profiles/throughput.conf.d/40-usb.conf"
printf '[Rule usb]\nTransport usb\nSize=2M\n' >"$etc/profiles/throughput.conf.d/40-usb.conf"
# Used, but its one rule is dropped (a misspelled match): said in the header.
printf '[Rule data]\nMountPiont=/data\nSize=16M\n' >"$etc/profiles/throughput.conf.d/45-data.conf"
# A /run drop-in with no counterpart.
printf '[Rule loop]\nTransport=loop\nSize=256K\n' >"$run/profiles/throughput.conf.d/50-loop.conf"

expected=$tmp/expected
{
        echo "# $vendor/readahead.conf"
        cat "$vendor/readahead.conf"
        echo
        echo "# $etc/readahead.conf.d/profile.conf"
        printf '[Agent]\nProfile=throughput\n'
        echo
        echo "# $etc/profiles/throughput.conf"
        printf '[Profile]\nDefault=2M\n\n[Rule disk]\nKind=block\nSize=default\n'
        echo
        echo "# $vendor/profiles/throughput.conf (masked by $etc/profiles/throughput.conf)"
        echo
        echo "# $vendor/profiles/throughput.conf.d/10-ssd.conf"
        printf '[Rule ssd]\nClass=ssd\nSize=4M\n'
        echo
        echo "# $etc/profiles/throughput.conf.d/20-hdd.conf (mask: symlink to /dev/null, hides the files of this name below it)"
        echo
        echo "# $vendor/profiles/throughput.conf.d/20-hdd.conf (masked by $etc/profiles/throughput.conf.d/20-hdd.conf)"
        echo
        echo "# $run/profiles/throughput.conf.d/30-raid.conf (mask: empty file, hides the files of this name below it)"
        echo
        echo "# $vendor/profiles/throughput.conf.d/30-raid.conf (masked by $run/profiles/throughput.conf.d/30-raid.conf)"
        echo
        echo "# $etc/profiles/throughput.conf.d/40-usb.conf (ignored: it has errors, see 'readahead-ctl check')"
        echo
        echo "# $vendor/profiles/throughput.conf.d/40-usb.conf"
        printf '[Rule usb]\nTransport=usb\nSize=1M\n'
        echo
        echo "# $etc/profiles/throughput.conf.d/45-data.conf (1 rule(s) dropped: they have errors, see 'readahead-ctl check')"
        printf '[Rule data]\nMountPiont=/data\nSize=16M\n'
        echo
        echo "# $run/profiles/throughput.conf.d/50-loop.conf"
        printf '[Rule loop]\nTransport=loop\nSize=256K\n'
} >"$expected"

fail=0
rc=0
"$RA_CTL" --root "$root" cat-config >"$tmp/out" 2>"$tmp/err" || rc=$?
if ! diff -u "$expected" "$tmp/out"; then
        echo "FAIL: cat-config output differs from the expected one (above)" >&2
        fail=1
fi
[ "$rc" = 0 ] || { echo "FAIL: cat-config exited $rc" >&2; fail=1; }
[ ! -s "$tmp/err" ] || { echo "FAIL: unexpected stderr:" >&2; cat "$tmp/err" >&2; fail=1; }

# A masked profile: its header says so and stderr explains what it means.
ln -sfn /dev/null "$etc/profiles/throughput.conf"
rc=0
"$RA_CTL" --root "$root" cat-config >"$tmp/out" 2>"$tmp/err" || rc=$?
grep -qxF "# $etc/profiles/throughput.conf (mask: symlink to /dev/null, hides the files of this name below it)" "$tmp/out" ||
        { echo "FAIL: the masked profile is not named as a mask" >&2; cat "$tmp/out" >&2; fail=1; }
grep -qxF "readahead-ctl cat-config: profile 'throughput' is masked: devices are left alone" "$tmp/err" ||
        { echo "FAIL: no note on stderr that the profile is masked" >&2; cat "$tmp/err" >&2; fail=1; }
[ "$rc" = 0 ] || { echo "FAIL: cat-config exited $rc with a masked profile" >&2; fail=1; }

# Extra arguments are a usage error.
rc=0
"$RA_CTL" --root "$root" cat-config extra >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: cat-config with an argument exited $rc, expected 2" >&2; fail=1; }

# Verbs whose output is for people refuse --json, as the table options are.
for verb in cat-config apply reset; do
        for opt in --json --format=json; do
                rc=0
                "$RA_CTL" --root "$root" "$opt" "$verb" >"$tmp/out" 2>"$tmp/err" || rc=$?
                [ "$rc" = 2 ] || { echo "FAIL: $verb $opt exited $rc, expected 2" >&2; fail=1; }
                [ ! -s "$tmp/out" ] || { echo "FAIL: $verb $opt printed on stdout" >&2; fail=1; }
                grep -qxF "readahead-ctl $verb: --json is for status, explain, check, calibrate and advise only" "$tmp/err" ||
                        { echo "FAIL: $verb $opt: no clear message" >&2; cat "$tmp/err" >&2; fail=1; }
        done
done

[ "$fail" = 0 ] && echo "PASS: cat-config"
exit "$fail"
