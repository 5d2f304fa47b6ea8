# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# The systemd lab's upgrade step (sourced by lab.sh at its start, while the
# host's tree is mounted; check_upgrade runs last in boot 2, after the
# purge): the previous release's .deb (0.1.0, tests/lib/previous-deb.sh)
# installed with apt, then this tree's .deb over it, as `apt upgrade` does.
# A user checks:
#   - /etc/readahead-agent (the administrator's override) is byte for byte
#     what it was before;
#   - the upgrade replays no udev event of a disk or a mount (the new
#     postinst runs readahead-ctl apply instead);
#   - no device leaves its value while the packages change hands: a sampler
#     reads every disk's and mount's read_ahead_kb every 20 ms through the
#     upgrade (0.1.0's prerm resets only on remove, not on upgrade);
#   - the new agent decides: the installed programs say 0.2.0, an event
#     after the upgrade is logged by it, and it refuses an event that only
#     0.2.0 refuses (one disk's DEVPATH with another's MAJOR:MINOR);
#   - systemd runs the new unit: no reload pending, and the unit systemd has
#     loaded is the sandboxed one.
# Uses lab.sh's helpers (lab_log, lab_fail, lab_expect_eq, wait_for, bdi_of,
# want, disks) and $state/debs, where check_suspend copied the shared .debs.

# upgrade_values: "NAME KB" for every disk and mount the lab tunes.
upgrade_values() {
        local n
        for n in "${disks[@]}"; do echo "$n $(ra_kb "$n")"; done
        for n in /mnt/nfs3 /mnt/nfs42 /mnt/btrfs; do echo "$n $(bdi_kb "$(bdi_of "$n")")"; done
}

upgrade_expected() {
        local n
        for n in "${disks[@]}" /mnt/nfs3 /mnt/nfs42 /mnt/btrfs; do echo "$n ${want[$n]}"; done
}

# What 0.1.0 sets: its profile gave NFS max(512K, 4 x rsize), so the
# rsize=32k mount had 512 where 0.2.0's 1M floor gives 1024
# (bench/README-nfs.md); every other value is the same in both.
upgrade_expected_previous() {
        upgrade_expected | awk '$1 == "/mnt/nfs3" { $2 = 512 } { print }'
}

