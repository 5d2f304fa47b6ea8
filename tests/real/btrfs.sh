#!/bin/bash
# SPDX-License-Identifier: MIT
# btrfs on loop devices under the real udevd: file reads on btrfs use the
# filesystem's own bdi (btrfs-N), which btrfs sets to max(4 MiB, 128 KiB x
# devices) during mount(2), after the bdi's add event. The agent must set it
# once the mount is complete, off the udev worker, and the value must stay.
#   0. first of all: a btrfs mounted before the rule existed (4096, btrfs's
#      own value) gets 512 from the replayed add event, as the package's
#      postinst replays it;
#   1. one-device btrfs (8 GiB): 512 on its bdi, still 512 after udev settles
#      and a moment later (nothing undoes it); the disk's own value is not
#      what the bdi holds;
#   2. two-device raid0 (2 x 8 GiB; stripe 2 x 64K = 128K, 2 x stripe = 256K
#      is below the default): 512;
#   3. remount (ro, then rw) keeps 512;
#   4. an /etc rule by MountPoint= (1M) changes that filesystem after
#      `readahead-ctl apply`, and not the other one;
#   5. status --json lists each filesystem once, as kind mount named by its
#      bdi, at its target; explain by mount point names the bdi;
#   6. unmount and mount again: a new bdi, which gets the value again (1M
#      from the rule, so it is the agent's and not btrfs's own 4M);
#   7. reset writes btrfs's own value back (4096).
. "$(dirname "$0")/lib.sh"
ra_init
command -v mkfs.btrfs >/dev/null || ra_skip "mkfs.btrfs is not installed (Debian: btrfs-progs)"
grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null || true
grep -qw btrfs /proc/filesystems || ra_skip "this kernel has no btrfs"
command -v blkid >/dev/null || ra_skip "blkid (util-linux) is not installed"

# For 0: a filesystem mounted while no rule of ours is installed.
ra_attach 8G early
mkfs.btrfs -q -f "/dev/$early" >/dev/null 2>&1 || ra_fail "mkfs.btrfs /dev/$early failed"
ra_mount early "/dev/$early"
udevadm settle --timeout=60

ra_install_rule

# btrfs_bdi DEV: the bdi (btrfs-N) of the filesystem on DEV, by its fsid.
btrfs_bdi() {
        local uuid link
        uuid=$(blkid -p -s UUID -o value "/dev/$1") || ra_fail "blkid cannot read the btrfs UUID of $1"
        link=$(readlink "/sys/fs/btrfs/$uuid/bdi") || ra_fail "no /sys/fs/btrfs/$uuid/bdi for $1"
        basename "$link"
}

# mounted DIR MOUNT-ARGS...: ra_mount, then udev settles; remembers when
# mount(2) returned, for set_after.
mounted() {
        ra_mount "$@"
        mount_ns=$(date +%s%N)
        udevadm settle --timeout=60
}

# set_after BDI KB: the agent's waiter sets it; logs how long after mount(2).
set_after() {
        ra_wait_bdi_ra "$1" "$2"
        ra_log "bdi $1 at $2 KiB $((($(date +%s%N) - mount_ns) / 1000000)) ms after mount(2) returned (polled every 100 ms)"
}

# still_at BDI KB: the value holds through the agent's own checks (up to 2 s
# after its write) and a while after.
still_at() {
        sleep 3
        ra_expect_eq "bdi $1 read_ahead_kb 3 s later" "$(ra_bdi_ra_kb "$1")" "$2"
}

