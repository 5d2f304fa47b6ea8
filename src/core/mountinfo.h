/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "facts.h"

/*
 * /proc/self/mountinfo, read whole (ra_read_mountinfo(), at the end) and
 * parsed (pure: text in, fields out). Fields are as long as the kernel prints
 * them: a mount point of 4 KiB, or super options of any length, are never
 * cut. One line:
 *   36 35 0:53 / /mnt/data rw,relatime shared:1 - nfs4 srv:/export rw,vers=4.2,rsize=1048576,...
 */

struct ra_mount {
        unsigned major, minor;
        /* Octal escapes decoded. In a ra_mountinfo_foreach() callback they
         * point into the parser's buffer and live until the callback returns;
         * ra_mountinfo_find() gives a copy that ra_mount_done() frees. */
        const char *mount_point; /* the first one */
        const char *fstype;
        const char *source;
        const char *super_options;
        unsigned n_mount_points; /* a superblock may be mounted several times */
        char *owned;
};

/* One byte of a field the kernel escapes as \ooo (mountinfo's and
 * mountstats' mount points and sources: space, tab, newline, backslash):
 * the byte at p, or the escape starting there, decoded into *ret_c.
 * Returns how many bytes of [p, end) it took: 4 for an escape, else 1. */
size_t ra_mount_unescape_byte(const char *p, const char *end, char *ret_c);

/* Finds superblock major:minor. Returns 1 if found, 0 if not, -ENOMEM;
 * malformed lines are skipped. */
int ra_mountinfo_find(const char *text, size_t len, unsigned major, unsigned minor,
                      struct ra_mount *ret);
void ra_mount_done(struct ra_mount *m);

/* Calls cb for each well-formed line; stops early when cb returns non-zero
 * and returns that; -ENOMEM when a line cannot be decoded. */
int ra_mountinfo_foreach(const char *text, size_t len,
                         int (*cb)(const struct ra_mount *m, void *userdata), void *userdata);

/* "rsize" in "rw,vers=4.2,rsize=1048576": 1048576; 0 when absent or malformed. */
uint64_t ra_mount_option_u64(const char *options, const char *key);

/* As ra_mount_option_u64(), and whether the option is there but not a number. */
uint64_t ra_mount_option_u64_checked(const char *options, const char *key, bool *ret_invalid);

/* An option's value ("4.2" for "vers"), with its length; NULL when absent. */
const char *ra_mount_option_value(const char *options, const char *key, size_t *ret_len);

/* The server in a mount source: "srv" for "srv:/export", "[fe80::1]:/x",
 * "//srv/share"; its length in *ret_len, NULL when there is none. */
const char *ra_mount_server(const char *source, size_t *ret_len);

/* Fills the mount fields of f (kind, name, fstype, rsize, ...) and classifies.
 * Returns -ENOMEM only. */
int ra_facts_from_mount(struct ra_facts *f, const char *bdi_name, const struct ra_mount *m);

/* "0:53" or "0:53-fuseblk" -> 0, 53. Returns -EINVAL for any other bdi name. */
int ra_parse_bdi_name(const char *name, unsigned *ret_major, unsigned *ret_minor);

/*
 * The whole of /proc/self/mountinfo, NUL-terminated. Every network mount is
 * in it somewhere, so it is read whole, however large (an unprivileged user
 * can add FUSE mounts): up to RA_MOUNTINFO_MAX_BYTES, then -EFBIG, which
 * callers report instead of acting as if there were no mounts.
 */
#define RA_MOUNTINFO_MAX_BYTES ((size_t) 256 << 20)
int ra_read_mountinfo(char **ret, size_t *ret_len);
/*
 * The mount table read: /proc/self/mountinfo, or $READAHEAD_MOUNTINFO. In a
 * container with the host's PID namespace, /proc/1/mountinfo is the host's,
 * where kubelet mounts network volumes (readahead-agent --watch --mountinfo).
 */
const char *ra_mountinfo_path(void);
/*
 * The mount table opened for reading and polling (POLLPRI on a change): a
 * descriptor, or a negative errno; -EBADFD for anything but a regular file
 * (which /proc's files are), refused without blocking: a FIFO would block
 * the open until a writer came, then end at once for ever (POLLHUP), and a
 * device or socket is no mount table either.
 */
int ra_mountinfo_open(void);
/* The file whole through ra_mountinfo_open(), with ra_read_mountinfo()'s limit. */
int ra_read_mountinfo_file(char **ret, size_t *ret_len);
/* What went wrong reading it, in words: -EFBIG names the limit, -EBADFD
 * says the file is of the wrong type. */
const char *ra_mountinfo_strerror(int r);
