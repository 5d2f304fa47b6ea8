#!/bin/bash
# SPDX-License-Identifier: MIT
#
# package.sh: the Debian package, end to end, on this machine (as root):
#
#   1. builds it with `dpkg-buildpackage -b -us -uc` in a copy of the tree (the
#      build runs the unit, umockdev and fuzz tests, see debian/rules);
#   2. runs lintian on the result and fails on errors (warnings are shown);
#   3. attaches two sparse loop devices, 20 GiB and 64 MiB, with a real
#      systemd-udevd running (started here if none runs), and records the
#      value the kernel gave them; mounts an empty FUSE filesystem (its bdi
#      0:N stands in for a network mount) with tests/real's fuse-null;
#   4. `dpkg -i`: right after the install (postinst replays udev events) the
#      big loop holds 512 and the 64 MiB one 64 (the small-device cap), and
#      the FUSE bdi gets 1M (a /run drop-in for that mount point: the
#      default profile leaves FUSE alone);
#   4b. autopkgtest --no-built-binaries -- null: debian/tests on the installed
#      package (a loop device and a FUSE mount tuned and explained;
#      readahead-ctl check on the shipped configuration);
#   5. `dpkg -r`: a process that runs another file at the agent's path (a
#      container's agent) is left running; both hold the kernel's own value
#      again (prerm runs
#      `readahead-ctl reset`): max(2 x io_opt, 128 KiB) in whole pages, with
#      max_sectors as io_opt for a rotational disk without one since Linux 6.17,
#      which must also be what the kernel gave them at attach; the udev rule is
#      gone, and a change event no longer sets anything; the FUSE bdi holds
#      128 KiB again;
#   6. `dpkg -P`: the package is gone, the administrator's file in /etc stays.
#
# Everything it set up is undone at exit: package purged, loops detached,
# udevd stopped if it started it, files removed. It only ever touches the loop
# devices it attached. Note: install and removal act on every disk of the
# machine, as the package does (postinst triggers change events for all disks,
# prerm resets all of them).
#
# Exit 77 (skip) when it cannot run here (not root, no loop devices, ...);
# when CI is set in the environment that is a failure instead.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# The helpers of tests/real (and through it tests/udevd.sh): log, fail, skip,
# the udev lock, loops, FUSE, undoing them. Messages are named "package".
# shellcheck source=tests/real/lib.sh
. "$src/tests/real/lib.sh"
RA_MUST_RUN="the package test"
PKG=readahead-agent
WAIT_FOREIGN=${RA_PACKAGE_WAIT:-900} # seconds to wait for a foreign test rule to go away
RA_CTL=readahead-ctl # the installed one, with the installed configuration (ROOT is empty)

installed=0
source_stash=""
etc_dir_created=0
etc_file=/etc/readahead-agent/readahead.conf.d/50-package-test.conf
fuse_mp=""
run_dir_created=0
run_dropin=/run/readahead-agent/profiles/default.conf.d/90-package-test.conf

cleanup() {
        local rc=$?
        # Subshells (a background FUSE daemon, $(...)) inherit this trap: only
        # the test itself may undo what the test did.
        [ "$BASHPID" = "$$" ] || exit "$rc"
        set +e
        trap - EXIT INT TERM HUP
        if [ "$installed" = 1 ]; then
                ra_log "purging $PKG"
                dpkg -P "$PKG" >/dev/null || ra_log "dpkg -P $PKG failed"
        fi
        if [ -n "$source_stash" ]; then
                tar -C / -xpf "$source_stash/files.tar" && rm -rf "$source_stash" &&
                        ra_log "put the source install back" || ra_log "source install kept in $source_stash"
                udevadm control --reload 2>/dev/null
        fi
        if [ "$run_dir_created" = 1 ]; then
                rm -f "$run_dropin"
                rmdir -p "$(dirname "$run_dropin")" 2>/dev/null
        fi
        if [ "$etc_dir_created" = 1 ]; then
                rm -f "$etc_file"
                rmdir /etc/readahead-agent/readahead.conf.d /etc/readahead-agent 2>/dev/null
        fi
        ra_undo_processes
        ra_undo_mounts
        ra_undo_loops
        ra_udevd_stop
        if [ -n "$RA_TMP" ] && [ -d "$RA_TMP" ]; then
                if [ -n "${RA_KEEP_TMP:-}" ]; then ra_log "kept $RA_TMP"; else rm -rf "$RA_TMP"; fi
        fi
        [ "$rc" -eq 0 ] && printf 'PASS: %s\n' "$RA_TEST_NAME" >&2
        exit "$rc"
}

