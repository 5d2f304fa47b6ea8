#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The systemd lab's test, run inside the booted guest by ra-lab.service
# (after multi-user.target) at every boot; /var/lib/ra-lab counts the boots.
#
#   boot 1  as shipped: records the kernel's own values, formats a btrfs disk,
#           adds NFSv3 (rsize=32k), NFSv4.2 (rsize=1M) and btrfs mounts to
#           /etc/fstab, installs the project's .deb with apt (postinst applies
#           at once), adds an /etc override for one disk, reboots.
#   boot 2  with the package installed at boot: every disk has its target
#           before multi-user.target (the agent's journal entries say so,
#           with their structured fields); nothing failed; the fstab mounts
#           and the override hold; a late NFS mount is set by
#           readahead-agent-bdi@.service; a mount that never shows up fails
#           that unit and `readahead-ctl status` lists it; a foreign value
#           written before suspend is put back after resume by the
#           system-sleep hook; `apt remove` gives the kernel's values back;
#           `apt purge` leaves no file of the package; the upgrade from
#           0.1.0's .deb keeps /etc and every value (guest/upgrade.sh).
#
# Output, verdict and settings: guest/common.sh.
set -euo pipefail
# shellcheck source=tests/systemd/guest/common.sh
. "$(dirname "$0")/common.sh"
state=/var/lib/ra-lab
mkdir -p "$state"
boot=$(($(cat "$state/boots" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$state/boots"
LAB_STEP="boot $boot"

# lab_disk SERIAL: the kernel name of the virtio disk with that serial.
lab_disk() {
        local d
        for d in /sys/block/vd*; do
                [ "$(cat "$d/serial" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return; }
        done
        lab_fail "no disk with serial $1"
}
ra_kb() { cat "/sys/block/$1/queue/read_ahead_kb"; }
bdi_kb() { cat "/sys/class/bdi/$1/read_ahead_kb"; }
# bdi_of MOUNTPOINT: the bdi file reads there use: NFS's is named after the
# superblock's anonymous device (0:N), btrfs has its own (btrfs-N).
bdi_of() {
        local uuid
        if [ "$(findmnt -n -o FSTYPE "$1")" = btrfs ]; then
                uuid=$(findmnt -n -o UUID "$1")
                basename "$(readlink "/sys/fs/btrfs/$uuid/bdi")"
        else
                mountpoint -d "$1"
        fi
}

# The upgrade step (its own file).
# shellcheck source=tests/systemd/guest/upgrade.sh
. "$(dirname "$0")/upgrade.sh"

root_disk=$(lab_disk ra-root)
data_disk=$(lab_disk ra-disk1)
btrfs_disk=$(lab_disk ra-disk2)
disks=("$root_disk" "$data_disk" "$btrfs_disk")

# What the default profile gives here (profiles/default.conf: 512K disks and
# btrfs, max(1M, 4 x rsize) for NFS; the 6 GiB guest's memory cap is 8M),
# and the override's 1M for the data disk.
declare -A want=([$root_disk]=512 [$data_disk]=1024 [$btrfs_disk]=512
        [/mnt/nfs3]=1024 [/mnt/nfs42]=4096 [/mnt/btrfs]=512)
override=/etc/readahead-agent/profiles/default.conf.d/50-lab-data-disk.conf

# status_field NAME FIELD: one field of NAME in `readahead-ctl status --json`.
status_field() {
        readahead-ctl status --json | jq -r --arg n "$1" --arg f "$2" '.devices[] | select(.name == $n) | .[$f]'
}

# expect_target NAME KB: sysfs and status --json agree that NAME is at KB.
expect_target() {
        local name=$1 kb=$2 now
        if [ -e "/sys/block/$name" ]; then now=$(ra_kb "$name"); else now=$(bdi_kb "$name"); fi
        lab_expect_eq "$name read_ahead_kb" "$now" "$kb"
        lab_expect_eq "$name status target_kb" "$(status_field "$name" target_kb)" "$kb"
        lab_expect_eq "$name status current_kb" "$(status_field "$name" current_kb)" "$kb"
}

expect_mount_target() {
        local bdi
        bdi=$(bdi_of "$1") || lab_fail "$1 is not mounted"
        lab_log "$1: bdi $bdi"
        expect_target "$bdi" "$2"
}

bdi_is() { [ "$(bdi_kb "$1")" = "$2" ]; }

# hidden_nfs_mount EXPORT MP OUT: an NFSv4.2 superblock made in a private
# mount namespace, so its bdi's add event finds no mount; prints its bdi to
# OUT and keeps the namespace alive; the PID is in $hidden_pid.
hidden_nfs_mount() {
        mkdir -p "$2"
        unshare --mount --propagation private bash -c "
                mount -t nfs -o vers=4.2,rsize=1048576 127.0.0.1:$1 $2 || exit 1
                mountpoint -d $2
                exec sleep 600" >"$3" 2>&1 &
        hidden_pid=$!
        wait_for 30 test -s "$3" || lab_fail "the hidden mount of $1 did not come up"
        grep -q '^0:' "$3" || { cat "$3"; lab_fail "the hidden mount of $1 failed"; }
}

boot_install() {
        lab_log "kernel $(uname -r), $(systemctl --version | head -n 1), disks ${disks[*]}"
        ! dpkg-query -W -f='${Status}' readahead-agent 2>/dev/null | grep -q 'install ok' ||
                lab_fail "readahead-agent is installed before the test installed it"

        mkfs.btrfs -q -f -L ra-btrfs "/dev/$btrfs_disk" >/dev/null
        mkdir -p /srv/nfs/v3 /srv/nfs/v42 /srv/nfs/late /srv/nfs/never /mnt/btrfs /mnt/nfs3 /mnt/nfs42
        # NFSv4 shares one superblock (and bdi) between the exports of one
        # server file system: late and never are file systems of their own,
        # so that their mounts get new bdis.
        cat >/etc/exports <<'EXPORTS'
/srv/nfs/v3 127.0.0.1(rw,no_root_squash,no_subtree_check)
/srv/nfs/v42 127.0.0.1(rw,no_root_squash,no_subtree_check)
/srv/nfs/late 127.0.0.1(rw,no_root_squash,no_subtree_check,fsid=101)
/srv/nfs/never 127.0.0.1(rw,no_root_squash,no_subtree_check,fsid=102)
EXPORTS
        cat >>/etc/fstab <<'FSTAB'
tmpfs /srv/nfs/late tmpfs size=16m 0 0
tmpfs /srv/nfs/never tmpfs size=16m 0 0
FSTAB
        mount /srv/nfs/late && mount /srv/nfs/never || lab_fail "the tmpfs exports failed"
        systemctl restart nfs-server.service
        cat >>/etc/fstab <<'FSTAB'
LABEL=ra-btrfs /mnt/btrfs btrfs defaults 0 0
127.0.0.1:/srv/nfs/v3 /mnt/nfs3 nfs vers=3,rsize=32768,x-systemd.requires=nfs-server.service 0 0
127.0.0.1:/srv/nfs/v42 /mnt/nfs42 nfs vers=4.2,rsize=1048576,x-systemd.requires=nfs-server.service 0 0
FSTAB
        systemctl daemon-reload
        mount /mnt/btrfs && mount /mnt/nfs3 && mount /mnt/nfs42 || lab_fail "the fstab mounts failed"
        udevadm settle

        # The values of a machine without the package, for `apt remove`.
        local n
        for n in "${disks[@]}"; do
                printf '%s %s\n' "$n" "$(ra_kb "$n")"
        done >"$state/kernel-values"
        for n in /mnt/nfs3 /mnt/nfs42 /mnt/btrfs; do
                printf '%s %s\n' "$n" "$(bdi_kb "$(bdi_of "$n")")"
        done >>"$state/kernel-values"
        lab_log "without the package: $(tr '\n' ' ' <"$state/kernel-values")"

        local deb
        deb=$(ls /ra/debs/readahead-agent_*.deb)
        lab_log "apt install $deb"
        apt-get install -y -q "$deb" </dev/null || lab_fail "apt install of the package failed"
        udevadm settle
        # postinst replayed the events: the profile holds at once.
        for n in "${disks[@]}"; do expect_target "$n" 512; done
        for n in /mnt/nfs3 /mnt/nfs42 /mnt/btrfs; do expect_mount_target "$n" "${want[$n]}"; done

        # The administrator's override for one disk, by its stable id.
        mkdir -p "$(dirname "$override")"
        printf '[Rule lab-data-disk]\nProperty=ID_SERIAL=ra-disk1\nSize=1M\n' >"$override"
        readahead-ctl apply >/dev/null
        expect_target "$data_disk" 1024
        lab_log "rebooting"
        finished=1
        systemctl reboot --no-block
}

# The agent's journal entry for disk $1 this boot, with its structured
# fields, came before multi-user.target was reached.
expect_journal_before_multi_user() {
        local disk=$1 kb=$2 entry mu at
        entry=$(journalctl -b -o json --no-pager SYSLOG_IDENTIFIER=readahead-agent "READAHEAD_DEVICE=$disk" |
                jq -c 'select(.READAHEAD_TARGET_KB != null)' | head -n 1)
        [ -n "$entry" ] || lab_fail "no journal entry of the agent for $disk this boot"
        lab_log "journal: $(jq -c 'with_entries(select(.key | test("^(READAHEAD_|_SYSTEMD_UNIT$|__MONOTONIC)")))' <<<"$entry")"
        lab_expect_eq "$disk journal READAHEAD_TARGET_KB" "$(jq -r .READAHEAD_TARGET_KB <<<"$entry")" "$kb"
        [ -n "$(jq -r '.READAHEAD_RULE // empty' <<<"$entry")" ] || lab_fail "$disk: no READAHEAD_RULE in the journal entry"
        [ -n "$(jq -r '.READAHEAD_RESULT // empty' <<<"$entry")" ] || lab_fail "$disk: no READAHEAD_RESULT in the journal entry"
        at=$(jq -r .__MONOTONIC_TIMESTAMP <<<"$entry")
        mu=$(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target)
        [ "$mu" -gt 0 ] || lab_fail "multi-user.target has not been reached"
        [ "$at" -lt "$mu" ] || lab_fail "$disk: set at ${at} us, after multi-user.target (${mu} us)"
        lab_log "ok: $disk set at $((at / 1000)) ms, multi-user.target at $((mu / 1000)) ms"
}

check_boot() {
        local n failed
        lab_log "booted with the package: multi-user.target after $(($(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target) / 1000)) ms"
        for n in "${disks[@]}"; do
                expect_journal_before_multi_user "$n" "${want[$n]}"
                expect_target "$n" "${want[$n]}"
        done
        lab_expect_eq "$data_disk rule" "$(status_field "$data_disk" rule)" "$override:lab-data-disk"
        # The fstab mounts, set at boot (by the agent in the event, or by the
        # bdi unit when the mount came later).
        for n in /mnt/nfs3 /mnt/nfs42 /mnt/btrfs; do
                wait_for 30 bdi_is "$(bdi_of "$n")" "${want[$n]}" || true
                expect_mount_target "$n" "${want[$n]}"
        done
        failed=$(systemctl list-units --failed --plain --no-legend --no-pager)
        lab_expect_eq "systemctl --failed" "$failed" ""
}

check_late_mount() {
        local bdi unit
        hidden_nfs_mount /srv/nfs/late /mnt/late "$state/late.out"
        bdi=$(head -n 1 "$state/late.out")
        unit="readahead-agent-bdi@$bdi.service"
        udevadm settle
        lab_log "hidden mount: bdi $bdi, its add event handled; mounting it here in 2 s"
        # The unit's sandbox gives the waiter a mount namespace of its own:
        # the mount below reaches it only by propagation (host -> slave).
        # (Right after systemd forked it, before the sandbox is set up, the
        # child is still in PID 1's namespace: wait for the exec.)
        local pid
        own_namespace() {
                pid=$(systemctl show -P MainPID "$unit")
                [ "${pid:-0}" != 0 ] && grep -q -- '--wait-bdi' "/proc/$pid/cmdline" 2>/dev/null &&
                        [ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink /proc/1/ns/mnt)" ]
        }
        wait_for 10 own_namespace || {
                systemctl status --no-pager "$unit" || true
                lab_fail "$unit (PID ${pid:-none}) is not waiting in a mount namespace of its own: the sandbox is not applied"
        }
        lab_log "$unit (PID $pid) waits in its own mount namespace $(readlink "/proc/$pid/ns/mnt")"
        sleep 2
        mount -t nfs -o vers=4.2,rsize=1048576 127.0.0.1:/srv/nfs/late /mnt/late || lab_fail "the late mount failed"
        lab_expect_eq "/mnt/late shares the hidden superblock" "$(bdi_of /mnt/late)" "$bdi"
        wait_for 30 bdi_is "$bdi" 4096 || true
        expect_target "$bdi" 4096
        # It was the unit that set it, and it succeeded.
        wait_for 30 journalctl -b -q --no-pager -u "$unit" -g 'Deactivated successfully|Finished' ||
                { journalctl -b --no-pager -u "$unit"; lab_fail "$unit did not finish successfully"; }
        local entry
        entry=$(journalctl -b -o json --no-pager SYSLOG_IDENTIFIER=readahead-agent "READAHEAD_DEVICE=$bdi" |
                jq -c 'select(.READAHEAD_TARGET_KB != null)' | tail -n 1)
        lab_expect_eq "$bdi journal entry written from" "$(jq -r ._SYSTEMD_UNIT <<<"$entry")" "$unit"
        lab_expect_eq "$bdi journal READAHEAD_TARGET_KB" "$(jq -r .READAHEAD_TARGET_KB <<<"$entry")" 4096
        lab_expect_eq "$unit result" "$(systemctl show -P Result "$unit")" success
        kill "$hidden_pid" 2>/dev/null || true
        umount /mnt/late
}

check_failed_unit() {
        local bdi unit wait_conf=/etc/readahead-agent/readahead.conf.d/50-lab-wait.conf
        mkdir -p "$(dirname "$wait_conf")"
        printf '[Agent]\nMountWaitSec=3\n' >"$wait_conf"
        hidden_nfs_mount /srv/nfs/never /mnt/never "$state/never.out"
        bdi=$(head -n 1 "$state/never.out")
        unit="readahead-agent-bdi@$bdi.service"
        wait_for 60 systemctl -q is-failed "$unit" ||
                { systemctl status --no-pager "$unit" || true; lab_fail "$unit did not fail for a mount that never came"; }
        lab_log "$unit failed, as it should: the mount never showed up"
        readahead-ctl status >"$state/status.txt"
        grep -F "Failed: $unit (see journalctl -u $unit)" "$state/status.txt" ||
                { cat "$state/status.txt"; lab_fail "readahead-ctl status does not list $unit"; }
        lab_expect_eq "status --json failed_units" \
                "$(readahead-ctl status --json | jq -r '.failed_units | join(" ")')" "$unit"
        kill "$hidden_pid" 2>/dev/null || true
        rm -f "$wait_conf"
        systemctl reset-failed "$unit"
}

check_suspend() {
        local n=$root_disk since
        echo 4096 >"/sys/block/$n/queue/read_ahead_kb"
        lab_expect_eq "$n read_ahead_kb before suspend (written by hand)" "$(ra_kb "$n")" 4096
        since=$(date '+%Y-%m-%d %H:%M:%S')
        if [ "$RA_LAB_SUSPEND" = pm_test ]; then
                # The kernel suspends and resumes every device, without the firmware.
                echo devices >/sys/power/pm_test
        else
                grep -q deep /sys/power/mem_sleep || lab_fail "no S3 (deep) in /sys/power/mem_sleep: $(cat /sys/power/mem_sleep)"
        fi
        # virtio's 9p transport does not come back from suspend: leave the
        # host's shares now (the test runs from a copy, its output goes to a
        # serial port).
        # The .debs stay for the upgrade step, after the purge.
        cp -r /ra/debs "$state/debs"
        umount /ra/src /ra/debs
        lab_log "systemctl suspend ($RA_LAB_SUSPEND)"
        systemctl suspend
        # systemd-sleep runs the hooks with "post" once the system is back.
        wait_for 120 journalctl -q --no-pager --since "$since" -u systemd-suspend.service -g 'System returned from sleep|returned from sleep' ||
                { journalctl --no-pager --since "$since" | tail -n 40; lab_fail "the system did not come back from suspend"; }
        if [ "$RA_LAB_SUSPEND" = pm_test ]; then echo none >/sys/power/pm_test; fi
        if [ "$RA_LAB_SUSPEND" = s3 ]; then
                dmesg | grep -q 'Waking up from system sleep state S3' || lab_fail "no S3 resume in the kernel log"
                lab_log "ok: the kernel woke from S3"
        else
                dmesg | grep -q 'suspend debug: Waiting' || lab_fail "no suspend test (pm_test) in the kernel log"
                lab_log "ok: the kernel suspended and resumed its devices (pm_test)"
        fi
        local hook_line=(journalctl -q --no-pager --since "$since" -u systemd-suspend.service -g "^$n +4M -> 512K" -o cat)
        # The hook runs after systemd-sleep's "returned" line, and its
        # output can reach the journal a moment later.
        wait_for 30 "${hook_line[@]}" >/dev/null ||
                { journalctl --no-pager --since "$since" -u systemd-suspend.service; lab_fail "no line of the system-sleep hook setting $n"; }
        local line
        line=$("${hook_line[@]}")
        lab_log "journal of systemd-suspend.service: $line"
        expect_target "$n" 512
}

check_remove_and_purge() {
        local n kb files
        dpkg -L readahead-agent | while read -r f; do [ -d "$f" ] || echo "$f"; done >"$state/files"
        files=$(wc -l <"$state/files")
        lab_log "apt remove (the package has $files files)"
        apt-get remove -y -q readahead-agent </dev/null || lab_fail "apt remove failed"
        udevadm settle
        while read -r n kb; do
                if [ "${n#/}" != "$n" ]; then
                        lab_expect_eq "$n after apt remove (the kernel's own)" "$(bdi_kb "$(bdi_of "$n")")" "$kb"
                else
                        lab_expect_eq "$n after apt remove (the kernel's own)" "$(ra_kb "$n")" "$kb"
                fi
        done <"$state/kernel-values"
        # No rule acts any more.
        udevadm trigger --action=change --settle "/sys/class/block/$data_disk"
        lab_expect_eq "$data_disk after a change event" "$(ra_kb "$data_disk")" "$(awk -v d="$data_disk" '$1 == d {print $2}' "$state/kernel-values")"
        lab_log "apt purge"
        apt-get purge -y -q readahead-agent </dev/null || lab_fail "apt purge failed"
        lab_expect_eq "dpkg status after purge" "$(dpkg-query -W -f='${Status}' readahead-agent 2>/dev/null || true)" ""
        local left
        left=$(while read -r f; do if [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done <"$state/files")
        lab_expect_eq "files of the package left after purge" "$left" ""
        [ ! -e /run/readahead-agent/.config-problems-logged ] || lab_fail "the agent's stamp in /run is left after purge"
        # What the administrator wrote stays, as /etc/udev/rules.d does.
        [ -e "$override" ] || lab_fail "purge removed the administrator's $override"
        lab_log "ok: no file of the package left; the administrator's $override stays"
}

case $boot in
1) boot_install ;;
2)
        check_boot
        check_late_mount
        check_failed_unit
        check_suspend
        check_remove_and_purge
        check_upgrade
        lab_log "PASS"
        ;;
*) lab_fail "boot $boot: the lab has two boots" ;;
esac
