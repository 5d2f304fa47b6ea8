#!/bin/bash
# SPDX-License-Identifier: MIT
# KNOWN BUG, registered DISABLED in CMakeLists.txt until src/ handles it.
#
# A FUSE daemon answers FUSE_INIT after mount(2) has returned (libfuse: as
# soon as it reads /dev/fuse; with fusermount3 after the fd came back over a
# socket). The kernel then sets the bdi's readahead to
# min(read_ahead_kb, max_readahead from the reply), and libfuse replies with
# the kernel's own offer, 128 KiB. The mount is already in mountinfo, so the
# agent decides at once, in the udev worker, and its value is undone a moment
# later. Seen without any artificial delay too: bench/bench.sh's mount storm
# (200 FUSE mounts, a Class=fuse Size=1M drop-in) left 3 to 18 of them at 128.
# Here the helper answers INIT 700 ms after mount(2), which makes it certain.
# Expected: the mount's bdi ends at the rule's 1024. Today: 128.
. "$(dirname "$0")/lib.sh"
ra_init
ra_require_fuse
ra_install_rule

etc=$ROOT/etc/readahead-agent
mkdir -p "$etc/profiles/default.conf.d"
printf '[Rule fuse]\nClass=fuse\nSize=1M\n' >"$etc/profiles/default.conf.d/50-fuse.conf"

ra_fuse_mount -i 700 slowinit
b=$(ra_bdi_of "$RA_TMP/mnt/slowinit")
ra_log "bdi $b: udev RESULT=$(ra_bdi_prop "$b" READAHEAD_RESULT) WAIT=$(ra_bdi_prop "$b" READAHEAD_WAIT) TARGET=$(ra_bdi_prop "$b" READAHEAD_TARGET_KB)"
ra_wait_bdi_ra "$b" 1024 5