# ---- can it run here? -------------------------------------------------------

[ "$(id -u)" -eq 0 ] || ra_skip "needs root (installs the package, loop devices)"
for t in dpkg-buildpackage dh lintian udevadm losetup truncate scdoc; do
        command -v "$t" >/dev/null || ra_skip "$t is not installed (scripts/install-deps.sh --test)"
done
ra_require_loop

# Never clobber a real installation: an installed package or a `cmake --install`
# to /usr would be overwritten, then purged.
case $(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null || true) in
"" | *" not-installed") ;;
*) ra_fail "$PKG is installed on this machine (dpkg); this test installs and purges it: purge it first" ;;
esac
# A rule of the same name in /etc or /run hides the packaged one from udevd.
[ ! -e /etc/udev/rules.d/99-readahead-agent.rules ] ||
        ra_fail "/etc/udev/rules.d/99-readahead-agent.rules overrides the packaged rule"

ra_traps cleanup

# A source install (setup.sh: cmake --install to /usr) would be overwritten,
# then purged: set it aside while the package is tested, put it back after.
# One below /usr/local is set aside too: udev reads /usr/local/lib/udev's
# rules before the package's, so its rule would decide the package's events.
source_stash=""
source_files=()
for f in /usr/bin/readahead-ctl /usr/libexec/readahead-agent /usr/lib/readahead-agent \
        /lib/udev/rules.d/99-readahead-agent.rules /usr/lib/udev/rules.d/99-readahead-agent.rules \
        /usr/local/lib/udev/rules.d/99-readahead-agent.rules /usr/local/bin/readahead-ctl \
        /usr/local/libexec/readahead-agent /usr/local/lib/readahead-agent \
        /lib/systemd/system/readahead-agent-bdi@.service /usr/lib/systemd/system/readahead-agent-bdi@.service \
        /lib/systemd/system-sleep/readahead-agent /usr/lib/systemd/system-sleep/readahead-agent \
        /lib/elogind/system-sleep/readahead-agent /usr/lib/elogind/system-sleep/readahead-agent \
        /usr/local/lib/systemd/system/readahead-agent-bdi@.service /usr/local/lib/systemd/system-sleep/readahead-agent \
        /{usr/,usr/local/,}lib/systemd/system/readahead-advise.{service,timer} \
        /usr/share/man/man8/readahead-ctl.8 /usr/share/man/man8/readahead-agent.8 \
        /usr/share/man/man5/readahead.conf.5 /usr/share/bash-completion/completions/readahead-ctl; do
        [ -e "$f" ] || continue
        f=$(realpath "$f") # /lib is /usr/lib on merged-/usr systems
        case " ${source_files[*]} " in *" ${f#/} "*) ;; *) source_files+=("${f#/}") ;; esac
done
if [ "${#source_files[@]}" -gt 0 ]; then
        source_stash=$(mktemp -d /tmp/ra-source-install.XXXXXX)
        tar -C / -cpf "$source_stash/files.tar" "${source_files[@]}" || ra_fail "could not set aside the source install"
        for f in "${source_files[@]}"; do rm -rf "/${f:?}"; done
        ra_log "set aside a source install for the test: ${source_files[*]}"
fi
RA_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ra-package.XXXXXX")
tmp=$RA_TMP

# ---- 1. build --------------------------------------------------------------

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
tree=$tmp/build/$PKG-$version
mkdir -p "$tree"
# shellcheck source=tests/lib/source.sh
. "$src/tests/lib/source.sh"
ra_copy_source "$src" "$tree"
ra_log "building the package in $tree (log: $tmp/build.log)"
jobs=$(nproc 2>/dev/null || echo 1)
if ! (cd "$tree" && DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}" \
        dpkg-buildpackage -b -us -uc) >"$tmp/build.log" 2>&1; then
        tail -n 60 "$tmp/build.log" >&2
        ra_fail "dpkg-buildpackage -b -us -uc failed (the last 60 lines of the log above)"
