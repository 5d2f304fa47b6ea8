#!/bin/bash
# SPDX-License-Identifier: MIT
# The agent's bdi path on a real udevd, with FUSE standing in for NFS (this
# kernel has no NFS client): every FUSE mount gets an anonymous bdi "0:N"
# whose add event is sent while mount(2) runs, before the mount is in
# /proc/self/mountinfo.
#   1. default profile: FUSE is left alone (Rule other-network, Size=keep);
#   2. an /etc rule for Class=fuse, and one for a MountPoint=, set new mounts;
#   3. status --json lists the mounts with target_kb == current_kb, and
#      apply MOUNTPOINT re-asserts after a foreign write;
#   4. a mount that appears 1.5 s after its bdi (new mount API: superblock
#      first, mount later): udev is done at once, the detached waiter sets
#      the value when the mount shows up;
#   5. a mount udev cannot see (private mount namespace): the udev worker is
#      not held up, a detached waiter gives up after MountWaitSec=.
#
# The helper answers FUSE_INIT with max_readahead 64 MiB here: the kernel
# lowers the bdi to that reply when it arrives, and a reply of the kernel's
# own 128 KiB offer (what libfuse sends) can undo the agent's value when the
# agent is quicker than the daemon. That race is fuse-init-race.sh's subject;
# this test is about the bdi path itself.
. "$(dirname "$0")/lib.sh"
ra_init
ra_require_fuse
ra_install_rule

etc=$ROOT/etc/readahead-agent

# 1. Default profile.
ra_fuse_mount -r 65536 plain
plain=$(ra_bdi_of "$RA_TMP/mnt/plain")
[[ $plain == 0:* ]] || ra_fail "FUSE mount has bdi '$plain', not 0:N"
ra_log "plain: bdi $plain, udev: RESULT=$(ra_bdi_prop "$plain" READAHEAD_RESULT) WAIT=$(ra_bdi_prop "$plain" READAHEAD_WAIT)"
sleep 1 # a waiter, if one was started, has seen the mount by now
ra_expect_eq "bdi $plain (fuse, default profile) read_ahead_kb" "$(ra_bdi_ra_kb "$plain")" 128
case $(ra_bdi_prop "$plain" READAHEAD_RESULT) in
left-alone | pending) ;;
*) ra_fail "bdi $plain: READAHEAD_RESULT is '$(ra_bdi_prop "$plain" READAHEAD_RESULT)', want left-alone (or pending)" ;;
esac

# 2. Rules in /etc, then new mounts.
mkdir -p "$etc/profiles/default.conf.d"
cat >"$etc/profiles/default.conf.d/50-fuse.conf" <<CONF
[Rule fuse]
Class=fuse
Size=1M

[Rule one-mount]
Kind=mount
MountPoint=$RA_TMP/mnt/one
Size=256K
CONF
"$RA_CTL" --root "$ROOT" check >&2 || ra_fail "check rejects the FUSE drop-in"
ra_fuse_mount -r 65536 fast one
fast=$(ra_bdi_of "$RA_TMP/mnt/fast")
one=$(ra_bdi_of "$RA_TMP/mnt/one")
for b in "$fast" "$one"; do
        ra_log "bdi $b: udev RESULT=$(ra_bdi_prop "$b" READAHEAD_RESULT) WAIT=$(ra_bdi_prop "$b" READAHEAD_WAIT) RULE=$(ra_bdi_prop "$b" READAHEAD_RULE)"
done
ra_wait_bdi_ra "$fast" 1024
ra_wait_bdi_ra "$one" 256
# The mount that came before the rule keeps its value until applied.
ra_expect_eq "bdi $plain read_ahead_kb" "$(ra_bdi_ra_kb "$plain")" 128

