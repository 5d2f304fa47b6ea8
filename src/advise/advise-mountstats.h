/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * /proc/self/mountstats, the NFS client's per-mount counters (what nfs-utils'
 * mountstats and nfsiostat read). Pure: text in, counters out. One mount:
 *
 *   device srv:/export mounted on /mnt/data with fstype nfs4 statvers=1.1
 *           opts:   rw,vers=4.2,rsize=1048576,...
 *           bytes:  NORMAL_READ NORMAL_WRITE DIRECT_READ DIRECT_WRITE SERVER_READ SERVER_WRITE READ_PAGES
 * WRITE_PAGES per-op statistics READ: OPS TRANS TIMEOUTS BYTES_SENT BYTES_RECV QUEUE_MS RTT_MS EXECUTE_MS
 * [ERRORS]
 *
 * Every mount point of a superblock is listed with the same counters (they
 * belong to the superblock, as its bdi does): find one by any of them.
 */

/* The cumulative read counters of one NFS mount. */
struct ra_nfs_read_counters {
        /* "bytes:": what readers got through the page cache and O_DIRECT, and
         * what the server sent for them (readahead included) */
        uint64_t normal_read_bytes, direct_read_bytes, server_read_bytes;
        /* the READ operation's line */
        uint64_t read_ops, read_transmissions, read_timeouts;
        uint64_t read_bytes_sent, read_bytes_received;
        uint64_t read_queue_ms, read_rtt_ms, read_execute_ms;
};

/*
 * The counters of the NFS mount at mount_point (as in mountinfo, escapes
 * decoded). Returns 1 when found with both lines, 0 when there is no such NFS
 * mount, -EBADMSG when its entry is there but a line is malformed. Lines
 * of any length; numbers beyond 64 bits are malformed.
 */
int ra_mountstats_find(const char *text, size_t len, const char *mount_point,
                       struct ra_nfs_read_counters *ret);

/*
 * Mounts stacked on one mount point (two NFS mounts at /mnt: the upper one
 * is what /mnt names) are told apart by their order, the same in both
 * files (the kernel lists a namespace's mounts in one order for both):
 * ra_mountinfo_nth_at() gives which of the mountinfo entries at
 * mount_point is superblock major:minor (the last such, the one on top;
 * -ENOENT for none, -ENOMEM), and ra_mountstats_find_nth() reads that
 * entry's counters (as ra_mountstats_find(); 0 when that entry is not NFS).
 */
int ra_mountinfo_nth_at(const char *text, size_t len, const char *mount_point, unsigned major,
                        unsigned minor);
int ra_mountstats_find_nth(const char *text, size_t len, const char *mount_point, unsigned nth,
                           struct ra_nfs_read_counters *ret);

/* About 4 KiB per NFS mount, 60 bytes per other mount: a longer file is
 * not read (advise then has no NFS evidence, and says so). */
#define RA_MOUNTSTATS_MAX_BYTES ((size_t) 64 << 20)

/* The mountstats of the mount namespace whose mount table is read at
 * mountinfo_path (ra_mountinfo_path(): --mountinfo, $READAHEAD_MOUNTINFO):
 * DIR/mountstats beside a DIR/mountinfo (/proc/1/mountinfo ->
 * /proc/1/mountstats), else /proc/self/mountstats. -ENAMETOOLONG when it
 * does not fit in size bytes. */
int ra_mountstats_path(const char *mountinfo_path, char *buf, size_t size);

/* now - before, field by field; a counter that went back (a remount, a wrap)
 * counts as 0. */
struct ra_nfs_read_counters ra_nfs_read_counters_delta(const struct ra_nfs_read_counters *now,
                                                       const struct ra_nfs_read_counters *before);
