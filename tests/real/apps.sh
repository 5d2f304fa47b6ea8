# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# RocksDB's db_bench (rocksdb-tools) as bench/apps and the advise-app-*
# tests run it: keys of 16 bytes, values of 1000, no compression, an 8 MiB
# block cache, every table file open. advise_random_on_open=false as KML ran
# it: RocksDB's default hint (POSIX_FADV_RANDOM on every table file) turns
# readahead off, and read_ahead_kb then changes nothing (bench/README-apps.md:
# readrandom through mmap read 96, 90 and 92 ops/s at 2M, 512K and 128K).
RA_DB_FLAGS=(--key_size=16 --value_size=1000 --compression_type=none --cache_size=8388608
        --write_buffer_size=67108864 --target_file_size_base=67108864 --bloom_bits=10 --open_files=-1
        --advise_random_on_open=false)

# ra_db_fill DIR NUM: a database of NUM random keys (fillrandom, then a full
# compaction), about NUM x 630 bytes (random keys repeat).
ra_db_fill() {
        db_bench --db="$1" --benchmarks=fillrandom,compact --num="$2" --threads=1 "${RA_DB_FLAGS[@]}"
}

# ra_db_ops BENCH: the ops/sec db_bench printed for BENCH (its output on stdin).
ra_db_ops() {
        awk -v b="$1" '$1 == b && $2 == ":" { for (i = 3; i < NF; i++) if ($(i + 1) == "ops/sec") print $i }'
}

# PostgreSQL as bench/apps and advise-app-scan run it: a cluster on the
# device under test, 16 MiB of shared_buffers, one process per query (no
# parallel workers, no JIT, no autovacuum), on a Unix socket only.
# ra_pg_bin: the newest installed server's bin directory (15 on Debian 12).
ra_pg_bin() {
        local d
        d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
        [ -n "$d" ] && [ -x "$d/pg_ctl" ] && echo "$d"
}
RA_PG_BIN=$(ra_pg_bin || true)
RA_PG_PORT=5499
ra_as_pg() { runuser -u postgres -- "$@"; }
# ra_pg_opts SOCKDIR: the server's options.
ra_pg_opts() {
        echo "-c shared_buffers=16MB -c port=$RA_PG_PORT -c listen_addresses= -c unix_socket_directories=$1 -c max_parallel_workers_per_gather=0 -c jit=off -c autovacuum=off"
}
# ra_pg_start DATADIR SOCKDIR [CMD-PREFIX...]: starts the server through
# CMD-PREFIX (ra_emu_exec: in the throttled cgroups); its log in SOCKDIR.
ra_pg_start() {
        local data=$1 sock=$2
        shift 2
        "$@" runuser -u postgres -- "$RA_PG_BIN/pg_ctl" -D "$data" -o "$(ra_pg_opts "$sock")" -l "$sock/pg.log" -w start >/dev/null
}
ra_pg_stop() { ra_as_pg "$RA_PG_BIN/pg_ctl" -D "$1" -m fast -w stop >/dev/null; }
# ra_pg_init DATADIR SOCKDIR SCALE: a cluster with database "bench" holding
# pgbench's tables at SCALE (pgbench_accounts: ~13 MiB per unit), stopped.
ra_pg_init() {
        local data=$1 sock=$2
        mkdir -p "$data" "$sock" && chown postgres: "$data" && chmod 1777 "$sock"
        ra_as_pg "$RA_PG_BIN/initdb" -D "$data" -A trust >/dev/null &&
                ra_pg_start "$data" "$sock" &&
                ra_as_pg "$RA_PG_BIN/createdb" -h "$sock" -p "$RA_PG_PORT" bench &&
                ra_as_pg "$RA_PG_BIN/pgbench" -h "$sock" -p "$RA_PG_PORT" -i -q -s "$3" bench &&
                ra_pg_stop "$data"
}
# ra_pg_count SOCKDIR [TIMEOUT]: a sequential scan, SELECT count(*) of
# pgbench_accounts (an index-only scan turned off: the point is the table),
# timed; prints the seconds. Exit status that of psql (124: timed out).
ra_pg_count() {
        local t0 t1 rc=0
        t0=$(date +%s%N)
        ra_as_pg timeout "${2:-600}" "$RA_PG_BIN/psql" -h "$1" -p "$RA_PG_PORT" -qAtX -d bench \
                -c "SET enable_indexonlyscan = off" -c "SELECT count(*) FROM pgbench_accounts" >/dev/null || rc=$?
        t1=$(date +%s%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
        return "$rc"
}
