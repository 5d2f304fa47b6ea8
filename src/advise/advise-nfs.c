/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "advise-nfs.h"
#include "size.h"

void ra_nfs_observe_interval(struct ra_nfs_observed *o, const struct ra_nfs_read_counters *d,
                             double seconds) {
        struct ra_nfs_read_counters *c = &o->read;

        o->seconds += seconds;
        if (d->read_ops > 0)
                o->read_seconds += seconds;
        c->normal_read_bytes += d->normal_read_bytes;
        c->direct_read_bytes += d->direct_read_bytes;
        c->server_read_bytes += d->server_read_bytes;
        c->read_ops += d->read_ops;
        c->read_transmissions += d->read_transmissions;
        c->read_timeouts += d->read_timeouts;
        c->read_bytes_sent += d->read_bytes_sent;
        c->read_bytes_received += d->read_bytes_received;
        c->read_queue_ms += d->read_queue_ms;
        c->read_rtt_ms += d->read_rtt_ms;
        c->read_execute_ms += d->read_execute_ms;
}

#define NFS_BYTES_PER_S  (UINT64_C(1) << 42)
#define NFS_OPS_PER_S    (UINT64_C(1) << 28)
#define NFS_IN_FLIGHT_MAX 65536

bool ra_nfs_delta_plausible(const struct ra_nfs_read_counters *d, double seconds) {
        const double s = seconds > 0 ? seconds : 0, bytes = s * (double) NFS_BYTES_PER_S,
                     ops = s * (double) NFS_OPS_PER_S, ms = (s + 1) * 1000 * NFS_IN_FLIGHT_MAX;

        return (double) d->normal_read_bytes <= bytes && (double) d->direct_read_bytes <= bytes &&
               (double) d->server_read_bytes <= bytes && (double) d->read_bytes_sent <= bytes &&
               (double) d->read_bytes_received <= bytes && (double) d->read_ops <= ops &&
               (double) d->read_transmissions <= ops && (double) d->read_timeouts <= ops &&
               (double) d->read_queue_ms <= ms && (double) d->read_rtt_ms <= ms &&
               (double) d->read_execute_ms <= ms;
}

/* The profile's rule for NFS, which advise never lowers below. */
#define NFS_FLOOR_NAME "max(1M, 4 x rsize)"

static double ratio(double part, double whole) {
        return whole > 0 ? part / whole : 0;
}

