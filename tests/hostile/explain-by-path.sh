#!/bin/bash
# SPDX-License-Identifier: MIT
# Defect 10: explain (and apply) find a disk by any path to its node, by its
# device number as udevadm does: a symlink elsewhere (/dev/disk/by-*,
# /dev/mapper/NAME are such links), a relative one, and a node of another
# name made with mknod (what /dev/mapper/NAME is on some systems).
source "$(dirname "$0")/../real/lib.sh"
ra_init
ra_attach 64M disk  # (not "dev": ra_attach has a local of that name)
dev=$disk
num=$(cat "/sys/class/block/$dev/dev")
ln -s "/dev/$dev" "$RA_TMP/by-abs"
mkdir -p "$RA_TMP/mapper"
mknod "$RA_TMP/mapper/backup" b "${num%%:*}" "${num##*:}"
paths=("$RA_TMP/by-abs" "$RA_TMP/mapper/backup")
# A relative link resolves from its own directory.
(cd "$RA_TMP" && ln -sf "$(realpath --relative-to="$RA_TMP" "/dev/$dev")" rel)
paths+=("$RA_TMP/rel")
# The links udev made for it, if any (by-loop-inode, by-loop-ref).
while read -r l; do
        paths+=("$l")
done < <(find /dev/disk -lname "*/$dev" 2>/dev/null | head -n 2)

for p in "${paths[@]}"; do
        out=$("$RA_CTL" --root "$ROOT" explain "$p" --json) || ra_fail "explain $p failed"
        name=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["device"]["name"])' <<<"$out")
        ra_expect_eq "explain $p: device" "$name" "$dev"
done
out=$("$RA_CTL" --root "$ROOT" apply "$RA_TMP/mapper/backup") || ra_fail "apply $RA_TMP/mapper/backup failed: $out"
ra_log "apply: $out"
ra_expect_ra "$dev" 64
echo "PASS: explain and apply by ${#paths[@]} paths to /dev/$dev"
