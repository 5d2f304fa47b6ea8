/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/*
 * File layering, and nothing about keys: which files make up one
 * configuration file, in which order, and which of them stand.
 *
 * A name ("profiles/default.conf") is looked up in each of ra_config_dirs
 * below c->root, in order. The first file found stands, unless it is broken:
 * then the next one down stands in. An empty file or a symlink to /dev/null
 * masks the ones below it. Drop-ins NAME.d/\*.conf come from every directory,
 * in basename order; each basename is a name looked up the same way.
 *
 * Every file looked at is noted in c->files with its state; every problem
 * becomes a diagnostic in c.
 */

/* Parses one file's bytes into userdata. Returns < 0 for a broken file (its
 * errors already diagnostics), -ENOMEM to stop loading, else how many of its
 * rules were dropped (their errors are diagnostics too). */
typedef int (*ra_conf_parse_fn)(struct ra_config *c, void *userdata, const char *path, const char *buf,
                                size_t len);

enum ra_conf_found {
        RA_CONF_NONE,   /* no such file, or every one is broken */
        RA_CONF_USED,   /* a file was parsed and stands */
        RA_CONF_MASKED, /* the highest file is a mask */
};

/* Hands the highest file named rel that parses to parse. Returns enum
 * ra_conf_found, or -ENOMEM. */
int ra_conf_files_read(struct ra_config *c, const char *rel, bool dropin, ra_conf_parse_fn parse,
                       void *userdata);

/* The same for each drop-in of rel, in basename order: all of them, or the
 * first RA_DROPINS_MAX and an error for the rest. Returns 0 or -ENOMEM. */
int ra_conf_files_read_dropins(struct ra_config *c, const char *rel, ra_conf_parse_fn parse, void *userdata);
