#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The status table's tree with btrfs: runs inside umockdev-run with
tests/btrfs/btrfs-raid.umockdev (started by tests/netfs/run-case.sh), lays
out /sys/fs/btrfs and mountinfo with tests/btrfs/check.py's helpers, and
checks where each filesystem sits: under the first of its members' disks by
name, as lsblk puts the upper device under the lower."""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import ratest  # noqa: E402
from ratest import check_eq, fail, ok  # noqa: E402

# tests/btrfs/check.py, under another name: tests/netfs/check.py is "check".
spec = importlib.util.spec_from_file_location("btrfs_check", os.path.join(HERE, "..", "btrfs", "check.py"))
bt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bt)
nf = bt.nf

CASES = {}
case = ratest.case_decorator(CASES)
TREE_ART = "│├└─|`- "


@case
def btrfs_tree():
    """raid10 over sd[a-h]1 and raid6 over sd[a-h]2 sit under sda; the
    single-device btrfs on the USB key sdi under sdi; each once; --list and
    --raw show the same rows without tree characters."""
    nf.set_meminfo(nf.MEM_16G_KB)
    # Members listed from the last: the parent is the first by name all the same.
    bt.btrfs_sysfs(bt.FSID_POOL, "btrfs-1", [f"sd{c}1" for c in "hgfedcba"], "raid10")
    bt.btrfs_sysfs(bt.FSID_ARCHIVE, "btrfs-2", [f"sd{c}2" for c in "hgfedcba"], "raid6")
    bt.btrfs_sysfs(bt.FSID_KEY, "btrfs-3", ["sdi"], "single")
    bt.set_mountinfo([bt.POOL, bt.ARCHIVE, bt.KEY])

    rc, out, err, _ = nf.ctl("status", "-o", "NAME,CLASS,TARGET", "--noheadings")
    print("     " + out.rstrip().replace("\n", "\n     "))
    check_eq("status -o NAME,CLASS,TARGET --noheadings: exit status", "exit 0", ratest.describe_rc(rc))
    rows = out.splitlines()
    names = [r.lstrip(TREE_ART).split(" ", 1)[0] for r in rows]
    depth = {n: len(r) - len(r.lstrip(TREE_ART)) for n, r in zip(names, rows)}
    for n in [f"sd{c}" for c in "abcdefghi"] + ["btrfs-1", "btrfs-2", "btrfs-3"]:
        check_eq(f"status: {n} listed once", 1, names.count(n))
    if not all(names.count(n) == 1 for n in ("sda", "sdi", "btrfs-1", "btrfs-2", "btrfs-3")):
        return
    at = {n: names.index(n) for n in names}
    check_eq("status: the filesystems on sda follow it",
             ["sda", "btrfs-1", "btrfs-2"], names[at["sda"]:at["sda"] + 3])
    check_eq("status: btrfs-3 follows sdi", ["sdi", "btrfs-3"], names[at["sdi"]:at["sdi"] + 2])
    check_eq("status: disks are roots", [0] * 9, [depth[f"sd{c}"] for c in "abcdefghi"])
    if all(depth[b] > 0 for b in ("btrfs-1", "btrfs-2", "btrfs-3")):
        ok("the btrfs filesystems are indented under their disks")
    else:
        fail("the btrfs filesystems are indented", "> 0", {b: depth[b] for b in ("btrfs-1", "btrfs-2", "btrfs-3")})
    check_eq("btrfs-2 row: CLASS TARGET", ["raid", "768K"], rows[at["btrfs-2"]].split()[1:])
    check_eq("btrfs-3 row: CLASS TARGET", ["removable", "256K"], rows[at["btrfs-3"]].split()[1:])

    for opt in ("--list", "--raw"):
        rc, out, err, _ = nf.ctl("status", "-o", "NAME", "--noheadings", opt)
        check_eq(f"status -o NAME -n {opt}: the tree's order, no tree characters",
                 names, out.splitlines())


if __name__ == "__main__":
    ratest.case_main("status", CASES, lambda: ratest.kill_waiters(("btrfs-1", "btrfs-2", "btrfs-3"),
                                                                   os.environ["RA_NETFS_ROOT"]))
