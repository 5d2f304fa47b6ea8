#!/bin/bash
# SPDX-License-Identifier: MIT
# readahead-ctl advise --write and the advice record, on fake trees with fake
# counters: umockdev serves /proc/diskstats, /proc/vmstat and /proc/pressure/
# from the testbed, so a window's reads are written down here, not measured.
# Each case is a defect of issue 22 and failed before its fix:
#  1 an over-long --root is refused before anything is read or written
#    (advise, calibrate --write, the agent);
#  2 drop-in names carry the key and escape the id one to one;
#  3 an id that another present disk shares is refused, naming it;
#  4 an optical drive is refused as calibrate refuses it;
#  5 `written` names only a file that exists and decides the device;
#  6 the IO STALL column shows the stall;
#  7 concurrent runs keep one clean record;
#  8 status --format=prometheus reads the record as a bounded regular file;
#  9 --time takes digits only, a device named twice is one row, a counter
#    that jumps to 2^64-1 or a disk missing from a sample is no reading.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/umockdev-case.sh"

ra_umock_require umockdev "$RA_CTL" "$RA_AGENT"
command -v strace >/dev/null || ra_umock_missing umockdev "strace not found (install the strace package)"
command -v unshare >/dev/null || ra_umock_missing umockdev "unshare not found (util-linux)"
if [ "$(id -u)" != 0 ]; then
        ra_umock_missing umockdev "advise --write needs root"
fi
ra_umock_tmp umockdev-advise-write
tmp=$RA_UMOCK_TMP
dropins=etc/readahead-agent/profiles/default.conf.d
fails=0

fail() {
        printf 'FAIL: %s\n' "$*" >&2
        fails=$((fails + 1))
}
ok() { printf 'ok: %s\n' "$*"; }

# A tree of tests/umockdev/trees with its sed script applied (ids changed).
variant() {
        local base=$1 name=$2
        shift 2
        mkdir -p "$tmp/trees"
        sed "$@" "$here/trees/$base.umockdev" >"$tmp/trees/$name.umockdev"
        cp "$here/trees/$base.meminfo" "$tmp/trees/$name.meminfo"
}