void ra_advise_nfs(const struct ra_nfs_observed *o, const struct ra_advise_limits *l,
                   struct ra_advice *ret) {
        const struct ra_nfs_read_counters *c = &o->read;
        struct ra_advice a = { .kind = RA_ADVICE_NO_SIGNAL,
                               .suggested_kb = l->read_ahead_kb,
                               .io_stall = -1,
                               .mem_stall = -1 };
        const double server_bytes = (double) c->server_read_bytes;
        const double read_seconds = o->read_seconds > 0 ? o->read_seconds : o->seconds;
        const uint64_t four_reads_kb = RA_ADVISE_NFS_RSIZE_MULTIPLE * o->rsize_kb;
        const uint64_t floor_kb = four_reads_kb > RA_ADVISE_NFS_FLOOR_MIN_KB ? four_reads_kb
                                                                           : RA_ADVISE_NFS_FLOOR_MIN_KB;
        char text[240], ra[24], rs[24];

        a.read_bytes_per_s = ratio(server_bytes, o->seconds);
        a.request_kb = ratio(server_bytes / 1024, (double) c->read_ops);
        /* in doubles: a sum of two 64-bit counters can wrap */
        a.direct_share = ratio((double) c->direct_read_bytes,
                               (double) c->normal_read_bytes + (double) c->direct_read_bytes);
        a.rtt_ms = ratio((double) c->read_rtt_ms, (double) c->read_ops);
        /* Little's law: bytes in flight = throughput while reading x RTT. */
        a.in_flight_kb = ratio(server_bytes, read_seconds) * a.rtt_ms / 1000 / 1024;
        const double window_share = ratio(a.in_flight_kb, (double) l->read_ahead_kb);
        const double retransmits =
                c->read_transmissions > c->read_ops
                        ? ratio((double) (c->read_transmissions - c->read_ops), (double) c->read_ops)
                        : 0;

        ra_format_size_kb(l->read_ahead_kb, ra);
        if (o->rsize_kb)
                ra_format_size_kb(o->rsize_kb, rs);
        else
                snprintf(rs, sizeof(rs), "unknown");
        if (server_bytes < (double) RA_ADVISE_READ_BYTES_MIN) {
                if (c->server_read_bytes == 0 && o->mountstats_unread)
                        snprintf(a.reason, sizeof(a.reason),
                                 "no READ counters: mountstats could not be read");
                else if (c->server_read_bytes == 0 && o->no_read_counters)
                        snprintf(a.reason, sizeof(a.reason),
                                 "no READ counters: the mount's entry in mountstats has no READ line, or a "
                                 "malformed one");
                else if (c->server_read_bytes == 0)
                        snprintf(a.reason, sizeof(a.reason), "no NFS reads in %.0f s", o->seconds);
                else
                        snprintf(a.reason, sizeof(a.reason), "only %.0fK read from the server in %.0f s",
                                 server_bytes / 1024, o->seconds);
                goto done;
        }
        if (a.direct_share >= RA_ADVISE_DIRECT_SHARE_MIN) {
                snprintf(a.reason, sizeof(a.reason),
                         "%.0f%% of the reads bypass the page cache (O_DIRECT): readahead plays no part",
                         a.direct_share * 100);
                goto done;
        }
        if (c->read_ops == 0 || c->read_rtt_ms == 0) {
                snprintf(a.reason, sizeof(a.reason), "%.0fK read but no READ round trips counted",
                         server_bytes / 1024);
                goto done;
        }

        a.kind = RA_ADVICE_KEEP;
        int n = snprintf(
                text, sizeof(text),
                "%.1f MiB/s x %.1f ms RTT = %.0fK in flight, %.0f%% of read_ahead_kb %s (READs average "
                "%.0fK, rsize %s",
                ratio(server_bytes, read_seconds) / (1 << 20), a.rtt_ms, a.in_flight_kb, window_share * 100,
                ra, a.request_kb, rs);
        if (c->read_transmissions > c->read_ops && n > 0 && (size_t) n < sizeof(text))
                n += snprintf(text + n, sizeof(text) - (size_t) n, ", %.1f%% retransmitted",
                              retransmits * 100);
        if (n > 0 && (size_t) n < sizeof(text))
                snprintf(text + n, sizeof(text) - (size_t) n, ")");

        if (window_share >= RA_ADVISE_NFS_IN_FLIGHT_RAISE_MIN) {
                if (retransmits > RA_ADVISE_NFS_RETRANSMIT_MAX) {
                        snprintf(
                                a.reason, sizeof(a.reason),
                                "the window is in flight: %s; but READs are retransmitted: the network, not "
                                "readahead, is the limit",
                                text);
                        goto done;
                }
                char ev[sizeof(text) + 48];
                snprintf(ev, sizeof(ev), "sequential reads limited by the readahead window: %s", text);
                ra_advise_suggest(&a, l, RA_ADVICE_RAISE, l->read_ahead_kb * RA_ADVISE_STEP, 0, NULL, ev);
                goto done;
        }
        /* a lower, by one step and never below the floor, for one of two reasons */
        const char *lower_why = NULL;
        if (o->rsize_kb && window_share < RA_ADVISE_NFS_IN_FLIGHT_LOWER_MAX && l->read_ahead_kb > floor_kb)
                lower_why = "most of the window waits for the reader";
        else if (o->rsize_kb && window_share < RA_ADVISE_NFS_IN_FLIGHT_LOWER_LARGE_MAX &&
                 l->read_ahead_kb >= RA_ADVISE_STEP * floor_kb)
                lower_why = "under half of a window of 4 x " NFS_FLOOR_NAME " or more is in flight";
        if (lower_why) {
                char ev[sizeof(text) + 96];
                snprintf(ev, sizeof(ev), "%s: %s", lower_why, text);
                ra_advise_suggest(&a, l, RA_ADVICE_LOWER, l->read_ahead_kb / RA_ADVISE_STEP, floor_kb,
                                  NFS_FLOOR_NAME, ev);
                goto done;
        }
        snprintf(a.reason, sizeof(a.reason), "%s: %s", text,
                 window_share < RA_ADVISE_NFS_IN_FLIGHT_LOWER_MAX
                         ? "the reader is the limit, and the window is not above " NFS_FLOOR_NAME
                         : "the window is not the limit");
done:
        *ret = a;
}
