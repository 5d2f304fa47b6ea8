/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * What nfs-common's nfsrahead writes to an NFS bdi of this fstype ("nfs",
 * "nfs4"): [nfsrahead] FSTYPE= in nfs.conf, 128 without it. 0 when its udev
 * rule is not installed. root (may be NULL) prefixes every path, as --root does.
 */
uint64_t nfsrahead_kb(const char *root, const char *fstype);