# window TREEFILE MEMINFO 'DISKSTATS...' CMD...: CMD in the tree, with
# /proc/diskstats holding the first sample at the start and each later one
# 0.6 s, 1.6 s, ... after (written aside and renamed), a quiet /proc/vmstat
# and PSI whose io total grows by $IO_STALL_US per sample.
window() {
        local tree=$1 meminfo=$2 samples=$3
        shift 3
        umockdev-run -d "$tree" -- bash -c '
                p=$UMOCKDEV_DIR/proc
                mkdir -p "$p/self" "$p/pressure"
                cp "$1" "$p/meminfo"
                cp "$2" "$p/self/mountinfo"
                psi() {
                        printf "some avg10=0.00 avg60=0.00 avg300=0.00 total=%s\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" \
                                0 >"$p/pressure/memory"
                        printf "some avg10=0.00 avg60=0.00 avg300=0.00 total=%s\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" \
                                "$1" >"$p/pressure/io.new"
                        mv "$p/pressure/io.new" "$p/pressure/io"
                }
                printf "pgmajfault 5\nworkingset_refault_file 7\npgsteal_file 9\nnr_foll_pin_acquired 0\n" >"$p/vmstat"
                IFS="|" read -ra s <<<"$3"
                printf "%s\n" "${s[0]}" >"$p/diskstats"
                psi 0
                shift 3
                (
                        sleep 0.6
                        for ((i = 1; i < ${#s[@]}; i++)); do
                                printf "%s\n" "${s[i]}" >"$p/diskstats.new"
                                mv "$p/diskstats.new" "$p/diskstats"
                                psi $((i * ${IO_STALL_US:-0}))
                                sleep 1
                        done
                ) &
                rc=0
                "$@" || rc=$?
                wait
                exit $rc
        ' sh "$meminfo" "$here/host.mountinfo" "$samples" "$@" 2> >(grep -v '^ERROR: uevent_sender_send' >&2)
}

# The emulated HDD's window: 1000 reads of 128K, busy 90%.
sda0="   8       0 sda 1000 0 256000 5000 0 0 0 0 0 1000 5000"
sda1="   8       0 sda 2000 0 512000 10000 0 0 0 0 0 1900 10000"

# run_advise OUTFILE TREE ROOT SAMPLES ARGS...: advise in TREE (a path) below ROOT.
run_advise() {
        local out=$1 tree=$2 root=$3 samples=$4 rc=0
        shift 4
        window "$tree" "${tree%.umockdev}.meminfo" "$samples" "$RA_CTL" --root "$root" advise --time 2 "$@" \
                >"$out" 2>"$out.err" || rc=$?
        echo "$rc" >"$out.rc"
}

fresh_root() {
        rm -rf "$tmp/root-$1"
        cp -a "$RA_TESTROOT" "$tmp/root-$1"
        echo "$tmp/root-$1"
}

expect() { # expect FILE.rc WANT WHAT
        local rc
        rc=$(cat "$1")
        [ "$rc" = "$2" ] || { fail "$3: exit $rc, expected $2; stderr: $(cat "${1%.rc}.err")"; return 1; }
}

# ---- 1: over-long --root ---------------------------------------------------
# In a mount namespace of its own, /etc an overlay and /run a tmpfs: what a
# broken build writes to "the host's" /etc and /run lands in $tmp/upper and
# the namespace's /run, never on this machine.
long=$tmp/$(printf 'r%.0s' {1..140})
mkdir -p "$tmp/upper" "$tmp/work"
export -f window run_advise expect fail ok
export here tmp long sda0 sda1 RA_CTL RA_AGENT
rc=0
unshare -m bash -c '
        set -e
        mount --make-rprivate /
        mount -t overlay overlay -o "lowerdir=/etc,upperdir=$tmp/upper,workdir=$tmp/work" /etc
        mount -t tmpfs tmpfs /run
        run_advise "$tmp/long" "$here/trees/sata-hdd.umockdev" "$long" "$sda0|$sda1" --write sda
        r=0
        umockdev-run -d "$here/trees/sata-hdd.umockdev" -- "$RA_CTL" --root "$long" calibrate --write sda \
                >"$tmp/long-cal" 2>&1 || r=$?
        echo $r >"$tmp/long-cal.rc"
        r=0
        umockdev-run -d "$here/trees/sata-hdd.umockdev" -- env ACTION=change SUBSYSTEM=block DEVTYPE=disk \
                DEVPATH=/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda \
                DEVNAME=/dev/sda MAJOR=8 MINOR=0 "$RA_AGENT" --root "$long" >"$tmp/long-agent" 2>&1 || r=$?
        echo $r >"$tmp/long-agent.rc"
        ls -A /run >"$tmp/long-run"
' || rc=$?
[ "$rc" = 0 ] || fail "the mount namespace for the over-long root could not be set up (exit $rc)"
if expect "$tmp/long.rc" 2 "advise --write under a 140-byte --root" &&
        grep -q -- "--root: longer than 127 bytes, refused" "$tmp/long.err"; then
        ok "advise --write: an over-long --root is refused (exit 2)"
else
        fail "advise --write: over-long --root not refused: $(cat "$tmp/long" "$tmp/long.err")"
fi
[ "$(cat "$tmp/long-cal.rc")" = 2 ] && grep -q "longer than 127 bytes" "$tmp/long-cal" &&
        ok "calibrate --write: over-long --root refused" ||
        fail "calibrate --write under an over-long --root: exit $(cat "$tmp/long-cal.rc"): $(cat "$tmp/long-cal")"
[ "$(cat "$tmp/long-agent.rc")" = 2 ] && grep -q "longer than 127 bytes" "$tmp/long-agent" &&
        ok "agent: over-long --root refused" ||
        fail "agent under an over-long --root: exit $(cat "$tmp/long-agent.rc"): $(cat "$tmp/long-agent")"
[ -z "$(ls -A "$tmp/upper")" ] && [ ! -s "$tmp/long-run" ] && ok "nothing written to /etc or /run" ||
        fail "written to /etc: $(cd "$tmp/upper" && find . -type f); to /run: $(cat "$tmp/long-run")"

# ---- 2: drop-in names that cannot collide ------------------------------------
root=$(fresh_root collide)
noid='/^E: ID_WWN/d;/^E: ID_SERIAL=/d'
variant sata-hdd slash -e "$noid" -e 's|^E: ID_SERIAL_SHORT=.*|E: ID_SERIAL=X/1|'
variant sata-hdd colon -e "$noid" -e 's|^E: ID_SERIAL_SHORT=.*|E: ID_SERIAL=X:1|'
variant sata-hdd wwn -e "$noid" -e 's|^E: ID_SERIAL_SHORT=.*|E: ID_WWN=0xabc|'
variant sata-hdd serial -e "$noid" -e 's|^E: ID_SERIAL_SHORT=.*|E: ID_SERIAL=0xabc|'
for v in slash colon wwn serial; do
        run_advise "$tmp/$v" "$tmp/trees/$v.umockdev" "$root" "$sda0|$sda1" --write sda
        expect "$tmp/$v.rc" 0 "advise --write sda ($v)" || true
done
for f in "81-advise-ID_SERIAL-X_2f1.conf:Property=ID_SERIAL=X/1" "81-advise-ID_SERIAL-X_3a1.conf:Property=ID_SERIAL=X:1" \
        "81-advise-ID_WWN-0xabc.conf:Property=ID_WWN=0xabc" "81-advise-ID_SERIAL-0xabc.conf:Property=ID_SERIAL=0xabc"; do
        file=$root/$dropins/${f%%:*}
        if grep -qx "${f#*:}" "$file" 2>/dev/null; then
                ok "${f%%:*} holds ${f#*:}"
        else
                fail "${f%%:*} missing or without ${f#*:}; drop-ins: $(ls "$root/$dropins" 2>&1)"
        fi
done
# the first disk still has its own rule
rule=$(cd "$tmp/trees" && umockdev-run -d slash.umockdev -- "$RA_CTL" --root "$root" status --json 2>/dev/null |
        grep -o '"rule": *"[^"]*"' | head -1 || true)
grep -q "81-advise-ID_SERIAL-X_2f1.conf" <<<"$rule" && ok "status: the X/1 disk is decided by its own drop-in" ||
        fail "status: the X/1 disk's rule is $rule"

# ---- 3: an id another disk shares ---------------------------------------------
root=$(fresh_root emmc)
mmc0="   179       0 mmcblk0 1000 0 256000 5000 0 0 0 0 0 1000 5000"
mmc1="   179       0 mmcblk0 2000 0 512000 10000 0 0 0 0 0 1900 10000"
run_advise "$tmp/emmc" "$here/trees/emmc-256m-board.umockdev" "$root" "$mmc0|$mmc1" --write mmcblk0
if expect "$tmp/emmc.rc" 1 "advise --write mmcblk0" &&
        grep -q "ID_SERIAL=0x7a3c19e2 names mmcblk0 and mmcblk0boot0 too" "$tmp/emmc.err" &&
        ! ls "$root/$dropins"/81-advise-* >/dev/null 2>&1; then
        ok "emmc: an id mmcblk0boot0 shares is refused, nothing written"
else
        fail "emmc: $(cat "$tmp/emmc" "$tmp/emmc.err"); drop-ins: $(ls "$root/$dropins" 2>&1)"
fi

# ---- 4: optical drive ----------------------------------------------------------
root=$(fresh_root optical)
sr0="  11       0 sr0 1000 0 256000 5000 0 0 0 0 0 1000 5000"
sr1="  11       0 sr0 2000 0 512000 10000 0 0 0 0 0 1900 10000"
run_advise "$tmp/sr" "$here/trees/optical.umockdev" "$root" "$sr0|$sr1" --write sr0
if expect "$tmp/sr.rc" 1 "advise --write sr0" && grep -q "sr0 is an optical drive" "$tmp/sr.err" &&
        ! ls "$root/$dropins"/81-advise-* >/dev/null 2>&1; then
        ok "optical: advise --write sr0 refused, nothing written"
else
        fail "optical: $(cat "$tmp/sr" "$tmp/sr.err"); drop-ins: $(ls "$root/$dropins" 2>&1)"
fi
run_advise "$tmp/sr2" "$here/trees/optical.umockdev" "$root" "$sr0|$sr1" sr0
grep -q "sr0: no signal: left alone: an optical drive" "$tmp/sr2" && ok "optical: advise says left alone" ||
        fail "optical: advise sr0 says: $(cat "$tmp/sr2" "$tmp/sr2.err")"

# ---- 5: written only for a file that decides -----------------------------------
root=$(fresh_root later)
mkdir -p "$root/$dropins"
printf '[Rule everything]\nKind=block\nSize=1M\n' >"$root/$dropins/99-later.conf"
run_advise "$tmp/later" "$here/trees/sata-hdd.umockdev" "$root" "$sda0|$sda1" --write --json sda
if expect "$tmp/later.rc" 1 "advise --write under a later rule" && grep -q '"written": *null' "$tmp/later" &&
        ! ls "$root/$dropins"/81-advise-* >/dev/null 2>&1; then
        ok "a drop-in that decides nothing is removed and not reported written"
else
        fail "later rule: $(cat "$tmp/later" "$tmp/later.err"); drop-ins: $(ls "$root/$dropins")"
fi

# ---- 6: the IO STALL column ------------------------------------------------------
root=$(fresh_root stall)
IO_STALL_US=300000 run_advise "$tmp/stall" "$here/trees/sata-hdd.umockdev" "$root" "$sda0|$sda1" sda
row=$(grep '^sda ' "$tmp/stall" || true)
# DEVICE READ REQUEST READ_AHEAD BUSY IO_STALL ADVICE...
# 0.3 s of stall a sample: about 30%, as long as the samples' intervals
if awk '{ exit !($4 == "128K" && $6 ~ /^[0-9]+%$/ && $6 + 0 >= 25 && $6 + 0 <= 35) }' <<<"$row"; then
        ok "table: READ_AHEAD 128K, IO STALL $(awk '{print $6}' <<<"$row")"
else
        fail "table row: '$row'"
fi

# ---- 7: concurrent runs ------------------------------------------------------------
# strace holds the first run's rename 1.5 s, so the second writes its record
# in between: with one shared temporary file, the first rename then fails.
root=$(fresh_root concurrent)
run_advise "$tmp/conc1" "$here/trees/sata-hdd.umockdev" "$root" "$sda0|$sda1" sda &
sleep 0.1 # the windows overlap; only the renames are delayed
# (LeakSanitizer cannot run under ptrace: leaks are checked by the other runs)
window "$here/trees/sata-hdd.umockdev" "$here/trees/sata-hdd.meminfo" "$sda0|$sda1" \
        env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
        -e inject=rename,renameat,renameat2:delay_enter=1500000 "$RA_CTL" --root "$root" advise --time 2 sda \
        >"$tmp/conc2" 2>"$tmp/conc2.err" &
wait
for k in 1 2; do
        [ ! -s "$tmp/conc$k.err" ] || fail "concurrent advise $k: $(cat "$tmp/conc$k.err")"
done
rec=$root/run/readahead-agent/advice
[ "$(grep -c . "$rec")" = 1 ] && grep -q "^sda	block	hdd	1	512	" "$rec" && ok "concurrent runs: one record line" ||
        fail "concurrent runs: the record is: $(cat -A "$rec")"
leftover=$(ls "$root/run/readahead-agent" | grep -v -x -e advice -e advice.lock || true)
[ -z "$leftover" ] && ok "concurrent runs: no temporary file left" || fail "concurrent runs: left behind: $leftover"

# ---- 8: the record as status reads it ------------------------------------------------
root=$(fresh_root record)
rec=$root/run/readahead-agent/advice
mkdir -p "${rec%/*}"
prom() {
        umockdev-run -d "$here/trees/sata-hdd.umockdev" -- timeout -s KILL 20 "$RA_CTL" --root "$root" status \
                --format=prometheus 2> >(grep -v '^ERROR: uevent_sender_send' >&2)
}
printf 'sda\tblock\thdd\t1\t512\t100\nsda\tblock\thdd\t-1\t128\t200\nsda\tbl"ock\thdd\t0\t128\t300\nsda\tblock\th\\dd\t0\t4\t400\n' >"$rec"
out=$(prom) || fail "status with duplicate lines: exit $?"
n=$(grep -c '^readahead_advice{' <<<"$out" || true)
if [ "$n" = 1 ] && grep -qx 'readahead_advice{device="sda",kind="block",class="hdd"} -1' <<<"$out"; then
        ok "record: one series per device (the last valid line), bad kind and class dropped"
else
        fail "record with duplicates: $(grep '^readahead_advice' <<<"$out")"
fi
rm -f "$rec"
mkfifo "$rec"
rc=0
out=$(prom) || rc=$?
[ "$rc" = 0 ] && grep -q '^readahead_current_bytes' <<<"$out" && ! grep -q '^readahead_advice' <<<"$out" &&
        ok "record: a FIFO is not read (no hang)" || fail "record as a FIFO: exit $rc"
rm -f "$rec"
ln -s /dev/zero "$rec"
# The memory status used, bounded by ulimit (except under ASan, whose shadow
# memory needs the address space): an endless file must not grow it.
rc=0
out=$( ([[ $(ldd "$RA_CTL") == *libasan* ]] || ulimit -v 2000000
        umockdev-run -d "$here/trees/sata-hdd.umockdev" -- /usr/bin/time -f 'maxrss_kb=%M' -o "$tmp/rss" \
                timeout -s KILL 5 "$RA_CTL" --root "$root" status --format=prometheus 2>/dev/null)) || rc=$?
rss=$(grep -o 'maxrss_kb=[0-9]*' "$tmp/rss" | cut -d= -f2)
[ "$rc" = 0 ] && ! grep -q '^readahead_advice' <<<"$out" && [ "${rss:-999999}" -lt 200000 ] &&
        ok "record: a symlink to /dev/zero is not followed (max RSS ${rss} KiB)" ||
        fail "record as a symlink to /dev/zero: exit $rc, max RSS ${rss:-?} KiB"

# ---- 9: the smaller ones ------------------------------------------------------------------
for t in ' 5' '+5'; do
        rc=0
        out=$(ra_umock_run sata-hdd "$RA_CTL" --root "$RA_TESTROOT" advise --time "$t" sda 2>&1) || rc=$?
        [ "$rc" = 2 ] && ok "--time '$t' refused" || fail "--time '$t': exit $rc: $out"
done
root=$(fresh_root twice)
run_advise "$tmp/twice" "$here/trees/sata-hdd.umockdev" "$root" "$sda0|$sda1" sda /dev/sda
[ "$(grep -c '^sda ' "$tmp/twice")" = 1 ] && ok "advise sda /dev/sda: one row" ||
        fail "advise sda /dev/sda: $(cat "$tmp/twice" "$tmp/twice.err")"
jump="   8       0 sda 2000 0 18446744073709551615 10000 0 0 0 0 0 1900 10000"
run_advise "$tmp/jump" "$here/trees/sata-hdd.umockdev" "$root" "$sda0|$jump" --json sda
grep -q '"read_bytes": *0,' "$tmp/jump" && grep -q '"advice": *"no signal"' "$tmp/jump" &&
        ok "a counter that jumps to 2^64-1 is no reading" || fail "jump: $(cat "$tmp/jump")"
gone="   8      16 sdb 1 0 8 1 0 0 0 0 0 1 1"
back="   8       0 sda 2000 0 512000 10000 0 0 0 0 0 2600 10000"
window "$here/trees/sata-hdd.umockdev" "$here/trees/sata-hdd.meminfo" "$sda0|$gone|$back" "$RA_CTL" --root "$root" \
        advise --time 3 --json sda >"$tmp/gone" 2>/dev/null || true
busy=$(grep -o '"busy": *[0-9.]*' "$tmp/gone" | grep -o '[0-9.]*$' || echo missing)
awk -v b="$busy" 'BEGIN { exit !(b != "missing" && b <= 1) }' && ok "a disk missing from a sample: busy $busy" ||
        fail "a disk missing from a sample: busy $busy: $(cat "$tmp/gone")"

[ "$fails" = 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "all advise --write and record checks passed"