# 0. The filesystem mounted before the rule (first, before any apply):
# btrfs's own value until the package's postinst replays the add event of
# btrfs bdis (here only this one: other bdis are not ours to touch).
bdi0=$(btrfs_bdi "$early")
ra_expect_eq "bdi $bdi0 (mounted before the rule) read_ahead_kb" "$(ra_bdi_ra_kb "$bdi0")" 4096
postinst=$RA_SOURCE_DIR/debian/readahead-agent.postinst
grep -q -- "--sysname-match='btrfs-\*'" "$postinst" || ra_fail "$postinst does not replay btrfs bdis"
udevadm trigger --action=add --subsystem-match=bdi --sysname-match="$bdi0"
udevadm settle --timeout=60
ra_expect_eq "bdi $bdi0 udev READAHEAD_RESULT after the replay" "$(ra_bdi_prop "$bdi0" READAHEAD_RESULT)" written
ra_expect_eq "bdi $bdi0 after the replay" "$(ra_bdi_ra_kb "$bdi0")" 512

# 1. One device.
ra_attach 8G one
mkfs.btrfs -q -f "/dev/$one" >/dev/null 2>&1 || ra_fail "mkfs.btrfs /dev/$one failed"
udevadm settle --timeout=60
mounted one "/dev/$one"
bdi1=$(btrfs_bdi "$one")
[[ $bdi1 == btrfs-* ]] || ra_fail "bdi of the btrfs on $one is '$bdi1', not btrfs-N"
ra_log "one: bdi $bdi1, udev: RESULT=$(ra_bdi_prop "$bdi1" READAHEAD_RESULT) WAIT=$(ra_bdi_prop "$bdi1" READAHEAD_WAIT)"
set_after "$bdi1" 512
still_at "$bdi1" 512
ra_expect_ra "$one" 512 # the disk itself, set by its own event

# 2. Two devices, data raid0.
ra_attach 8G r0a
ra_attach 8G r0b
mkfs.btrfs -q -f -d raid0 -m raid1 "/dev/$r0a" "/dev/$r0b" >/dev/null 2>&1 || ra_fail "mkfs.btrfs raid0 failed"
udevadm settle --timeout=60
mounted raid0 "/dev/$r0a"
bdi2=$(btrfs_bdi "$r0a")
ra_log "raid0: bdi $bdi2, udev: RESULT=$(ra_bdi_prop "$bdi2" READAHEAD_RESULT) WAIT=$(ra_bdi_prop "$bdi2" READAHEAD_WAIT)"
set_after "$bdi2" 512
still_at "$bdi2" 512

# 3. Remount.
mount -o remount,ro "$RA_TMP/mnt/one" || ra_fail "remount,ro failed"
udevadm settle --timeout=60
ra_expect_eq "bdi $bdi1 after remount,ro" "$(ra_bdi_ra_kb "$bdi1")" 512
mount -o remount,rw "$RA_TMP/mnt/one" || ra_fail "remount,rw failed"
udevadm settle --timeout=60
still_at "$bdi1" 512

# 4. A rule by mount point, then apply.
etc=$ROOT/etc/readahead-agent
mkdir -p "$etc/profiles/default.conf.d"
cat >"$etc/profiles/default.conf.d/50-btrfs.conf" <<CONF
[Rule raid0-mount]
MountPoint=$RA_TMP/mnt/raid0
Size=1M
CONF
"$RA_CTL" --root "$ROOT" check >&2 || ra_fail "check rejects the drop-in"
ra_expect_eq "bdi $bdi2 before apply" "$(ra_bdi_ra_kb "$bdi2")" 512
out=$("$RA_CTL" --root "$ROOT" apply) || ra_fail "apply exited $?: $out"
printf '%s\n' "$out" >&2
ra_expect_eq "bdi $bdi2 after apply (MountPoint rule)" "$(ra_bdi_ra_kb "$bdi2")" 1024
ra_expect_eq "bdi $bdi1 after apply (no rule of its own)" "$(ra_bdi_ra_kb "$bdi1")" 512

