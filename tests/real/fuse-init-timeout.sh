#!/bin/bash
# SPDX-License-Identifier: MIT
# A FUSE daemon that does not answer FUSE_INIT within MountWaitSec=: the
# waiter (readahead-agent --wait-bdi, run here in the foreground) waits for
# the answer in statfs(), which only a fatal signal ends. It must give up
# after the bound with a log line and exit 1, write nothing, and not die
# silently (it once did, killed by its own alarm()).
. "$(dirname "$0")/lib.sh"
ra_init
ra_require_fuse

etc=$ROOT/etc/readahead-agent
mkdir -p "$etc/profiles/default.conf.d" "$etc/readahead.conf.d"
printf '[Rule fuse]\nClass=fuse\nSize=1M\n' >"$etc/profiles/default.conf.d/50-fuse.conf"
printf '[Agent]\nMountWaitSec=1\n' >"$etc/readahead.conf.d/50-wait.conf"

# Not ra_fuse_mount: it returns once INIT is answered. No rule is installed,
# so udev runs no agent for this mount.
mp=$RA_TMP/mnt/mute
mkdir -p "$mp"
out=$RA_TMP/fuse-mute.out
"$RA_FUSE_NULL" -i 6000 "$mp" >"$out" 2>&1 &
RA_FUSE_PIDS+=("$!")
RA_FUSE_MPS+=("$mp")
# mountinfo only: stat() on the mount would itself wait for INIT.
for i in $(seq 50); do
        b=$(awk -v mp="$mp" '$5 == mp { print $3 }' /proc/self/mountinfo)
        [ -n "$b" ] && break
        sleep 0.1
done
[ -n "$b" ] || ra_fail "fuse-null did not mount $mp: $(cat "$out")"
grep -q '^ready' "$out" && ra_fail "fuse-null answered INIT already; the test needs it unanswered"
ra_log "mounted $mp, bdi $b, INIT unanswered for 6 s"

before=$(ra_bdi_ra_kb "$b")
since=$(date '+%Y-%m-%d %H:%M:%S')
start=$(date +%s%N)
rc=0
err=$(env -i PATH="$PATH" "$RA_AGENT" --root "$ROOT" --wait-bdi "$b" 2>&1 >/dev/null) || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
ra_log "waiter: exit $rc after $ms ms: $err"
ra_expect_eq "waiter exit code (1: gave up, >128: killed by a signal)" "$rc" 1
[ "$ms" -lt 4000 ] || ra_fail "the waiter took $ms ms, MountWaitSec=1"
# The agent logs to the journal where one runs, else to stderr.
if [ -w /run/systemd/journal/socket ]; then
        err=$(journalctl -q -o cat -t readahead-agent --since "$since" 2>/dev/null)
fi
case $err in
*"$b: the FUSE daemon did not answer FUSE_INIT within 1 s, giving up"*) ;;
*) ra_fail "the waiter did not log its timeout: '$err'" ;;
esac
ra_expect_eq "bdi $b read_ahead_kb (nothing written)" "$(ra_bdi_ra_kb "$b")" "$before"

# Let the daemon answer before cleanup unmounts.
for i in $(seq 100); do
        grep -q '^ready' "$out" && break
        sleep 0.1
done
ra_log "ok"