fi
grep -E '^[0-9]+% tests passed|tests passed, [0-9]+ tests failed' "$tmp/build.log" | sed 's/^/# package build: /' >&2 || true
deb=$tmp/build/${PKG}_${version}_${arch}.deb
changes=$tmp/build/${PKG}_${version}_${arch}.changes
[ -f "$deb" ] || ra_fail "no $deb after the build"
ra_log "built $(basename "$deb")"
# dpkg would overwrite, and purge remove, any file of the package that is
# still there: a source install's file the list above missed.
while read -r f; do
        f=${f#.}
        [ -d "$f" ] || [ ! -e "$f" ] || ra_fail "$f (a source install's?) is still there: the package would overwrite it; set it aside with the others"
done < <(dpkg-deb --fsys-tarfile "$deb" | tar -t)

# ---- 2. lintian ------------------------------------------------------------

lintian_rc=0
lintian --fail-on error --display-info --show-overrides "$changes" >"$tmp/lintian.log" 2>&1 || lintian_rc=$?
grep -v '^running with root privileges' "$tmp/lintian.log" | sed 's/^/# lintian: /' >&2 || true
n_e=$(grep -c '^E: ' "$tmp/lintian.log" || true)
n_w=$(grep -c '^W: ' "$tmp/lintian.log" || true)
n_o=$(grep -c '^O: ' "$tmp/lintian.log" || true)
ra_log "lintian: $n_e error(s), $n_w warning(s), $n_o override(s)"
[ "$lintian_rc" = 0 ] || ra_fail "lintian reports errors (exit $lintian_rc)"

# ---- 3. udevd and loop devices ---------------------------------------------

# The lock of tests/real and the bench: one owner of udevd and its rules.
ra_lock 900 || ra_fail "another test or bench run holds $RA_LOCK"
ra_udevd_start || ra_skip "$RA_UDEVD_ERROR"

# tests/real and bench put their own 99-readahead-agent.rules in
# /run/udev/rules.d while they run, which hides the packaged rule (and their
# agent would handle our loops): wait until there is none.
foreign_rule=/run/udev/rules.d/99-readahead-agent.rules
wait_no_foreign_rule() {
        local waited=0
        while [ -e "$foreign_rule" ]; do
                [ "$waited" = 0 ] && ra_log "waiting for $foreign_rule (another test: $(head -n1 "$foreign_rule")) to go away"
                [ "$waited" -lt "$WAIT_FOREIGN" ] ||
                        ra_fail "$foreign_rule is still there after ${WAIT_FOREIGN}s: $(head -n1 "$foreign_rule")"
                sleep 2
                waited=$((waited + 2))
        done
}
# Fails when another test's rule showed up since: the results would not be ours.
expect_no_foreign_rule() {
        [ ! -e "$foreign_rule" ] ||
                ra_fail "another test put $foreign_rule in place during $1 ($(head -n1 "$foreign_rule")): not run alone, nothing to conclude"
}

# The value a loop holds after attach must be the kernel's own: no rule may
# have acted on it. Attach again if another test's rule came meanwhile.
for attempt in 1 2 3 4 5; do
        wait_no_foreign_rule
        ra_attach 20G big
        ra_attach 64M small
        [ -e "$foreign_rule" ] || break
        ra_log "another test's rule appeared while attaching; again"
        ra_undo_loops
        [ "$attempt" -lt 5 ] || ra_fail "could not attach loops without another test's rule in place"
done

# What the kernel itself chooses for a disk (block/blk-settings.c,
# blk_apply_bdi_limits): max(2 x io_opt, 128 KiB) in whole pages; since 6.17
# a rotational disk without io_opt uses max_sectors as io_opt.
kernel_formula_kb() {
        local q=/sys/block/$1/queue io_opt page pages min kmaj kmin
        io_opt=$(cat "$q/optimal_io_size")
        IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
        kmin=${kmin%%[!0-9]*}
        if [ "$io_opt" = 0 ] && [ "$(cat "$q/rotational")" = 1 ] &&
                { [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 17 ]; }; }; then
                io_opt=$(($(cat "$q/max_sectors_kb") * 1024))
        fi
        page=$(getconf PAGESIZE)
        pages=$((2 * io_opt / page))
        min=$((131072 / page))
        [ "$pages" -ge "$min" ] || pages=$min
        echo $((pages * page / 1024))
}
declare -A kernel_kb attach_kb
for d in "$big" "$small"; do
        attach_kb[$d]=$(ra_ra_kb "$d")
        kernel_kb[$d]=$(kernel_formula_kb "$d")
        ra_log "$d: the kernel gave it ${attach_kb[$d]} KiB at attach; the formula says ${kernel_kb[$d]} KiB" \
                "(io_opt $(cat /sys/block/$d/queue/optimal_io_size), rotational $(cat /sys/block/$d/queue/rotational)," \
                "max_sectors_kb $(cat /sys/block/$d/queue/max_sectors_kb), Linux $(uname -r))"
        # The reset formula must be what this kernel really does.
        ra_expect_eq "$d: the kernel's own value at attach is the reset formula's" "${attach_kb[$d]}" "${kernel_kb[$d]}"
