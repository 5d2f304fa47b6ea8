#!/bin/bash
# SPDX-License-Identifier: MIT
# A real FUSE filesystem (bindfs, as Debian ships it) under a real
# systemd-udevd, with the project rule in /run/udev/rules.d running the build
# tree's agent with a private --root. A FUSE mount registers a real anonymous
# bdi (0:N) with a real `add` event, like an NFS mount does:
#   1. default profile: the mount is classified (fuse), listed by
#      `readahead-ctl status --json` once, with target_kb null, and its bdi
#      keeps the kernel's 128 KiB (whether the agent decided at once or
#      handed the wait to a waiter);
#   2. udev's own `udevadm test` output: a disk bdi event (7:0, or another
#      MAJ:MIN bdi with a major other than 0) never reaches the agent, the FUSE
#      bdi event does, through our rule file;
#   3. an /etc rule naming that mount point (Size=1M): a fresh mount there
#      gets 1024, while another FUSE mount stays at 128.
# Helpers (ra_init, ra_install_rule, ra_expect_eq, ...) come from
# tests/real/lib.sh. Skipped (77) without root, udevd, bindfs or /dev/fuse;
# fails instead when CI is set.
. "$(dirname "$0")/../real/lib.sh"

NETFS_MPS=()      # bindfs mount points of this test, unmounted at exit

netfs_cleanup() {
        local rc=$? mp
        set +e
        for mp in "${NETFS_MPS[@]}"; do
                if mountpoint -q "$mp" 2>/dev/null; then
                        umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null ||
                                ra_log "could not unmount $mp"
                fi
        done
        [ "${#NETFS_MPS[@]}" -eq 0 ] || udevadm settle --timeout=30 2>/dev/null
        (exit "$rc")
        ra_cleanup
}

ra_init
trap netfs_cleanup EXIT

command -v bindfs >/dev/null || ra_skip "bindfs is not installed (scripts/install-deps.sh --test)"
command -v mountpoint >/dev/null || ra_skip "mountpoint (util-linux) is not installed"
command -v python3 >/dev/null || ra_skip "python3 is not installed"
[ -c /dev/fuse ] || modprobe fuse 2>/dev/null || true
[ -c /dev/fuse ] || ra_skip "no FUSE support (/dev/fuse)"
ra_check_path "$RA_TMP"

ra_install_rule
rule=$RA_RULE_DEST
etc=$ROOT/etc/readahead-agent

# netfs_mount NAME VAR: bindfs of an empty directory on $RA_TMP/mnt/NAME;
# waits until udev has handled the bdi event; VAR receives the bdi (0:N).
netfs_mount() {
        local mp=$RA_TMP/mnt/$1 bdi
        mkdir -p "$RA_TMP/src/$1" "$mp"
        NETFS_MPS+=("$mp")
        bindfs "$RA_TMP/src/$1" "$mp" || ra_fail "bindfs $RA_TMP/src/$1 $mp failed"
        udevadm settle --timeout=60
        bdi=$(mountpoint -d "$mp") || ra_fail "$mp is not a mount point after bindfs"
        [[ $bdi == 0:+([0-9]) ]] || ra_fail "bindfs on $mp has bdi '$bdi', not 0:N"
        [ -d "/sys/class/bdi/$bdi" ] || ra_fail "no /sys/class/bdi/$bdi for $mp"
        ra_log "bindfs on $mp: bdi $bdi; udev:" \
                "$(udevadm info -q property -p "/devices/virtual/bdi/$bdi" | grep '^READAHEAD_' | tr '\n' ' ')"
        printf -v "$2" '%s' "$bdi"
}

netfs_umount() {
        umount "$RA_TMP/mnt/$1" || ra_fail "umount $RA_TMP/mnt/$1 failed"
        udevadm settle --timeout=60
}

