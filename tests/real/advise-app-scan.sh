#!/bin/bash
# SPDX-License-Identifier: MIT
# advise on an application (issue 31, point 6): PostgreSQL's cold
# SELECT count(*) of pgbench_accounts (a sequential scan of ~154 MiB; the
# server in 64 MiB of memory, 16 MiB of shared_buffers) on the HDD model at
# the kernel's 128K: the scan waits on each readahead window -> "raise";
# following it, the same scan takes less time (by hand on this setup: 10.8 s
# at 128K, 3.0 s at 512K).
. "$(dirname "$0")/advise-common.sh"
ra_advise_init
ra_emu_have_memory_limit || ra_skip "no memory cgroup (memory.limit_in_bytes or memory.max)"
[ -n "$RA_PG_BIN" ] || ra_skip "PostgreSQL (postgresql) is not installed"
id postgres >/dev/null 2>&1 || ra_skip "no postgres user"
command -v runuser >/dev/null || ra_skip "runuser (util-linux) is not installed"
ra_hdd_group scan dev group -m $((64 << 20))
ra_app_fs "$dev" pg
chmod 711 "$RA_TMP" "$RA_TMP/mnt" # the server runs as postgres
data=$RA_TMP/mnt/pg/data
sock=$RA_TMP/sock
# Before the cgroups go (ra_calibrate_init's hook): the server is in them.
RA_CLEANUP_HOOKS=("ra_pg_stop '$data' 2>/dev/null" "${RA_CLEANUP_HOOKS[@]}")
ra_pg_init "$data" "$sock" 12 >"$RA_TMP/init.log" 2>&1 || { cat "$RA_TMP/init.log" >&2; ra_fail "pgbench -i failed"; }
out=$RA_TMP/advise.json

# count KB FILE [advise]: the scan, cold, at KB, the server in the group;
# its seconds to FILE; with advise, advise watches 5 s of it.
count() {
        ra_app_cold "$dev" pg
        ra_set_ra "$dev" "$1"
        ra_pg_start "$data" "$sock" ra_exec_in group || ra_fail "the server did not start: $(tail -3 "$sock/pg.log")"
        (ra_pg_count "$sock" 300 >"$2") &
        local pid=$!
        RA_BG_PIDS+=("$pid")
        if [ "${3:-}" = advise ]; then
                sleep 1
                ra_advise_devices "$out" 5 "$dev"
        fi
        wait "$pid" || ra_fail "SELECT count(*) failed"
        RA_BG_PIDS=()
        ra_pg_stop "$data"
        ra_log "SELECT count(*) at ${1}K: $(cat "$2") s"
}

count 128 "$RA_TMP/before" advise
ra_expect_eq "advise exit status" "$RA_ADVISE_RC" 0
ra_expect_eq "advice" "$(ra_device_json "$out" "$dev" 'd["advice"]')" raise
suggested=$(ra_device_json "$out" "$dev" 'd["suggested_kb"]')
ra_expect_eq "suggested above 128K ($suggested)" "$((suggested > 128))" 1
count "$suggested" "$RA_TMP/after"
ra_expect_better "SELECT count(*) seconds, 128K -> ${suggested}K" "$(cat "$RA_TMP/before")" \
        "$(cat "$RA_TMP/after")" lower
