#!/bin/bash
# SPDX-License-Identifier: MIT
# postinst-check.sh: the package's postinst shows configuration problems
# (issue 34: a rule dropped for a misspelled key) on its own output, on an
# upgrade and on a first install, and still succeeds; with a clean
# configuration it says nothing about it. debian/readahead-agent.postinst runs
# as dpkg would run it, with shims for udevadm, systemctl, ischroot and
# readahead-ctl: check runs the built readahead-ctl on a private root, every
# other verb (apply) and udevadm only record that they ran, so nothing on
# this machine is touched.
#
# Needs RA_CTL, RA_TESTROOT and RA_SOURCE_DIR (ctest sets them); no root.
set -euo pipefail
: "${RA_CTL:?run through ctest}" "${RA_TESTROOT:?}" "${RA_SOURCE_DIR:?}"
. "$(dirname "$0")/../lib/umockdev-case.sh"

ra_umock_tmp postinst-check # $RA_UMOCK_TMP, with a copy of the test root
tmp=$RA_UMOCK_TMP
root=$tmp/root
shims=$tmp/bin
mkdir -p "$shims"
for tool in udevadm systemctl; do
        printf '#!/bin/sh\necho "%s $*" >>"%s/ran"\nexit 0\n' "$tool" "$tmp" >"$shims/$tool"
done
printf '#!/bin/sh\nexit 1\n' >"$shims/ischroot" # not in a chroot: the udev branch runs
cat >"$shims/readahead-ctl" <<EOF
#!/bin/sh
echo "readahead-ctl \$*" >>"$tmp/ran"
[ "\$1" = check ] || exit 0
exec "$RA_CTL" --root "$root" "\$@"
EOF
chmod +x "$shims"/*

fail=0
# postinst ARGS...: sets $rc, $out, $err.
postinst() {
        rc=0
        : >"$tmp/ran"
        PATH=$shims:/usr/bin:/bin sh "$RA_SOURCE_DIR/debian/readahead-agent.postinst" "$@" \
                >"$tmp/out" 2>"$tmp/err" || rc=$?
        out=$(cat "$tmp/out")
        err=$(cat "$tmp/err")
}

dropin=$root/etc/readahead-agent/profiles/default.conf.d/50-data.conf
mkdir -p "$(dirname "$dropin")"
printf '[Rule data]\nMountPiont=/data\nSize=16M\n' >"$dropin"
problem="$dropin:2: error: [Rule data] dropped: unknown key MountPiont="

for args in "configure 0.2.0" "configure"; do
        postinst $args
        printf 'postinst %s: exit %s\nstdout: %s\nstderr: %s\n' "$args" "$rc" "$out" "$err"
        [ "$rc" = 0 ] || { echo "FAIL: postinst $args exited $rc with a configuration error" >&2; fail=1; }
        grep -qxF -- "$problem" "$tmp/err" ||
                { echo "FAIL: postinst $args does not show '$problem'" >&2; fail=1; }
        grep -qxF "readahead-ctl check" "$tmp/ran" ||
                { echo "FAIL: postinst $args did not run readahead-ctl check" >&2; cat "$tmp/ran" >&2; fail=1; }
done
# The upgrade still applies (the shim only records it).
postinst configure 0.2.0
grep -qxF "readahead-ctl apply" "$tmp/ran" || { echo "FAIL: the upgrade no longer runs apply" >&2; fail=1; }

# A clean configuration: nothing said about it.
rm "$dropin"
postinst configure 0.2.0
[ "$rc" = 0 ] || { echo "FAIL: postinst exited $rc with a clean configuration" >&2; fail=1; }
[ -z "$err$out" ] || { echo "FAIL: postinst printed with a clean configuration: $out $err" >&2; fail=1; }

[ "$fail" = 0 ] && echo "PASS: postinst-check"
exit "$fail"
