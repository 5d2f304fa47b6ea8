/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl.h"
#include "facts.h"

/*
 * A rule for one device by its stable id, written into a drop-in of the
 * active profile in /etc and applied: calibrate --write and advise --write.
 */


/*
 * Writes PROFILE.conf.d/NN-VERB-ID.conf with the comment lines (each
 * starting "# ", ending in a newline), a [Rule VERB-ID] picking the device
 * by id and Size=size_kb; atomically (written aside, renamed). `order` is
 * the file's number, NN. Messages go to stderr, after "readahead-ctl VERB: ".
 */
int dropin_write(const struct ctl *ctl, const char *verb, unsigned order, const struct ra_stable_id *id,
                 const char *comment, uint64_t size_kb, char *section, size_t section_size, char *path,
                 size_t path_size);

/* Reloads the configuration with the new drop-in, checks that its rule is
 * the one that decides device `name` now, and applies it. On a broken file,
 * removes it again. *ret_after_kb: read_ahead_kb afterwards. apply prints a
 * line on stdout ("sda 128K -> 512K (rule)"); line_on_stderr puts it on
 * stderr instead, so that the verb's own table or JSON stays clean. */
int dropin_apply(struct ctl *ctl, const char *verb, const char *name, const char *path, const char *section,
                 bool line_on_stderr, uint64_t *ret_after_kb);

/* -ENOTUNIQ, with a message naming the other device, when another present
 * whole disk has the same id, or another mount the same server and mount
 * point (mounts stacked on one directory): a rule by it would decide both. */
int dropin_check_unique(struct ctl *ctl, const char *verb, const struct ra_facts *f, const struct ra_stable_id *id);

/* Why a rule for this device is not ours to write (memory devices, optical
 * drives: the profile leaves them alone), or NULL. */
const char *dropin_refused_class(const struct ra_facts *f);

/* The error for --write on a device that ra_find_stable_id() finds nothing for
 * (a disk with no stable id; an NFS mount point a rule cannot name). */
void stable_id_missing(const char *verb, const struct ra_facts *f);
