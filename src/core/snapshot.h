/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"

/*
 * One view of the host per run of readahead-ctl. Listing devices reads
 * /proc/self/mountinfo for each bdi and the host facts (/proc/meminfo, page
 * size, kernel release) for each device; with the snapshot on, each is read
 * once, on first use, and every device sees the same copy. 9 MiB of mounts
 * cost a full read per bdi otherwise. The agent handles one device per run
 * and its mount waiter must see new mounts, so it never turns it on.
 */
void ra_snapshot_begin(void);

/* While the snapshot is on: 1 with a copy of mountinfo in *ret (the caller
 * frees it), or a negative errno as the first read returned. 0 when off. */
int ra_snapshot_mountinfo(char **ret, size_t *ret_len);

/* While the snapshot is on and has them: the host facts copied into f, true. */
bool ra_snapshot_host(struct ra_facts *f);

/* While the snapshot is on: keeps f's host facts for the next device. */
void ra_snapshot_host_keep(const struct ra_facts *f);
