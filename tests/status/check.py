#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The status table (libsmartcols): runs inside umockdev-run with tree.py's
tree, one case per ctest entry (see README.md). Every expected line is
written here by hand from the tree: md0 (raid1) over sda1 and sdb1, dm-0
(LVM) over md0, sdc alone, all 1 TiB hard disks (default profile: 512K),
and a FUSE mount on bdi 0:56 (left alone: -)."""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import ratest  # noqa: E402
from ratest import check_eq, fail, ok  # noqa: E402

cases = {}
case = ratest.case_decorator(cases)
TESTBED = os.environ.get("UMOCKDEV_DIR", "")

HOST_MOUNTS = [
    "21 27 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw",
    "27 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro",
]
# A FUSE mount point with ESC ] (a terminal title), BEL, a newline and an
# invalid byte, as mountinfo escapes them (octal).
EVIL_MOUNT = ("55 27 0:56 / /home/u/\\033]0;owned\\007evil\\012row\\377 rw,nosuid shared:40 - "
              "fuse.sshfs u@host:/x rw,user_id=1000")
FUSE_MOUNT = "55 27 0:56 / /mnt/fuse rw,nosuid shared:40 - fuse.sshfs u@host:/x rw,user_id=1000"


def set_mountinfo(lines):
    with open(os.path.join(TESTBED, "proc", "self", "mountinfo"), "w") as f:
        f.write("".join(l + "\n" for l in lines))


def kernel_layout():
    """umockdev links partitions into /sys/block; the kernel does not."""
    d = os.path.join(TESTBED, "sys", "block")
    for n in os.listdir(d):
        if re.fullmatch(r"sd[a-z]+\d+", n):
            os.unlink(os.path.join(d, n))


def ctl(*args):
    """(rc, stdout bytes, stderr text)."""
    rc, out, err, _ = ratest.run_bytes(
        [os.environ["RA_CTL"], "--root", os.environ["RA_STATUS_ROOT"], *args])
    return rc, out, err.decode(errors="replace")


def show(label, rc, out, err):
    print(f"---- readahead-ctl {label}: {ratest.describe_rc(rc)}")
    print("     " + out.decode(errors="replace").rstrip().replace("\n", "\n     "))
    if err.strip():
        print(f"     stderr: {err.strip()}")


def table(*args, label=None):
    """Rows of `status ARGS` (text), or None after a failure."""
    rc, out, err = ctl("status", *args)
    show(label or " ".join(("status",) + args), rc, out, err)
    if rc != 0:
        fail(f"status {' '.join(args)}: exit status", "exit 0", f"{ratest.describe_rc(rc)}: {err.strip()}")
        return None
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"status {' '.join(args)} is valid UTF-8", "UTF-8", str(e))
        return None
    return text.splitlines()


TREE_ART = "│├└─|`- "


def name_column(rows, name):
    """(row index, column where NAME starts) of the row whose first cell,
    after any tree characters, is name."""
    for i, row in enumerate(rows):
        stripped = row.lstrip(TREE_ART)
        if stripped.split(" ", 1)[0] == name:
            return i, len(row) - len(stripped)
    return None, None


def setup():
    kernel_layout()
    set_mountinfo(HOST_MOUNTS + [FUSE_MOUNT])


@case
def tree():
    """status draws stacked devices as lsblk does: md0 under sda (the first
    of sda1 and sdb1 by name), dm-0 under md0, each once; sdb and sdc are
    roots; the mount is a root after the disks."""
    setup()
    rows = table()
    if rows is None:
        return
    head = [i for i, r in enumerate(rows) if r.split()[:1] == ["NAME"]]
    if not check_eq("status: one heading line", 1, len(head)):
        return
    check_eq("status: default columns", ["NAME", "CLASS", "BUS", "FACTS", "TARGET", "CURRENT", "RULE"],
             rows[head[0]].split())
    body = rows[head[0] + 1:]
    body = body[:next((i for i, r in enumerate(body) if not r.strip()), len(body))]
    at = {n: name_column(body, n) for n in ("sda", "md0", "dm-0", "sdb", "sdc", "0:56")}
    for n, (i, col) in at.items():
        if i is None:
            fail(f"status lists {n}", "a row", body)
            return
    check_eq("status row order (depth first)", ["sda", "md0", "dm-0", "sdb", "sdc", "0:56"],
             [n for n, _ in sorted(at.items(), key=lambda kv: kv[1][0])])
    check_eq("status: sda, sdb, sdc and 0:56 are roots (column 0)", [0, 0, 0, 0],
             [at[n][1] for n in ("sda", "sdb", "sdc", "0:56")])
    if at["sda"][1] < at["md0"][1] < at["dm-0"][1]:
        ok(f"md0 indented under sda, dm-0 under md0: columns {at['sda'][1]}, {at['md0'][1]}, {at['dm-0'][1]}")
    else:
        fail("md0 indented under sda, dm-0 under md0", "sda < md0 < dm-0",
             {n: at[n][1] for n in ("sda", "md0", "dm-0")})
    for n in ("md0", "dm-0"):
        prefix = body[at[n][0]][:at[n][1]]
        if prefix.strip() and not set(prefix) - set(TREE_ART):
            ok(f"{n} row starts with tree characters {prefix!r}")
        else:
            fail(f"{n} row starts with tree characters", "│├└─ or |`-", repr(prefix))
    check_eq("status: each device once", len(body), len(at))
    md = body[at["md0"][0]].split()
    check_eq("md0 row: CLASS BUS ... TARGET CURRENT RULE", ["raid", "md", "512K", "128K*", "default.conf:disk"],
             [md[1], md[2]] + md[-3:])
    check_eq("status: the drift note", True, any(r.startswith("* current differs") for r in rows))


@case
def columns():
    """-o NAME,TARGET --noheadings --raw: exact lines, in the tree's order
    (--raw is a list, as lsblk's); --list: the same rows without tree characters; -o takes names in any
    case and +LIST; a bad column, or a table option with --json or another
    verb, is a usage error (exit 2)."""
    setup()
    want = ["sda 512K", "md0 512K", "dm-0 512K", "sdb 512K", "sdc 512K", "0:56 -"]
    rows = table("-o", "NAME,TARGET", "--noheadings", "--raw")
    check_eq("status -o NAME,TARGET --noheadings --raw", want, rows)
    rows = table("-o", "name,Target", "-n", "-r")
    check_eq("status -o name,Target -n -r (names in any case, short options)", want, rows)

    rows = table("-o", "NAME,KIND,CURRENT,DRIFT,MAJ:MIN", "--list", "--noheadings")
    if rows is not None:
        check_eq("status --list: rows", 6, len(rows))
        check_eq("status --list: no tree characters, names in column 0",
                 ["sda", "md0", "dm-0", "sdb", "sdc", "0:56"], [r.split(" ", 1)[0] for r in rows])
        check_eq("status --list: dm-0 cells", ["dm-0", "block", "128K*", "yes", "253:0"], rows[2].split())
        check_eq("status --list: 0:56 cells", ["0:56", "mount", "128K", "no", "0:56"], rows[5].split())

    rows = table("--list", label="status --list (with the heading and notes)")
    if rows is not None:
        body = [r for r in rows if r.split(" ", 1)[0] in ("sda", "md0", "dm-0", "sdb", "sdc", "0:56")]
        check_eq("status --list: every device at column 0", 6, len(body))
        check_eq("status --list: no tree characters", [], [r for r in rows if set("│├└") & set(r)])

    rows = table("-o", "+KIND", "-n", "-r")
    if rows is not None:
        check_eq("status -o +KIND: the default columns and KIND",
                 ["sda", "hdd", "ata"], rows[0].split()[:3])
        check_eq("status -o +KIND: last cell", ["block", "block", "mount"],
                 [rows[0].split()[-1], rows[1].split()[-1], rows[5].split()[-1]])

    for args, what in ((["status", "-o", "NAME,BOGUS"], "unknown column 'BOGUS'"),
                       (["status", "-o", ""], "no column"),
                       (["status", "--json", "--raw"], "--raw is an option of the status table only"),
                       (["status", "--format=prometheus", "-o", "NAME"], "--output is an option"),
                       (["explain", "sda", "--list"], "--list is an option of the status table only")):
        rc, out, err = ctl(*args)
        check_eq(f"readahead-ctl {' '.join(args)}: exit status", "exit 2", ratest.describe_rc(rc))
        check_eq(f"readahead-ctl {' '.join(args)}: nothing on stdout", "", out.decode(errors="replace"))
        if what in err:
            ok(f"readahead-ctl {' '.join(args)}: says {what!r}")
        else:
            fail(f"readahead-ctl {' '.join(args)}: message", what, err.strip())


@case
def escapes():
    """A mount point with ESC, BEL, a newline and an invalid byte: libsmartcols
    escapes them (\\xHH) in the table and in --raw, one row each; JSON keeps
    the mount point (U+FFFD for the invalid byte)."""
    kernel_layout()
    set_mountinfo(HOST_MOUNTS + [EVIL_MOUNT])
    for args in ((), ("--list",), ("--raw",), ("-o", "NAME,MOUNTPOINT", "-n")):
        rc, out, err = ctl("status", *args)
        show(" ".join(("status",) + args), rc, out, err)
        check_eq(f"status {' '.join(args)}: exit status", "exit 0", ratest.describe_rc(rc))
        controls = sorted({b for b in out if b < 0x20 and b != 0x0a or b == 0x7f})
        check_eq(f"status {' '.join(args)}: no control characters but newlines", [], controls)
        rows = [r for r in out.split(b"\n") if r.lstrip("│├└─|`- ".encode()).startswith(b"0:56")]
        check_eq(f"status {' '.join(args)}: the mount is one row", 1, len(rows))
        if rows and b"/home/u/\\x1b]0;owned\\x07evil\\x0arow\\xff" in rows[0]:
            ok(f"status {' '.join(args)}: the mount point escaped: {rows[0]!r}")
        elif rows:
            fail(f"status {' '.join(args)}: the mount point escaped",
                 "/home/u/\\x1b]0;owned\\x07evil\\x0arow\\xff", rows[0])
    rc, out, err = ctl("status", "-o", "NAME,MOUNTPOINT", "-n", "-r")
    check_eq("status -o NAME,MOUNTPOINT -n -r: the mount's line",
             "0:56 /home/u/\\x1b]0;owned\\x07evil\\x0arow\\xff",
             next((r.decode(errors="backslashreplace") for r in out.split(b"\n") if r.startswith(b"0:56")), None))
    rc, out, err = ctl("status", "--json")
    try:
        doc = json.loads(out.decode("utf-8"))
        mp = [d.get("mount_point") for d in doc.get("devices", []) if d.get("name") == "0:56"]
        check_eq("status --json: the mount point", ["/home/u/\x1b]0;owned\x07evil\nrow\ufffd"], mp)
    except (UnicodeDecodeError, ValueError) as e:
        fail("status --json is valid UTF-8 JSON", "JSON", f"{e}: {out[:300]!r}")


if __name__ == "__main__":
    ratest.case_main("status", cases, lambda: None)