# Waiters (readahead-agent --wait-bdi BDI --root ROOT) of this test.
netfs_waiters() {
        local f
        for f in /proc/[0-9]*/cmdline; do
                tr '\0' ' ' <"$f" 2>/dev/null | grep -qF -- "--wait-bdi $1 --root $ROOT " &&
                        { f=${f#/proc/}; echo "${f%/cmdline}"; }
        done
        return 0
}

# netfs_settle_bdi BDI: the agent decided in udev's worker, or handed the wait
# to a waiter; either way it has finished within 10 s (the mount is there).
netfs_settle_bdi() {
        local i
        for i in $(seq 100); do
                [ -z "$(netfs_waiters "$1")" ] && return 0
                sleep 0.1
        done
        ra_fail "a waiter for bdi $1 still runs 10 s after its mount: $(netfs_waiters "$1")"
}

netfs_prop() {
        udevadm info -q property -p "/devices/virtual/bdi/$1" | sed -n "s/^$2=//p"
}

# netfs_expect_mount JSON MOUNTPOINT KEY=JSONVALUE...: the status --json
# document lists the mount at MOUNTPOINT exactly once, with these fields.
netfs_expect_mount() {
        python3 - "$@" <<'PY' || ra_fail "status --json: mount $2 (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
mp = sys.argv[2]
found = [d for d in doc.get("devices", []) if d.get("kind") == "mount" and d.get("mount_point") == mp]
bad = 0
if len(found) != 1:
    print(f"FAIL: status lists mount {mp} {len(found)} times:\n{json.dumps(doc, indent=1)}", file=sys.stderr)
    sys.exit(1)
d = found[0]
for kv in sys.argv[3:]:
    k, _, v = kv.partition("=")
    if d.get(k) != json.loads(v):
        print(f"FAIL: status {mp} {k}: expected {v}, got {json.dumps(d.get(k))}", file=sys.stderr)
        bad = 1
    else:
        print(f"# ok: status {mp} {k} = {v}", file=sys.stderr)
if bad:
    print(json.dumps(d, indent=1), file=sys.stderr)
sys.exit(bad)
PY
}

netfs_status() {
        local out=$RA_TMP/status-$1.json
        "$RA_CTL" --root "$ROOT" status --json >"$out" || ra_fail "readahead-ctl status --json exited $?"
        echo "$out"
}

# ---- 1. Default profile: FUSE is recognised and left alone.
netfs_mount plain plain
netfs_mount other other
for b in "$plain" "$other"; do
        netfs_settle_bdi "$b"
        case $(netfs_prop "$b" READAHEAD_RESULT) in
        left-alone) ;;
        pending) ra_expect_eq "bdi $b READAHEAD_WAIT" "$(netfs_prop "$b" READAHEAD_WAIT)" \
                "$([ -d /run/systemd/system ] && echo systemd || echo process)" ;;
        *) ra_fail "bdi $b: udev READAHEAD_RESULT '$(netfs_prop "$b" READAHEAD_RESULT)', want left-alone or pending" ;;
        esac
        [ -z "$(netfs_prop "$b" READAHEAD_TARGET_KB)" ] || ra_fail "bdi $b has a READAHEAD_TARGET_KB"
        # The kernel's bdi default (VM_READAHEAD_PAGES, 128 KiB); bindfs does
        # not lower it in its FUSE INIT reply.
        ra_expect_eq "bdi $b (fuse, default profile) read_ahead_kb" "$(ra_bdi_ra_kb "$b")" 128
done
json=$(netfs_status default)
netfs_expect_mount "$json" "$RA_TMP/mnt/plain" kind='"mount"' name="\"$plain\"" class='"fuse"' \
        fstype='"fuse"' mount_points=1 target_kb=null current_kb=128 rule_section='"other-network"'
netfs_expect_mount "$json" "$RA_TMP/mnt/other" kind='"mount"' name="\"$other\"" class='"fuse"' \
        target_kb=null current_kb=128
"$RA_CTL" --root "$ROOT" explain "$RA_TMP/mnt/plain" >&2 || true
"$RA_CTL" --root "$ROOT" explain "$RA_TMP/mnt/plain" --json >"$RA_TMP/explain.json" ||
        ra_fail "explain $RA_TMP/mnt/plain exited $?"
