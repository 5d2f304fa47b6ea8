#!/bin/bash
# SPDX-License-Identifier: MIT
# calibrate on Wu's HDD model, 125 IOPS / 100 MiB/s (8 ms a request):
#   - finds the knee at 1024 KiB (512K gives ~62 MiB/s, 1M ~100);
#   - --json carries device, knee_kb and samples, no progress bar off a tty;
#   - read_ahead_kb is put back; --write refuses without a stable id, and
#     with one (ID_SERIAL, set by a udev rule as a vendor rule would) writes
#     a drop-in rule by that id, applies it; explain, apply and the agent on a
#     change event all honour it.
. "$(dirname "$0")/calibrate-common.sh"
ra_calibrate_init
ra_install_rule

ra_emulated_device 125 104857600 dev
ra_set_ra "$dev" 512
out=$RA_TMP/out.json
err=$RA_TMP/err.txt

# No stable id yet: --write refuses before measuring anything.
rc=0
"$RA_CTL" --root "$ROOT" calibrate --write "$dev" >"$out" 2>"$err" || rc=$?
cat "$err" >&2
ra_expect_eq "calibrate --write without an id: exit status" "$rc" 1
grep -q "has no stable id" "$err" || ra_fail "no clear refusal: $(cat "$err")"
ra_expect_ra "$dev" 512

# A udev rule gives the device a serial number, as a vendor rule would.
serial="RA-CALIBRATE-$$-0001"
ra_add_rule "61-ra-calibrate-test-$$.rules" \
        "$(printf 'ACTION=="add|change", KERNEL=="%s", ENV{ID_SERIAL}="%s"' "$dev" "$serial")"
ra_change "$dev"
ra_expect_eq "$dev ID_SERIAL" "$(udevadm info --query=property --name="/dev/$dev" | sed -n 's/^ID_SERIAL=//p')" \
        "$serial"
ra_expect_ra "$dev" 512

start=$(date +%s)
rc=0
ra_emu_exec "$RA_CTL" --root "$ROOT" --json calibrate --write --time 45 --min 128K --max 4M "$dev" \
        >"$out" 2>"$err" || rc=$?
cat "$err" >&2
ra_log "calibrate took $(($(date +%s) - start)) s"
python3 -m json.tool "$out" >&2 || ra_fail "calibrate --json printed no JSON"
ra_expect_eq "calibrate exit status" "$rc" 0
ra_expect_eq "device" "$(ra_json "$out" 'j["device"]')" "$dev"
ra_expect_eq "knee_kb" "$(ra_json "$out" 'j["knee_kb"]')" 1024
ra_expect_eq "stable_id" "$(ra_json "$out" 'j["stable_id"]')" "ID_SERIAL=$serial"
ra_expect_eq "read_ahead_kb before" "$(ra_json "$out" 'j["read_ahead_kb_before"]')" 512
# Every size of the range measured in every round, as the model predicts:
# 125 x 256 KiB = 31.25 MiB/s (one stream, median).
ra_expect_eq "sizes measured" "$(ra_json "$out" 'sorted({s["read_ahead_kb"] for s in j["samples"]})')" \
        "[128, 256, 512, 1024, 2048, 4096]"
ra_expect_eq "samples" "$(ra_json "$out" 'len([s for s in j["samples"] if s["mib_per_s"] > 0])')" 36
at256=$(ra_json "$out" '[s["mib_per_s"] for s in j["sizes"] if s["read_ahead_kb"] == 256][0]')
python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 31.25 * 0.75 < v < 31.25 * 1.25 else 1)" "$at256" ||
        ra_fail "256K reads at $at256 MiB/s, the model says 31.25"
! grep -q $'\r' "$err" || ra_fail "a progress bar on stderr, which is no terminal"

# The drop-in: by the stable id, in the active profile's /etc drop-in directory.
file=$(ra_json "$out" 'j["written"]["file"]')
case $file in
"$ROOT"/etc/readahead-agent/profiles/default.conf.d/*.conf) ;;
*) ra_fail "drop-in written to $file" ;;
esac
cat "$file" >&2
grep -qx "Property=ID_SERIAL=$serial" "$file" || ra_fail "the drop-in does not pick the device by ID_SERIAL"
grep -qx "Size=1M" "$file" || ra_fail "the drop-in does not set 1M"
section=$(sed -n 's/^\[Rule \(.*\)\]$/\1/p' "$file")
ra_expect_eq "read_ahead_kb after --write (applied)" "$(ra_json "$out" 'j["read_ahead_kb_after"]')" 1024
ra_expect_ra "$dev" 1024

"$RA_CTL" --root "$ROOT" --json explain "$dev" >"$out"
ra_expect_eq "explain: rule file" "$(ra_json "$out" 'j["device"]["rule_file"]')" "$file"
ra_expect_eq "explain: rule section" "$(ra_json "$out" 'j["device"]["rule_section"]')" "$section"
ra_expect_eq "explain: target" "$(ra_json "$out" 'j["device"]["target_kb"]')" 1024
"$RA_CTL" --root "$ROOT" explain "$dev" | grep -F "$section" >&2 || ra_fail "explain does not name $section"

# apply, and the agent on a change event, honour the rule.
ra_set_ra "$dev" 128
"$RA_CTL" --root "$ROOT" apply "$dev" >&2 || ra_fail "apply failed"
ra_expect_ra "$dev" 1024
ra_set_ra "$dev" 128
ra_change "$dev"
ra_expect_ra "$dev" 1024