done

# A FUSE mount: an anonymous bdi "0:N", as NFS has. postinst replays its add
# event. fuse-null is built by the package build (tests/real).
RA_FUSE_NULL=$tree/obj-$(dpkg-architecture -qDEB_HOST_GNU_TYPE)/tests/real/ra-fuse-null
bdi=""
if [ -x "$RA_FUSE_NULL" ] && { [ -c /dev/fuse ] || modprobe fuse 2>/dev/null; } && [ -c /dev/fuse ]; then
        ra_fuse_mount fuse
        fuse_mp=$RA_TMP/mnt/fuse
        bdi=$(ra_bdi_of "$fuse_mp")
        bdi_kb() { ra_bdi_ra_kb "$bdi"; }
        # A FUSE daemon may lower the kernel's 128 KiB at INIT; fuse-null echoes
        # the kernel's offer, as libfuse does.
        ra_expect_eq "FUSE bdi $bdi: the kernel's own value" "$(bdi_kb)" 128
        # The default profile leaves FUSE alone: a runtime drop-in gives this
        # one mount (and only it) 1M, so that install and removal show.
        if [ ! -e /run/readahead-agent ]; then
                mkdir -p "$(dirname "$run_dropin")"
                run_dir_created=1
                printf '[Rule package-test-fuse]\nClass=fuse\nMountPoint=%s\nSize=1M\n' "$fuse_mp" >"$run_dropin"
        else
                ra_log "/run/readahead-agent exists: the FUSE bdi is only checked as left alone"
        fi
else
        [ -z "${CI:-}" ] || ra_fail "no FUSE support or no $RA_FUSE_NULL: the bdi path must be checked in CI"
        ra_log "no FUSE support or no $RA_FUSE_NULL: the bdi part is not checked"
fi

# An administrator's file in /etc: the package must never remove it. It
# changes nothing (the default profile is the default).
if [ ! -e /etc/readahead-agent ]; then
        mkdir -p "$(dirname "$etc_file")"
        etc_dir_created=1
        printf '# readahead-agent tests/package/package.sh\n[Agent]\nProfile=default\n' >"$etc_file"
fi

# ---- 4. install ------------------------------------------------------------

wait_no_foreign_rule
ra_log "dpkg -i $(basename "$deb")"
installed=1
dpkg -i "$deb" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; ra_fail "dpkg -i failed"; }
# postinst replayed the events; wait until udevd has handled them.
udevadm settle --timeout=60
expect_no_foreign_rule "the install"
ra_expect_eq "$big (20 GiB) read_ahead_kb right after install" "$(ra_ra_kb "$big")" 512
ra_expect_eq "$small (64 MiB) read_ahead_kb right after install" "$(ra_ra_kb "$small")" 64
# Disks run the agent from RUN: the installed readahead-ctl says what decided.
ra_expect_status "$big" rule /usr/lib/readahead-agent/profiles/default.conf:disk
ra_expect_status "$small" target_kb 64
# The resume hook is in systemd-sleep's directory (and elogind's), executable.
for hook in $(dpkg -L "$PKG" | grep '/system-sleep/readahead-agent$'); do
        [ -x "$hook" ] || ra_fail "$hook is not executable"
        ra_log "ok: sleep hook $hook"
