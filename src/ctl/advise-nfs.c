/* SPDX-License-Identifier: MIT */
/*
 * readahead-ctl advise for NFS mounts: the mount's own READ counters, each
 * sample one read of /proc/self/mountstats, so a local disk's reads never
 * enter an NFS mount's evidence, nor the mount's a disk's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "advise-nfs-sample.h"
#include "fileio.h"

/* About 4 KiB per NFS mount, 60 bytes per other mount. */
#define MOUNTSTATS_MAX_BYTES ((size_t) 64 << 20)

bool advise_nfs_wants(const struct ra_facts *f) {
        return f->kind == RA_KIND_MOUNT && f->class == RA_CLASS_NFS && f->mount_point;
}

int advise_nfs_read(char **ret, size_t *ret_len) {
        return ra_read_whole_file("/proc/self/mountstats", MOUNTSTATS_MAX_BYTES, ret, ret_len);
}

void advise_nfs_sample(struct advise_nfs *s, const struct ra_facts *f, const char *text, size_t len,
                       double seconds, bool first) {
        struct ra_nfs_read_counters now;

        if (!advise_nfs_wants(f))
                return;
        s->obs.rsize_kb = f->rsize_bytes / 1024;
        bool found = text && ra_mountstats_find(text, len, f->mount_point, &now) == 1;
        if (!first && found && s->seen) {
                struct ra_nfs_read_counters d = ra_nfs_read_counters_delta(&now, &s->last);
                ra_nfs_observe_interval(&s->obs, &d, seconds);
        } else if (!first) {
                s->obs.seconds += seconds; /* no evidence in this interval */
        }
        /* Unmounted, or its entry malformed: it starts afresh when back. */
        s->seen = found;
        if (!found)
                return;
        s->last = now;
}

void advise_nfs_decide(const struct advise_nfs *s, const struct ra_advise_limits *l, struct ra_advice *ret,
                       struct ra_observed *ret_shown) {
        ra_advise_nfs(&s->obs, l, ret);
        *ret_shown = (struct ra_observed){
                .seconds = s->obs.seconds,
                .read_seconds = s->obs.read_seconds,
                .disk = { .read_ios = s->obs.read.read_ops,
                          .read_sectors = s->obs.read.server_read_bytes / 512 },
        };
}

void advise_nfs_json(struct json *j, const struct ra_advice *a) {
        json_double(j, "nfs_rtt_ms", a->rtt_ms, 2);
        json_double(j, "nfs_in_flight_kb", a->in_flight_kb, 1);
}
