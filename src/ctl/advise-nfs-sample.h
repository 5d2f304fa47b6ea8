/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "advise-nfs.h"
#include "facts.h"
#include "output.h"

/*
 * advise's NFS mounts: sampled from /proc/self/mountstats (src/core/
 * mountstats.c), decided by ra_advise_nfs(). A mount is one bdi: every mount
 * point of its superblock shows the same counters, read at the first one.
 */

struct advise_nfs {
        bool seen; /* found in the last sample */
        struct ra_nfs_read_counters last;
        struct ra_nfs_observed obs;
};

/* Whether advise reads this device's evidence from mountstats. */
bool advise_nfs_wants(const struct ra_facts *f);

/* The whole of /proc/self/mountstats, NUL-terminated (free() it). */
int advise_nfs_read(char **ret, size_t *ret_len);

/* One sample of one mount from the text: the first records, the next ones
 * add the interval since the last. A mount missing from a sample starts
 * afresh when it comes back. */
void advise_nfs_sample(struct advise_nfs *s, const struct ra_facts *f, const char *text, size_t len,
                       double seconds, bool first);

/* The advice, and the disk counters advise's table and JSON print (bytes
 * the server sent as sectors, READs as read requests). */
void advise_nfs_decide(const struct advise_nfs *s, const struct ra_advise_limits *l, struct ra_advice *ret,
                       struct ra_observed *ret_shown);

/* The JSON fields only an NFS mount has. */
void advise_nfs_json(struct json *j, const struct ra_advice *a);