done
grep -q '/systemd/system-sleep/readahead-agent$' <<<"$(dpkg -L "$PKG")" || ra_fail "no systemd-sleep hook in the package"
if [ -n "$bdi" ]; then
        # The agent ran for the replayed add event: it recorded a result. For a
        # FUSE mount it writes from a short-lived waiter (the daemon may still
        # lower the value at FUSE_INIT), so the result may be "pending" and
        # the value comes a moment later.
        res=$(ra_bdi_prop "$bdi" READAHEAD_RESULT)
        if [ "$run_dir_created" = 1 ]; then
                case $res in
                pending | written) ra_log "ok: FUSE bdi $bdi udev READAHEAD_RESULT = $res (postinst replayed its add event)" ;;
                *) ra_fail "FUSE bdi $bdi udev READAHEAD_RESULT: expected pending or written, got '$res'" ;;
                esac
                for _ in $(seq 100); do
                        [ "$(bdi_kb)" = 1024 ] && break
                        sleep 0.1
                done
                ra_expect_eq "FUSE bdi $bdi read_ahead_kb after install" "$(bdi_kb)" 1024
        else
                ra_expect_eq "FUSE bdi $bdi udev READAHEAD_RESULT (postinst replayed its add event)" "$res" left-alone
        fi
fi

# What the package ships works as installed.
readahead-ctl status >"$tmp/status.out" || { cat "$tmp/status.out" >&2; ra_fail "readahead-ctl status failed"; }
grep -Eq "^$big +hdd +loop .* 512K +512K " "$tmp/status.out" ||
        { cat "$tmp/status.out" >&2; ra_fail "status does not show $big at 512K without drift"; }
readahead-ctl check >/dev/null || ra_fail "readahead-ctl check reports problems in the installed configuration"
readahead-ctl cat-config >"$tmp/cat-config.out" || ra_fail "readahead-ctl cat-config failed"
grep -qxF "# /usr/lib/readahead-agent/profiles/default.conf" "$tmp/cat-config.out" ||
        ra_fail "cat-config does not show the vendor profile"
grep -qxF "# $etc_file" "$tmp/cat-config.out" || [ "$etc_dir_created" = 0 ] ||
        ra_fail "cat-config does not show $etc_file"
for f in /usr/share/man/man8/readahead-ctl.8.gz /usr/share/man/man8/readahead-agent.8.gz \
        /usr/share/man/man5/readahead.conf.5.gz /usr/share/bash-completion/completions/readahead-ctl; do
        [ -s "$f" ] || ra_fail "$f is not installed"
done
bash -n /usr/share/bash-completion/completions/readahead-ctl || ra_fail "the bash completion does not parse"
rule=$(dpkg -L "$PKG" | grep '/rules.d/99-readahead-agent.rules$') || ra_fail "no udev rule in the package"
[ -f "$rule" ] || ra_fail "$rule is not installed"
ra_log "ok: installed: status, check, cat-config, man pages, completion, $rule"

# ---- 4b. autopkgtest ---------------------------------------------------------

