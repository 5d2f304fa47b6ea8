# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# One systemd-udevd for a test, the package test or the bench: uses the one
# that runs, or starts one and, at exit, stops it and waits until it is gone.
#
# A fresh machine has no udevd. When each test starts and stops its own, the
# next test must not find the old one still answering a ping on its way out:
# it would use it, and the daemon's exit a moment later refuses its reload
# ("Connection refused"). So ra_udevd_stop returns only once the process has
# exited, and ra_udevd_start waits for a daemon on its way out before it
# decides whether one runs. Callers hold /run/lock/readahead-agent-udev-tests.lock.
#
#   ra_udevd_start   returns 0 when a udevd answers; 1 (with RA_UDEVD_ERROR)
#                    when none could be had; sets RA_UDEVD_STARTED=1 and
#                    RA_UDEVD_PID when it started one
#   ra_udevd_stop    stops the one ra_udevd_start started, if any
#   ra_udevd_worker_kills SINCE_LINE   prints udevd's lines from the kernel log
#                    (after line SINCE_LINE of dmesg) that say a worker was killed
#   RA_UDEVD_LOG     set before ra_udevd_start starts a daemon: its log goes to
#                    that file at debug level (each event's rules, and what its
#                    programs print on stderr: the agent's lines where no
#                    journal runs) instead of the kernel log at its default level
#   ra_udevd_failure_logs DEV...   for a failed test: prints what that udevd
#                    and the agent (journal, READAHEAD_DEVICE=) logged about
#                    DEV... (/dev/loopN or loopN), so that a value the kernel
#                    kept after an event can be told apart from an event never run

RA_UDEVD=${RA_UDEVD:-/lib/systemd/systemd-udevd}
RA_UDEVD_STARTED=0
RA_UDEVD_PID=""
RA_UDEVD_ERROR=""
RA_UDEVD_SINCE=$(date +%s) # for the journal's lines of this test

ra_udevd_ping() { udevadm control --ping --timeout="${1:-5}" >/dev/null 2>&1; }

# Waits up to $2 tenths of a second for process $1 to exit.
ra_udevd_wait_gone() {
        local i
        for i in $(seq "${2:-100}"); do
                kill -0 "$1" 2>/dev/null || return 0
                sleep 0.1
        done
        return 1
}

ra_udevd_start() {
        local pid i
        # A daemon that was told to exit may still answer for a moment.
        for pid in $(pidof systemd-udevd 2>/dev/null); do
                if [ -e /run/udev/control ] && ! ra_udevd_ping 1; then
                        ra_udevd_wait_gone "$pid" 100 || true
                fi
        done
        ra_udevd_ping 5 && return 0
        if [ ! -x "$RA_UDEVD" ]; then
                RA_UDEVD_ERROR="no udevd running and $RA_UDEVD not found"
                return 1
        fi
        # Its warnings (a worker killed for a slow helper, a failed rule) go
        # to the kernel log, where a test or the bench can find them; or,
        # with RA_UDEVD_LOG, everything at debug to that file (at debug
        # level, --daemon keeps its stdout and stderr).
        # fd 9 is the callers' lock: the daemon must not keep it held.
        RA_UDEVD_SINCE=$(date +%s)
        if [ -n "${RA_UDEVD_LOG:-}" ]; then
                if ! SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug "$RA_UDEVD" --daemon \
                        >>"$RA_UDEVD_LOG" 2>&1 </dev/null 9>&-; then
                        RA_UDEVD_ERROR="could not start $RA_UDEVD"
                        return 1
                fi
        elif ! SYSTEMD_LOG_TARGET=kmsg "$RA_UDEVD" --daemon 9>&-; then
                RA_UDEVD_ERROR="could not start $RA_UDEVD"
                return 1
        fi
        RA_UDEVD_STARTED=1
        RA_UDEVD_PID=$(pidof -s systemd-udevd 2>/dev/null || true)
        for i in $(seq 50); do
                ra_udevd_ping 1 && return 0
                sleep 0.1
        done
        RA_UDEVD_ERROR="udevd started but does not answer"
        return 1
}

ra_udevd_stop() {
        [ "$RA_UDEVD_STARTED" = 1 ] || return 0
        RA_UDEVD_STARTED=0
        udevadm control --exit 2>/dev/null || { [ -n "$RA_UDEVD_PID" ] && kill "$RA_UDEVD_PID" 2>/dev/null; }
        if [ -n "$RA_UDEVD_PID" ] && ! ra_udevd_wait_gone "$RA_UDEVD_PID" 100; then
                kill -KILL "$RA_UDEVD_PID" 2>/dev/null
                ra_udevd_wait_gone "$RA_UDEVD_PID" 50 || true
        fi
        return 0
}

ra_udevd_kmsg_lines() { dmesg 2>/dev/null | wc -l; }

ra_udevd_worker_kills() {
        dmesg 2>/dev/null | tail -n +"$(($1 + 1))" | grep -E 'udevd.*([Ww]orker.*(killed|terminated by signal|timed out|failed)|[Kk]illing|timeout)' || true
}

ra_udevd_failure_logs() {
        local dev name majmin pattern=""
        for dev in "$@"; do
                name=${dev#/dev/}
                majmin=$(cat "/sys/class/block/$name/dev" 2>/dev/null || true)
                pattern+="${pattern:+|}\\b$name\\b${majmin:+|\\b$majmin\\b}"
        done
        [ -n "$pattern" ] || return 0
        if [ -n "${RA_UDEVD_LOG:-}" ] && [ -s "$RA_UDEVD_LOG" ]; then
                printf '# udevd (debug) about %s, last 300 lines (%s):\n' "$*" "$RA_UDEVD_LOG" >&2
                grep -aE "$pattern" "$RA_UDEVD_LOG" | tail -n 300 >&2 || true
        else
                printf '# no udevd log: the udevd that ran was not started by this test\n' >&2
        fi
        if [ -S /run/systemd/journal/socket ] && command -v journalctl >/dev/null; then
                for dev in "$@"; do
                        printf '# the agent in the journal about %s (READAHEAD_DEVICE=):\n' "${dev#/dev/}" >&2
                        journalctl -q -o short-precise --since "@$RA_UDEVD_SINCE" \
                                SYSLOG_IDENTIFIER=readahead-agent READAHEAD_DEVICE="${dev#/dev/}" >&2 || true
                done
                printf '# the agent in the journal, refused events (they name no trusted device):\n' >&2
                journalctl -q -o short-precise --since "@$RA_UDEVD_SINCE" SYSLOG_IDENTIFIER=readahead-agent \
                        READAHEAD_RESULT=refused >&2 || true
        fi
}
