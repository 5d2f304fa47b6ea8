/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "facts.h"

/*
 * /proc/self/mountinfo, parsed without allocation (pure: text in, fields out;
 * gather.c does the reading). One line:
 *   36 35 0:53 / /mnt/data rw,relatime shared:1 - nfs4 srv:/export rw,vers=4.2,rsize=1048576,...
 */

struct ra_mount {
        unsigned major, minor;
        char mount_point[RA_PATH_MAX]; /* the first one; octal escapes decoded */
        unsigned n_mount_points;       /* a superblock may be mounted several times */
        char fstype[32];
        char source[RA_PATH_MAX];
        char super_options[1024];
};

/* Finds superblock major:minor. Returns 1 if found, 0 if not; malformed lines are skipped. */
int ra_mountinfo_find(const char *text, size_t len, unsigned major, unsigned minor,
                      struct ra_mount *ret);

/* Calls cb for each well-formed line; stops early when cb returns non-zero and returns that. */
int ra_mountinfo_foreach(const char *text, size_t len,
                         int (*cb)(const struct ra_mount *m, void *userdata), void *userdata);

/* "rsize" in "rw,vers=4.2,rsize=1048576": 1048576; 0 when absent or malformed. */
uint64_t ra_mount_option_u64(const char *options, const char *key);

/* Copies an option's value ("4.2" for "vers"); empty when absent. */
void ra_mount_option_string(const char *options, const char *key, char *buf, size_t size);

/* The server in a mount source: "srv" for "srv:/export", "[fe80::1]:/x", "//srv/share". */
void ra_mount_server(const char *source, char *buf, size_t size);

/* Fills the mount fields of f (kind, name, fstype, rsize, ...) and classifies. */
void ra_facts_from_mount(struct ra_facts *f, const char *bdi_name, const struct ra_mount *m);

/* "0:53" or "0:53-fuseblk" -> 0, 53. Returns -EINVAL for any other bdi name. */
int ra_parse_bdi_name(const char *name, unsigned *ret_major, unsigned *ret_minor);
