#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Devices and output: one case per ctest, inside `umockdev-run -d TREE`
(TREE from tree.py), started by run-case.sh with a private copy of the test
configuration root in $RA_NETFS_ROOT. Each case says what a user would see
wrong without its fix. Helpers (mountinfo, meminfo, bdi values, the /sys
snapshot) come from tests/netfs/check.py.

Output is read as bytes: a defect may be invalid UTF-8 or a stray newline.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "netfs"))
import ratest  # noqa: E402  (tests/lib/ratest.py)
from ratest import check_eq, fail, ok, run_bytes  # noqa: E402
import check as nf  # noqa: E402  (tests/netfs/check.py: the bdi helpers)

NFS4_1M = nf.NFS4_1M
OVERLAY = ("45 27 0:45 / /var/lib/docker/overlay2/abc/merged rw,relatime shared:40 - overlay overlay "
           "rw,lowerdir=/var/lib/docker/l/A,upperdir=/var/lib/docker/abc/diff,workdir=/var/lib/docker/abc/work")


# The order names are compared in (status's own order is udev's).
ORDER = ["sda", "sdb", "sdc", "nvme0n1", "zram1", "loop0", "zram0", "0:53"]


root = ratest.netfs_root
ctl = ratest.ctl
show = ratest.show


def text(b):
    """Bytes for check_eq, which prints JSON."""
    return b.decode(errors="backslashreplace") if isinstance(b, bytes) else b


def check_bytes(what, expected, got):
    check_eq(what, text(expected), text(got))


ctl_json = ratest.ctl_json
device = ratest.device


def block_ra(name):
    """What the disk's queue/read_ahead_kb holds; None when it has none."""
    try:
        with open(f"{nf.testbed()}/sys/class/block/{name}/queue/read_ahead_kb", "rb") as f:
            return f.read().decode(errors="replace").strip()
    except FileNotFoundError:
        return None


SEQNUM = [7000]