check_upgrade() {
        local old new etc_before etc_after since sampler monitor
        old=$(ls "$state"/debs/previous/readahead-agent_0.1.0_*.deb) || lab_fail "no 0.1.0 .deb was shared"
        new=$(ls "$state"/debs/readahead-agent_*.deb)
        lab_log "upgrade: apt install $(basename "$old")"
        apt-get install -y -q "$old" </dev/null || lab_fail "apt install of 0.1.0 failed"
        lab_expect_eq "installed version" "$(dpkg-query -W -f='${Version}' readahead-agent)" 0.1.0
        udevadm settle
        wait_for 30 test "$(upgrade_values)" = "$(upgrade_expected_previous)" ||
                lab_fail "0.1.0 did not set every value: $(upgrade_values | tr '\n' ' ')"
        lab_log "ok: 0.1.0 set $(upgrade_values | tr '\n' ' ')"

        etc_before=$(find /etc/readahead-agent -type f -exec sha256sum {} + | sort)
        [ -n "$etc_before" ] || lab_fail "no administrator's file in /etc/readahead-agent to watch"
        # The sampler: any value other than 0.1.0's target or 0.2.0's, with
        # the time (the kernel's 128 in between is what it must not see).
        (
                while :; do
                        upgrade_values | awk -v t="$EPOCHREALTIME" 'FILENAME == ARGV[1] { p[$1] = $2; next }
                                FILENAME == ARGV[2] { w[$1] = $2; next }
                                $2 != w[$1] && $2 != p[$1] { print t, $1, $2 }' \
                                <(upgrade_expected_previous) <(upgrade_expected) - >>"$state/upgrade-drift"
                        sleep 0.02
                done
        ) &
        sampler=$!
        since=$(date '+%Y-%m-%d %H:%M:%S')
        sleep 1
        # The upgrade replays no event: apply writes what differs.
        udevadm monitor --udev --subsystem-match=block --subsystem-match=bdi >"$state/upgrade-events" 2>&1 &
        monitor=$!
        sleep 0.5
        lab_log "upgrade: apt install $(basename "$new")"
        apt-get install -y -q "$new" </dev/null || { kill "$sampler"; lab_fail "apt install of the new .deb over 0.1.0 failed"; }
        udevadm settle
        kill "$monitor"
        wait "$monitor" 2>/dev/null || true
        # An event reads "UDEV  [SECONDS] ACTION DEVPATH (SUBSYSTEM)"; the
        # monitor's own header starts "UDEV - the event which ...".
        lab_expect_eq "udev events of disks and mounts during the upgrade" \
                "$(grep -E '^UDEV +\[' "$state/upgrade-events" || true)" ""
        sleep 1
        wait_for 30 test "$(upgrade_values)" = "$(upgrade_expected)" ||
                lab_log "values after the upgrade: $(upgrade_values | tr '\n' ' ')"
        kill "$sampler"
        wait "$sampler" 2>/dev/null || true
        lab_expect_eq "values after the upgrade" "$(upgrade_values)" "$(upgrade_expected)"
        lab_expect_eq "values that left their target during the upgrade (time, device, value)" \
                "$(cat "$state/upgrade-drift" 2>/dev/null)" ""
        etc_after=$(find /etc/readahead-agent -type f -exec sha256sum {} + | sort)
        lab_expect_eq "/etc/readahead-agent after the upgrade (sha256 of each file)" "$etc_after" "$etc_before"

        # The new agent decides.
        local version
        version=$(dpkg-query -W -f='${Version}' readahead-agent)
        lab_expect_eq "readahead-agent --version" "$(/usr/libexec/readahead-agent --version)" "readahead-agent $version"
        lab_expect_eq "readahead-ctl --version" "$(readahead-ctl --version)" "readahead-ctl $version"
        echo 4096 >"/sys/block/$data_disk/queue/read_ahead_kb"
        udevadm trigger --action=change --settle "/sys/class/block/$data_disk"
        lab_expect_eq "$data_disk after a change event past the upgrade" "$(ra_kb "$data_disk")" "${want[$data_disk]}"
        wait_for 10 journalctl -q --no-pager --since "$since" SYSLOG_IDENTIFIER=readahead-agent \
                "READAHEAD_DEVICE=$data_disk" -g "4096 -> ${want[$data_disk]}" ||
                lab_fail "no journal entry of the agent for $data_disk since the upgrade"
        # An event only 0.2.0 refuses (issue 24): the data disk's DEVPATH with
        # the root disk's MAJOR:MINOR; 0.1.0 wrote the root disk.
        local refused root_before
        root_before=$(ra_kb "$root_disk")
        refused=$(env -i SEQNUM=1 ACTION=change SUBSYSTEM=block DEVTYPE=disk DEVNAME="/dev/$data_disk" \
                DEVPATH="$(udevadm info -q path "/sys/class/block/$data_disk")" \
                MAJOR="$(cut -d: -f1 "/sys/block/$root_disk/dev")" MINOR="$(cut -d: -f2 "/sys/block/$root_disk/dev")" \
                /usr/libexec/readahead-agent)
        lab_expect_eq "the installed agent for $data_disk's DEVPATH with $root_disk's MAJOR:MINOR (refused since 0.2.0)" \
                "$refused" "READAHEAD_RESULT=refused"
        lab_expect_eq "$root_disk after that event" "$(ra_kb "$root_disk")" "$root_before"

        # systemd runs the new unit.
        local unit=readahead-agent-bdi@0:1.service
        lab_expect_eq "$unit NeedDaemonReload" "$(systemctl show -P NeedDaemonReload "$unit")" no
        lab_expect_eq "$unit ProtectSystem (the sandboxed unit is loaded)" "$(systemctl show -P ProtectSystem "$unit")" strict
        lab_log "ok: upgraded from 0.1.0 to $version: /etc untouched, no value left its target, the new agent and unit run"
}