ra_expect_eq "explain $RA_TMP/mnt/plain device.name, target_kb" \
        "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["device"]["name"], d["target_kb"])' "$RA_TMP/explain.json")" \
        "$plain None"

# ---- 2. What udev runs, from its own test output.
disk_bdi=7:0
if [ ! -e /sys/class/bdi/7:0 ]; then
        disk_bdi=$(find /sys/class/bdi -mindepth 1 -maxdepth 1 -name '[1-9]*:[0-9]*' -printf '%f\n' | sort | head -n 1)
fi
[ -n "$disk_bdi" ] || ra_skip "no non-anonymous bdi (MAJ:MIN, major > 0) on this machine"
out=$RA_TMP/udevadm-test-disk.txt
udevadm test --action=add "/sys/class/bdi/$disk_bdi" >"$out" 2>&1 || ra_fail "udevadm test $disk_bdi failed: $(tail -5 "$out")"
# The rule file was read, so its silence below means it stopped the event.
grep -qF "Reading rules file: $rule" "$out" || { cat "$out" >&2; ra_fail "udevadm test did not read $rule"; }
# A rule of ours that acts is logged as "FILE:LINE ...".
if grep -E "${rule//./\\.}:[0-9]+" "$out" >&2 || grep -F -- "$RA_AGENT" "$out" >&2; then
        ra_fail "udevadm test --action=add /sys/class/bdi/$disk_bdi: our rule acts on a disk bdi (lines above)"
fi
ra_log "ok: udevadm test of bdi $disk_bdi: nothing from $rule, no agent"
out=$RA_TMP/udevadm-test-fuse.txt
udevadm test --action=add "/sys/class/bdi/$plain" >"$out" 2>&1 || ra_fail "udevadm test $plain failed: $(tail -5 "$out")"
grep -E "${rule//./\\.}:[0-9]+ Importing properties from results of '$RA_AGENT " "$out" >&2 ||
        { cat "$out" >&2; ra_fail "udevadm test of FUSE bdi $plain: $rule does not run the agent"; }
ra_log "ok: udevadm test of FUSE bdi $plain runs the agent through $rule"
netfs_settle_bdi "$plain"

# ---- 3. An /etc rule naming the mount point; a fresh mount there.
mkdir -p "$etc/profiles/default.conf.d"
cat >"$etc/profiles/default.conf.d/50-x.conf" <<CONF
[Rule plain-mount]
MountPoint=$RA_TMP/mnt/plain
Size=1M
CONF
"$RA_CTL" --root "$ROOT" check >&2 || ra_fail "readahead-ctl check rejects the drop-in"
netfs_umount plain
netfs_mount plain plain2
netfs_settle_bdi "$plain2"
for i in $(seq 100); do
        [ "$(ra_bdi_ra_kb "$plain2")" = 1024 ] && break
        sleep 0.1
done
ra_expect_eq "bdi $plain2 (fresh mount on $RA_TMP/mnt/plain, rule Size=1M) read_ahead_kb" "$(ra_bdi_ra_kb "$plain2")" 1024
case $(netfs_prop "$plain2" READAHEAD_RESULT) in
written | pending) ;;
*) ra_fail "bdi $plain2: udev READAHEAD_RESULT '$(netfs_prop "$plain2" READAHEAD_RESULT)', want written or pending" ;;
esac
ra_expect_eq "bdi $other (not named by the rule) read_ahead_kb" "$(ra_bdi_ra_kb "$other")" 128
json=$(netfs_status rule)
netfs_expect_mount "$json" "$RA_TMP/mnt/plain" name="\"$plain2\"" class='"fuse"' target_kb=1024 \
        current_kb=1024 drift=false rule_section='"plain-mount"'
netfs_expect_mount "$json" "$RA_TMP/mnt/other" name="\"$other\"" target_kb=null current_kb=128