# debian/tests against the package as installed, with autopkgtest's null
# runner: this machine gives the tests what they need and a container or a
# chroot would not, a real kernel (loop devices, FUSE) and root, with the
# udevd started above; the systemd lab's guests would give them too, but
# under emulation and without autopkgtest in their images.
command -v autopkgtest >/dev/null || ra_skip "autopkgtest is not installed (scripts/install-deps.sh --test)"
t0=$SECONDS
apt_rc=0
autopkgtest --no-built-binaries --output-dir "$tmp/autopkgtest" "$tree" -- null >"$tmp/autopkgtest.log" 2>&1 || apt_rc=$?
grep -E '^(ok|FAIL|SKIP):|^[a-z-]+ +(PASS|FAIL|SKIP)' "$tmp/autopkgtest.log" | sed 's/^/# autopkgtest: /' >&2 || true
[ "$apt_rc" = 0 ] || { tail -n 60 "$tmp/autopkgtest.log" >&2; ra_fail "autopkgtest failed or skipped a test (exit $apt_rc)"; }
expect_no_foreign_rule "autopkgtest"
ra_log "ok: autopkgtest (null runner): every debian/tests test passed in $((SECONDS - t0)) s"

# ---- 5. remove -------------------------------------------------------------

# The agent's value differs from the kernel's, or the check below proves nothing.
[ "$(ra_ra_kb "$big")" != "${kernel_kb[$big]}" ] || ra_fail "512 is the kernel's own value here: the removal check would prove nothing"
# A container's agent on this host (deploy/kubernetes's DaemonSet) runs a
# program of the same path from its image: here a copy of sleep, bound over
# that path in a mount namespace of its own. prerm stops only the package's
# own processes, never it.
cp /bin/sleep "$tmp/container-agent"
unshare -m --propagation private sh -c \
        'mount --bind "$1" /usr/libexec/readahead-agent && exec /usr/libexec/readahead-agent 600' \
        sh "$tmp/container-agent" &
container_pid=$!
RA_BG_PIDS+=("$container_pid")
for _ in $(seq 50); do
        [ "$(readlink "/proc/$container_pid/exe" 2>/dev/null)" = /usr/libexec/readahead-agent ] && break
        sleep 0.1
done
[ "$(readlink "/proc/$container_pid/exe")" = /usr/libexec/readahead-agent ] ||
        ra_fail "the container's stand-in agent did not start"
ra_log "dpkg -r $PKG"
dpkg -r "$PKG" >"$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log" >&2; ra_fail "dpkg -r failed"; }
kill -0 "$container_pid" 2>/dev/null ||
        ra_fail "dpkg -r stopped a container's /usr/libexec/readahead-agent (pid $container_pid), not the package's"
ra_log "ok: a container's /usr/libexec/readahead-agent outlives dpkg -r"
expect_no_foreign_rule "the removal"
ra_expect_eq "$big read_ahead_kb after removal (the kernel's value)" "$(ra_ra_kb "$big")" "${kernel_kb[$big]}"
ra_expect_eq "$small read_ahead_kb after removal (the kernel's value)" "$(ra_ra_kb "$small")" "${kernel_kb[$small]}"
[ -z "$bdi" ] || ra_expect_eq "FUSE bdi $bdi read_ahead_kb after removal" "$(bdi_kb)" 128
[ ! -e "$rule" ] || ra_fail "$rule is still there after dpkg -r"
[ ! -e /usr/bin/readahead-ctl ] || ra_fail "/usr/bin/readahead-ctl is still there after dpkg -r"
ra_log "ok: $rule is gone"
# udevd no longer runs the agent: a change event leaves the kernel's value.
udevadm trigger --action=change --settle "/sys/class/block/$big" "/sys/class/block/$small"
udevadm settle --timeout=60
expect_no_foreign_rule "the change event"
ra_expect_eq "$big read_ahead_kb after a change event with the package removed" "$(ra_ra_kb "$big")" "${kernel_kb[$big]}"
ra_expect_eq "$small read_ahead_kb after a change event with the package removed" "$(ra_ra_kb "$small")" "${kernel_kb[$small]}"

# ---- 6. purge --------------------------------------------------------------

dpkg -P "$PKG" >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log" >&2; ra_fail "dpkg -P failed"; }
installed=0
status=$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null || true)
case $status in
"" | *not-installed) ra_log "ok: $PKG purged" ;;
*) ra_fail "$PKG after dpkg -P: '$status'" ;;
esac
if [ "$etc_dir_created" = 1 ]; then
        [ -f "$etc_file" ] || ra_fail "purge removed the administrator's $etc_file"
        ra_log "ok: purge left $etc_file alone"
fi
