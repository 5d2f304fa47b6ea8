#!/bin/bash
# SPDX-License-Identifier: MIT
# Disks are written through their bdi, /sys/class/bdi/MAJ:MIN/read_ahead_kb:
# the same setting as queue/read_ahead_kb, whose write freezes the queue on
# 6.14 to 6.18.2 (and hangs on a multipath map with no path). Proof without
# strace: in a private mount namespace queue/read_ahead_kb is covered by a
# read-only file, so a write there fails with EROFS; apply and the agent
# still succeed there, and outside it queue/read_ahead_kb reads the value
# the bdi was given.
. "$(dirname "$0")/lib.sh"
ra_init
command -v unshare >/dev/null || ra_skip "unshare (util-linux) is not installed"

ra_attach 20G disk
bdi=$(cat "/sys/block/$disk/dev")
printf '128\n' >"$RA_TMP/queue-ra"

# in_masked_ns CMD...: CMD where queue/read_ahead_kb of $disk is read-only.
in_masked_ns() {
        unshare -m sh -c '
                a=/sys/block/$1/queue/read_ahead_kb
                mount --bind "$2" "$a" && mount -o remount,bind,ro "$a" || exit 99
                if (echo 4 >"$a") 2>/dev/null; then echo "queue/read_ahead_kb is still writable" >&2; exit 99; fi
                shift 2
                exec "$@"
        ' sh "$disk" "$RA_TMP/queue-ra" "$@"
}

ra_set_ra "$disk" 128
rc=0
out=$(in_masked_ns "$RA_CTL" --root "$ROOT" apply "$disk" 2>&1) || rc=$?
ra_log "apply $disk with queue/read_ahead_kb read-only: $out"
ra_expect_eq "apply $disk: exit status" "$rc" 0
ra_expect_eq "apply $disk: what it says" "$out" "$(printf '%-10s 128K -> 512K' "$disk") (${ROOT}${RA_VENDOR_DIR}/profiles/default.conf:disk)"
ra_expect_ra "$disk" 512
ra_expect_eq "bdi $bdi read_ahead_kb" "$(ra_bdi_ra_kb "$bdi")" 512

ra_set_ra "$disk" 128
mapfile -t envs < <(udevadm info --query=property --name="/dev/$disk" | grep -v '^READAHEAD_')
rc=0
out=$(in_masked_ns env -i "${envs[@]}" ACTION=change SEQNUM=1 "$RA_AGENT" --root "$ROOT" 2>&1) || rc=$?
ra_log "agent change $disk with queue/read_ahead_kb read-only: $out"
ra_expect_eq "agent: exit status" "$rc" 0
grep -qx 'READAHEAD_RESULT=written' <<<"$out" || ra_fail "agent: expected READAHEAD_RESULT=written, got: $out"
ra_expect_ra "$disk" 512