def block_event(name, action="change"):
    """The agent for a block event of name, environment as udev gives it:
    (rc, stdout bytes)."""
    dev = ratest.parse_umockdev(os.environ["RA_DEVICES_TREE"])[name]
    env = dict(dev["props"])
    SEQNUM[0] += 1
    env.update({"DEVPATH": dev["devpath"], "ACTION": action, "SEQNUM": str(SEQNUM[0]),
                "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    env = ratest.testbed_env(env)
    rc, out, err, _ = run_bytes([os.environ["RA_AGENT"], "--root", root()], env=env, timeout=nf.AGENT_TIMEOUT)
    show(f"agent {action} {name}", rc, out, err)
    check_eq(f"agent {action} {name}: exit status", "exit 0", ratest.describe_rc(rc))
    return rc, out


def host():
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([NFS4_1M, OVERLAY])


# ------------------------------------------------------------------ cases

CASES = {}
case = ratest.case_decorator(CASES)


@case
def bdi_name_forms():
    """`explain 00:53` and `explain 0:053` took the name as bdi 0:53 but
    looked it up literally: current '?', and `apply 00:53` said 'not
    settable' with exit 0. The same device, or no such device."""
    host()
    for name in ("00:53", "0:053"):
        doc = ctl_json(f"explain {name} --json", "explain", name, "--json")
        d = (doc or {}).get("device", {})
        check_eq(f"explain {name}: device name", "0:53", d.get("name"))
        check_eq(f"explain {name}: current_kb", 128, d.get("current_kb"))
        check_eq(f"explain {name}: target_kb", 4096, d.get("target_kb"))
    rc, out, err, _ = ctl("apply", "00:53")
    show("apply 00:53", rc, out, err)
    check_eq("apply 00:53: exit status", "exit 0", ratest.describe_rc(rc))
    check_bytes("apply 00:53: what it says, up to the rule", b"0:53       128K -> 4M (", out[:23])
    check_eq("0:53/read_ahead_kb after apply 00:53", "4096", nf.bdi_ra("0:53"))
    rc, out, err, _ = ctl("explain", "00:99")
    check_eq("explain 00:99: exit status", "exit 1", ratest.describe_rc(rc))
    check_bytes("explain 00:99: message",
             b"readahead-ctl explain: 00:99: no such block device or network mount\n", err)


@case
def local_mounts():
    """`explain /run` (tmpfs), `/sys`, an overlay were shown as a network
    mount of class unknown, `explain /` (ext4 on a disk) as 'no such block
    device or network mount': local filesystems are refused one way, by
    path and by bdi name."""
    host()
    for verb in ("explain", "apply"):
        for arg in ("/", "/run", "/sys", "/tmp", "/var/lib/docker/overlay2/abc/merged", "0:23"):
            rc, out, err, _ = ctl(verb, arg)
            show(f"{verb} {arg}", rc, out, err)
            check_eq(f"{verb} {arg}: exit status", "exit 1", ratest.describe_rc(rc))
            check_bytes(f"{verb} {arg}: message",
                     f"readahead-ctl {verb}: {arg}: a local filesystem, not a network mount: readahead "
                     "belongs to the disk below it, if any\n".encode(), err)
            check_bytes(f"{verb} {arg}: nothing on stdout", b"", out)
    rc, out, err, _ = ctl("explain", "/mnt/data")
    check_eq("explain /mnt/data (NFS) still works", "exit 0", ratest.describe_rc(rc))


@case
def write_error():
    """A write error on stdout was ignored: `status --format=prometheus >
    /dev/full` exited 0 with no message, so a cron job moved a cut .prom file
    into place. Every verb says 'write error' and exits 1, as lsblk does."""
    host()
    env = ratest.sanitizer_env(dict(os.environ))
    for args in (("status", "--format=prometheus"), ("--json", "status"), ("status",), ("check",),
                 ("cat-config",), ("explain", "sda"), ("--json", "explain", "0:53"), ("apply", "0:53"),
                 ("--help",), ("--version",)):
        label = "readahead-ctl " + " ".join(args) + " > /dev/full"
        with open("/dev/full", "wb") as full:
            p = subprocess.run([os.environ["RA_CTL"], "--root", root(), *args], stdout=full,
                               stderr=subprocess.PIPE, env=env, timeout=120)
        show(label, p.returncode, b"", p.stderr)
        check_eq(f"{label}: exit status", "exit 1", ratest.describe_rc(p.returncode))
        if re.search(rb"^readahead-ctl: write error(: No space left on device)?$", p.stderr, re.M):
            ok(f"{label}: says 'write error'")
        else:
            fail(f"{label}: says 'write error'", "readahead-ctl: write error...", text(p.stderr))
    rc, out, err, _ = ctl("status", "--format=prometheus")
    check_eq("status --format=prometheus to a pipe: exit status", "exit 0", ratest.describe_rc(rc))


@case
def udev_output():
    """The agent printed READAHEAD_RULE with the drop-in's file name as it
    is: a newline in it injected READAHEAD_RESULT=written and
    READAHEAD_TARGET_KB=99999 into the event, which udev imports. Every line
    the agent prints is one property."""
    host()
    nf.root_dropin("profiles/default.conf.d/50-x\nREADAHEAD_RESULT=written\nREADAHEAD_TARGET_KB=99999.conf",
                   "[Rule evil]\nName=sda\nSize=1M\n")
    _, out = block_event("sda")
    lines = out.split(b"\n")
    check_bytes("stdout ends with a newline", b"", lines[-1])
    keys = []
    for line in lines[:-1]:
        m = re.fullmatch(rb"(READAHEAD_[A-Z_]+)=(.*)", line)
        if not m:
            fail("every line is READAHEAD_*=VALUE", "READAHEAD_*=VALUE", text(line))
            continue
        keys.append(m.group(1).decode())
    check_eq("each property once", sorted(set(keys)), sorted(keys))
    props = dict(re.fullmatch(rb"(READAHEAD_[A-Z_]+)=(.*)", l).groups() for l in lines[:-1]
                 if re.fullmatch(rb"(READAHEAD_[A-Z_]+)=(.*)", l))
    check_bytes("READAHEAD_TARGET_KB", b"1024", props.get(b"READAHEAD_TARGET_KB"))
    check_bytes("READAHEAD_RESULT", b"written", props.get(b"READAHEAD_RESULT"))
    rule = props.get(b"READAHEAD_RULE", b"")
    want = b"/profiles/default.conf.d/50-x\\x0aREADAHEAD_RESULT=written\\x0aREADAHEAD_TARGET_KB=99999.conf:evil"
    if rule.endswith(want):
        ok("READAHEAD_RULE names the file with its newlines escaped")
    else:
        fail("READAHEAD_RULE names the file with its newlines escaped", text(b"..." + want), text(rule))


@case
def bdi_write():
    """Disks were written through queue/read_ahead_kb, whose write freezes
    the queue on 6.14 to 6.18.2 (a multipath map with no path hangs it and
    the udev worker). They are written through their bdi, the same setting:
    here two files, so the one written shows. sda has both (queue/ stays
    128), sdb only the bdi (it was '?' and could not be set)."""
    host()
    before = nf.snapshot()
    _, out = block_event("sda")
    check_bytes("agent change sda: READAHEAD_RESULT", "written",
                dict(l.split(b"=", 1) for l in out.splitlines() if b"=" in l).get(b"READAHEAD_RESULT"))
    check_eq("bdi 8:0 read_ahead_kb after the agent", "512", nf.bdi_ra("8:0"))
    check_eq("sda queue/read_ahead_kb after the agent (not written)", "128", block_ra("sda"))
    nf.check_sys_changes("agent change sda", before, allowed=["8:0"])

    doc = ctl_json("explain sdb --json", "explain", "sdb", "--json")
    check_eq("explain sdb: current_kb, from the bdi", 128, (doc or {}).get("device", {}).get("current_kb"))
    before = nf.snapshot()
    rc, out, err, _ = ctl("apply", "sdb")
    show("apply sdb", rc, out, err)
    check_eq("apply sdb: exit status", "exit 0", ratest.describe_rc(rc))
    check_bytes("apply sdb: what it says, up to the rule", b"sdb        128K -> 512K (", out[:25])
    check_eq("bdi 8:16 read_ahead_kb after apply", "512", nf.bdi_ra("8:16"))
    check_eq("sdb queue/read_ahead_kb (none)", None, block_ra("sdb"))
    nf.check_sys_changes("apply sdb", before, allowed=["8:16"])


@case
def empty_devices():
    """status listed every empty loop device (a stock kernel makes 8 at boot)
    and zram before it is sized. As lsblk: hidden without -a/--all, in the
    table, JSON and prometheus; shown with it."""
    host()
    rc, out, err, _ = ctl("status", "-o", "NAME", "-l", "-n")
    show("status -o NAME -l -n", rc, out, err)
    check_eq("status -o NAME -l -n: exit status", "exit 0", ratest.describe_rc(rc))
    check_eq("status: the disks with media, and the NFS mount",
             ["sda", "sdb", "sdc", "nvme0n1", "zram1", "0:53"], sorted(text(out).split(), key=ORDER.index))
    rc, out, err, _ = ctl("status", "-o", "NAME", "-l", "-n", "--all")
    check_eq("status --all: the empty loop0 and zram0 too",
             ["sda", "sdb", "sdc", "nvme0n1", "zram1", "loop0", "zram0", "0:53"],
             sorted(text(out).split(), key=ORDER.index))
    for args, want in ((("--json", "status"), None), (("--json", "status", "-a"), {"size_bytes": 0})):
        doc = ctl_json(" ".join(args), *args)
        for name in ("loop0", "zram0"):
            d = device(doc, name)
            check_eq(f"{' '.join(args)}: {name}", want, d and {"size_bytes": d.get("size_bytes")})
    rc, out, err, _ = ctl("status", "--format=prometheus")
    check_eq("status --format=prometheus: no loop0, no zram0", [],
             [l for l in text(out).splitlines() if 'device="loop0"' in l or 'device="zram0"' in l])
    rc, out, err, _ = ctl("apply", "--all")
    check_eq("apply --all: usage error", "exit 2", ratest.describe_rc(rc))
    check_bytes("apply --all: message", "readahead-ctl apply: --all is an option of status only\n", err)


@case
def io_opt_one_block():
    """FACTS said 'io_opt bogus' for an io_opt of one block (QEMU's NVMe:
    512, zram: 4096): no stripe, nothing wrong. A USB bridge's 65535
    sectors is still bogus."""
    host()
    rc, out, err, _ = ctl("status", "-o", "NAME,FACTS", "-l", "-n")
    show("status -o NAME,FACTS -l -n", rc, out, err)
    rows = {l.split()[0]: " ".join(l.split()[1:]) for l in text(out).splitlines() if l.strip()}
    check_eq("nvme0n1 FACTS", "100G", rows.get("nvme0n1"))
    check_eq("zram1 FACTS", "4.0G", rows.get("zram1"))
    if rows.get("sdc", "").endswith(" io_opt bogus"):
        ok("sdc FACTS: io_opt bogus (65535 sectors behind a USB bridge)")
    else:
        fail("sdc FACTS", "... io_opt bogus", rows.get("sdc"))
    rc, out, err, _ = ctl("explain", "nvme0n1")
    line = next((l for l in text(out).splitlines() if "io_min/io_opt" in l), None)
    check_eq("explain nvme0n1: io_min/io_opt", "  io_min/io_opt  512 / 512 bytes (io_opt one block: no stripe)", line)
    rc, out, err, _ = ctl("explain", "sdc")
    line = next((l for l in text(out).splitlines() if "io_min/io_opt" in l), None)
    check_eq("explain sdc: io_min/io_opt", "  io_min/io_opt  512 / 33553920 bytes (io_opt ignored: not a stripe)", line)


@case
def status_advice():
    """`status --format=prometheus` gave no sign of advise's findings: a fleet
    could not see where the profile does not fit. It shows the last advice
    kept in ROOT/run/readahead-agent/advice, for the devices present only."""
    host()
    os.makedirs(f"{root()}/run/readahead-agent", exist_ok=True)
    with open(f"{root()}/run/readahead-agent/advice", "w") as f:
        f.write("sda\tblock\thdd\t1\t1024\t1795000000\n"      # raise to 1M
                "nvme0n1\tblock\tssd\t-1\t128\t1795000100\n"  # lower to 128K
                "sdz\tblock\thdd\t1\t2048\t1795000000\n"      # gone since
                "sdb\tblock\thdd\t7\t2048\t1795000000\n"      # not an advice
                "sdc\tblock\n")                                 # cut short
    rc, out, err, _ = ctl("status", "--format=prometheus")
    check_eq("status --format=prometheus: exit status", "exit 0", ratest.describe_rc(rc))
    lines = [l for l in text(out).splitlines() if l.startswith("readahead_advice")]
    check_eq("status --format=prometheus: the advice gauges", [
        'readahead_advice{device="sda",kind="block",class="hdd"} 1',
        'readahead_advice{device="nvme0n1",kind="block",class="ssd"} -1',
        'readahead_advice_suggested_bytes{device="sda",kind="block",class="hdd"} 1048576',
        'readahead_advice_suggested_bytes{device="nvme0n1",kind="block",class="ssd"} 131072',
        'readahead_advice_timestamp_seconds{device="sda",kind="block",class="hdd"} 1795000000',
        'readahead_advice_timestamp_seconds{device="nvme0n1",kind="block",class="ssd"} 1795000100',
    ], lines)
    os.unlink(f"{root()}/run/readahead-agent/advice")
    rc, out, err, _ = ctl("status", "--format=prometheus")
    check_eq("status --format=prometheus without an advice: no advice gauge", [],
             [l for l in text(out).splitlines() if "readahead_advice" in l])


def main():
    ratest.case_main("devices", CASES, lambda: ratest.kill_waiters(("0:53",), root()))


if __name__ == "__main__":
    main()