# 5. status and explain.
if command -v jq >/dev/null; then
        json=$RA_TMP/status.json
        "$RA_CTL" --root "$ROOT" status --json >"$json" || ra_fail "status --json exited $?"
        for pair in "one:$bdi1:512:1" "raid0:$bdi2:1024:2"; do
                IFS=: read -r n b want devs <<<"$pair"
                d=$(jq -c --arg m "$RA_TMP/mnt/$n" '[.devices[] | select(.mount_point == $m)]' "$json")
                [ "$(jq length <<<"$d")" = 1 ] || { cat "$json" >&2; ra_fail "status lists $n $(jq length <<<"$d") times"; }
                ra_log "status: $(jq -c '.[0] | del(.rule_file, .rule)' <<<"$d")"
                ra_expect_eq "status $n name" "$(jq -r '.[0].name' <<<"$d")" "$b"
                ra_expect_eq "status $n kind" "$(jq -r '.[0].kind' <<<"$d")" mount
                ra_expect_eq "status $n fstype" "$(jq -r '.[0].fstype' <<<"$d")" btrfs
                ra_expect_eq "status $n device_count" "$(jq -r '.[0].device_count' <<<"$d")" "$devs"
                ra_expect_eq "status $n target_kb" "$(jq -r '.[0].target_kb' <<<"$d")" "$want"
                ra_expect_eq "status $n current_kb" "$(jq -r '.[0].current_kb' <<<"$d")" "$want"
                ra_expect_eq "status $n drift" "$(jq -r '.[0].drift' <<<"$d")" false
        done
        d=$(jq -c --arg m "$RA_TMP/mnt/raid0" '.devices[] | select(.mount_point == $m)' "$json")
        ra_expect_eq "status raid0 data_profile" "$(jq -r .data_profile <<<"$d")" raid0
        ra_expect_eq "status raid0 stripe_kb" "$(jq -r .stripe_kb <<<"$d")" 128
        ra_expect_eq "status raid0 members" "$(jq -r '[.members[].name] | sort | join(" ")' <<<"$d")" \
                "$(printf '%s\n' "$r0a" "$r0b" | sort | paste -sd' ')"
        [ "$(jq '[.devices[] | select(.fstype == "btrfs")] | length' "$json")" = 3 ] ||
                ra_fail "status lists $(jq '[.devices[] | select(.fstype == "btrfs")] | length' "$json") btrfs entries, want 3"
        json=$RA_TMP/explain.json
        "$RA_CTL" --root "$ROOT" explain "$RA_TMP/mnt/raid0" --json >"$json" || ra_fail "explain MOUNTPOINT exited $?"
        ra_expect_eq "explain raid0 device.name" "$(jq -r .device.name "$json")" "$bdi2"
        ra_expect_eq "explain raid0 rule raid0-mount" \
                "$(jq -r '.rules[] | select(.section == "raid0-mount") | .verdict' "$json")" matched
else
        ra_log "jq not installed: status --json not checked"
fi
"$RA_CTL" --root "$ROOT" status >&2 || ra_fail "status exited $?"

# 6. Unmount, mount again: a new bdi gets the value again.
umount "$RA_TMP/mnt/raid0" || ra_fail "umount raid0 failed"
udevadm settle --timeout=60
mounted raid0 "/dev/$r0a"
bdi3=$(btrfs_bdi "$r0a")
[ "$bdi3" != "$bdi2" ] || ra_fail "mounting again kept bdi $bdi2: cannot tell"
ra_log "raid0 again: bdi $bdi3, udev: RESULT=$(ra_bdi_prop "$bdi3" READAHEAD_RESULT) RULE=$(ra_bdi_prop "$bdi3" READAHEAD_RULE)"
set_after "$bdi3" 1024
still_at "$bdi3" 1024

# 7. reset: btrfs's own max(4 MiB, 128 KiB x devices).
out=$("$RA_CTL" --root "$ROOT" reset "$RA_TMP/mnt/raid0" "$bdi1") || ra_fail "reset exited $?: $out"
printf '%s\n' "$out" >&2
ra_expect_eq "bdi $bdi3 after reset" "$(ra_bdi_ra_kb "$bdi3")" 4096
ra_expect_eq "bdi $bdi1 after reset" "$(ra_bdi_ra_kb "$bdi1")" 4096

