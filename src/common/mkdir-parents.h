/* SPDX-License-Identifier: MIT */
#pragma once

/* Creates every missing directory above the file PATH (0755); PATH is
 * changed while it works and given back as it was. readahead-ctl's drop-ins
 * and the state files of advise (state-file.c). */
int ra_mkdir_parents(char *path);