# 3. status and apply.
if command -v jq >/dev/null; then
        json=$RA_TMP/status.json
        "$RA_CTL" --root "$ROOT" status --json >"$json" || ra_fail "status --json exited $?"
        for pair in "fast:1024" "one:256" "plain:1024"; do
                n=${pair%%:*} want=${pair#*:}
                d=$(jq -c --arg m "$RA_TMP/mnt/$n" '[.devices[] | select(.kind == "mount" and .mount_point == $m)]' "$json")
                [ "$(jq length <<<"$d")" = 1 ] || { cat "$json" >&2; ra_fail "status lists mount $n $(jq length <<<"$d") times"; }
                ra_log "status: $(jq -c '.[0]' <<<"$d")"
                ra_expect_eq "status $n target_kb" "$(jq -r '.[0].target_kb' <<<"$d")" "$want"
                ra_expect_eq "status $n class" "$(jq -r '.[0].class' <<<"$d")" fuse
        done
        d=$(jq -c --arg m "$RA_TMP/mnt/fast" '.devices[] | select(.mount_point == $m)' "$json")
        ra_expect_eq "status fast current_kb" "$(jq -r .current_kb <<<"$d")" 1024
        ra_expect_eq "status fast drift" "$(jq -r .drift <<<"$d")" false
else
        ra_log "jq not installed: status --json not checked"
fi
echo 4096 >"/sys/class/bdi/$fast/read_ahead_kb"
"$RA_CTL" --root "$ROOT" apply "$RA_TMP/mnt/fast" "$RA_TMP/mnt/plain" >&2 || ra_fail "apply MOUNTPOINT exited $?"
ra_expect_eq "bdi $fast after apply" "$(ra_bdi_ra_kb "$fast")" 1024
ra_expect_eq "bdi $plain after apply" "$(ra_bdi_ra_kb "$plain")" 1024

# 4. A mount that comes 1.5 s after its bdi.
ra_fuse_mount -r 65536 -d 1500 late
t0=$(date +%s%N)
udevadm settle --timeout=60
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
ra_log "udevadm settle after the bdi of a late mount: $ms ms"
grep -qx ready "$RA_FUSE_OUT" && ra_fail "the mount was already there when udev settled ($ms ms): cannot tell"
late=$(ls -1 /sys/class/bdi | grep '^0:' | while read -r b; do
        case " $plain $fast $one " in *" $b "*) ;; *) echo "$b" ;; esac
done | sort -t: -k2 -n | tail -1)
[ -n "$late" ] || ra_fail "cannot find the late mount's bdi"
ra_log "late: bdi $late, udev: RESULT=$(ra_bdi_prop "$late" READAHEAD_RESULT) WAIT=$(ra_bdi_prop "$late" READAHEAD_WAIT)"
ra_expect_eq "bdi $late udev READAHEAD_RESULT" "$(ra_bdi_prop "$late" READAHEAD_RESULT)" pending
ra_expect_eq "bdi $late read_ahead_kb before its mount" "$(ra_bdi_ra_kb "$late")" 128
for i in $(seq 50); do grep -qx ready "$RA_FUSE_OUT" && break; sleep 0.1; done
grep -qx ready "$RA_FUSE_OUT" || ra_fail "late mount never came"
ra_expect_eq "late mount's bdi" "$(ra_bdi_of "$RA_TMP/mnt/late")" "$late"
ra_wait_bdi_ra "$late" 1024 5

# 5. A mount udev never sees. The event must not wait for it.
mkdir -p "$etc/readahead.conf.d"
printf '[Agent]\nMountWaitSec=3\n' >"$etc/readahead.conf.d/50-wait.conf"
t0=$(date +%s%N)
ra_fuse_mount -r 65536 -n hidden
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
ra_log "mount + udevadm settle took $ms ms with MountWaitSec=3"
[ "$ms" -lt 2500 ] || ra_fail "udev waited ${ms} ms for a mount it cannot see: the wait is in the worker"
hidden=$(ls -1 /sys/class/bdi | grep '^0:' | while read -r b; do
        case " $plain $fast $one $late " in *" $b "*) ;; *) echo "$b" ;; esac
done | sort -t: -k2 -n | tail -1)
[ -n "$hidden" ] || ra_fail "cannot find the hidden mount's bdi"
ra_log "hidden: bdi $hidden, udev: RESULT=$(ra_bdi_prop "$hidden" READAHEAD_RESULT) WAIT=$(ra_bdi_prop "$hidden" READAHEAD_WAIT)"
ra_expect_eq "bdi $hidden udev READAHEAD_RESULT" "$(ra_bdi_prop "$hidden" READAHEAD_RESULT)" pending
waiter() { grep -lz -- "--wait-bdi" /proc/[0-9]*/cmdline 2>/dev/null | while read -r f; do
        tr '\0' ' ' <"$f" | grep -q -- "--wait-bdi $hidden " && echo "${f//[^0-9]/}"; done; }
[ -n "$(waiter)" ] || ra_log "no waiter process seen for $hidden (already gone?)"
for i in $(seq 60); do
        [ -z "$(waiter)" ] && break
        sleep 0.1
done
[ -z "$(waiter)" ] || ra_fail "the waiter for $hidden is still running 6 s after MountWaitSec=3"
ra_expect_eq "bdi $hidden read_ahead_kb (never seen)" "$(ra_bdi_ra_kb "$hidden")" 128
