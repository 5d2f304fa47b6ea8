#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Hostile and oversized input: one case per ctest, inside
`umockdev-run -d TREE` (TREE from tree.py), started by run-case.sh with a
private copy of the test configuration root in $RA_NETFS_ROOT. Each case
names the defect it guards. Helpers (status, explain, the bdi agent event,
mountinfo and meminfo of the testbed, the /sys snapshot) come from
tests/netfs/check.py.

Output is read as bytes: a defect may be invalid UTF-8, which a text decode
would turn into a crash of the test instead of a finding.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "netfs"))
import ratest  # noqa: E402  (tests/lib/ratest.py)
from ratest import check_eq, fail, ok, run_bytes  # noqa: E402
import check as nf  # noqa: E402  (tests/netfs/check.py: the bdi helpers)
import events  # noqa: E402  (tests/hostile/events.py: generated events)
import uevent  # noqa: E402  (tests/lib/uevent.py: events sent to the monitors)

NFS4_1M = nf.NFS4_1M


root = ratest.netfs_root
ctl = ratest.ctl
show = ratest.show


def strict_utf8(label, data):
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        fail(f"{label} is valid UTF-8", "valid UTF-8", f"{e}: ...{data[max(0, e.start - 40):e.end + 10]!r}")
        return None
    ok(f"{label} is valid UTF-8")
    return text


def no_terminal_controls(label, text):
    """Output for people: no C0 control but newline, no DEL, no C1 control."""
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
    if bad:
        fail(f"{label}: no control characters reach the terminal", "none",
             ", ".join(sorted({f"U+{ord(c):04X}" for c in bad})))
    else:
        ok(f"{label}: no control characters reach the terminal")


def ctl_json(label, *args):
    return ratest.ctl_json(label, *args, decode=lambda out: strict_utf8(f"{label} output", out))


device = ratest.device


def check_device(label, doc, name, fields):
    d = device(doc, name)
    if d is None:
        fail(f"{label}: {name} listed", "listed", "absent")
        return
    for k, v in fields.items():
        check_eq(f"{label} {name} {k}", v, d.get(k))


def rule_of(doc, section):
    rules = [r for r in (doc or {}).get("rules", []) if r.get("section") == section]
    return rules[-1] if rules else {}


def dropin(rel, text):
    nf.root_dropin(rel, text)


# ------------------------------------------------------------------ the tree

SEQNUM = [5000]


def block_event(name, extra_args=(), agent=None, action="change"):
    """The agent for a block event of name, environment as udev gives it."""
    dev = ratest.parse_umockdev(os.environ["RA_HOSTILE_TREE"], raw_values=True)[name]
    # the values as bytes: subprocess gives them back to the agent unchanged
    env = {k: v.decode(errors="surrogateescape") for k, v in dev["props"]}
    SEQNUM[0] += 1
    env.update({"DEVPATH": dev["devpath"], "ACTION": action, "SEQNUM": str(SEQNUM[0]),
                "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    env = ratest.testbed_env(env)
    argv = [agent or os.environ["RA_AGENT"], "--root", root(), *extra_args]
    rc, out, err, secs = run_bytes(argv, env=env, timeout=nf.AGENT_TIMEOUT)
    show(f"agent {action} {name}", rc, out, err)
    check_eq(f"agent {action} {name}: exit status", "exit 0", ratest.describe_rc(rc))
    return ratest.parse_agent_lines(f"agent {action} {name}", out.decode(errors="replace")), err.decode(errors="replace")


def block_ra(name):
    """The disk's read_ahead_kb, from its bdi: the attribute the product writes."""
    with open(f"{nf.testbed()}/sys/class/block/{name}/dev") as f:
        return nf.bdi_ra(f.read().strip())


# ------------------------------------------------------------------ cases

CASES = {}
case = ratest.case_decorator(CASES)


@case
def dry_run_waiter():
    """Defect 1: --dry-run for a bdi whose mount is not visible yet must hand
    --dry-run to the waiter it starts: the mount appears, nothing is written."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([])
    before = nf.snapshot()
    rc, out, err, secs = run_bytes([os.environ["RA_AGENT"], "--root", root(), "--dry-run"],
                                   env=nf.event_env("0:53", 4001), timeout=nf.AGENT_TIMEOUT)
    show("agent --dry-run add 0:53 (no mount yet)", rc, out, err)
    props = ratest.parse_agent_lines("agent --dry-run", out.decode(errors="replace"))
    check_eq("agent --dry-run: READAHEAD_RESULT", "pending", props.get("READAHEAD_RESULT"))
    check_eq("agent --dry-run: READAHEAD_WAIT (a dry run never hands off to systemd)", "process",
             props.get("READAHEAD_WAIT"))
    pids = ratest.wait_until(lambda: nf.waiter_pids("0:53"), 3)
    if pids:
        ok(f"a detached waiter runs: {pids}")
        for pid in pids:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if b"--dry-run" in argv:
                ok(f"waiter {pid} has --dry-run")
            else:
                fail(f"waiter {pid} has --dry-run", "--dry-run in its argv", argv)
    else:
        fail("a detached waiter runs", "a process", "none within 3 s")
    nf.set_mountinfo([NFS4_1M])
    gone = ratest.wait_until(lambda: not nf.waiter_pids("0:53"), 10)
    if gone:
        ok("the waiter exited once the mount appeared")
    else:
        fail("the waiter exits", "gone within 10 s", nf.waiter_pids("0:53"))
    time.sleep(0.5)
    check_eq("0:53/read_ahead_kb after a dry run (was 128; 4096 would be a write)", "128", nf.bdi_ra("0:53"))
    nf.check_sys_changes("agent --dry-run and its waiter", before)


@case
def terminal_escapes():
    """Defect 2: model strings, labels and FUSE mount points reach the output:
    people output escapes controls and invalid bytes (\\xHH, one row per
    device); JSON is always valid UTF-8 (invalid bytes become U+FFFD)."""
    nf.set_meminfo(nf.MEM_16G_KB)
    # ESC ] 0 ; owned BEL (sets the terminal title), a newline, two invalid bytes.
    evil = ("55 27 0:56 / /home/u/\\033]0;owned\\007evil\\012row\\377\\376 rw,nosuid shared:40 - "
            "fuse.evil\\033[2J evil@host:/x rw,user_id=1000")
    # A FUSE mount with no bdi 0:57 in the tree: reset has nothing to set
    # and says so, its type (with a control) escaped as apply prints it.
    no_bdi = "56 27 0:57 / /mnt/share rw,relatime shared:41 - fuse.vbox\\033[2Jsf share rw"
    nf.set_mountinfo([NFS4_1M, evil, no_bdi])
    evil_mp = "/home/u/\x1b]0;owned\x07evil\nrow\ufffd\ufffd"
    dropin("profiles/default.conf.d/50-match.conf",
           "[Rule samsung]\nProperty=ID_MODEL=Samsung*\nSize=1M\n\n"
           "[Rule label]\nProperty=ID_FS_LABEL=backup*\nSize=2M\n")

    rc, out, err, _ = ctl("status")
    show("status", rc, out, err)
    text = strict_utf8("status (table)", out)
    if text is not None:
        no_terminal_controls("status (table)", text)
        rows = [l for l in text.splitlines() if l.startswith("0:56")]
        check_eq("status: the FUSE mount is one row", 1, len(rows))
        # The cell is 16 columns: the start of the mount point, escaped.
        if rows and "/home/u/\\x1b]0;o" in rows[0]:
            ok(f"status row shows the escapes: {rows[0]!r}")
        elif rows:
            fail("status row shows \\xHH escapes", "/home/u/\\x1b]0;o", rows[0])

    doc = ctl_json("status --json", "status", "--json")
    check_device("status --json", doc, "0:56", {"mount_point": evil_mp, "fstype": "fuse.evil\x1b[2J"})

    for what in ("sdu", "0:56"):
        rc, out, err, _ = ctl("explain", what)
        show(f"explain {what}", rc, out, err)
        text = strict_utf8(f"explain {what} (text)", out)
        if text is not None:
            no_terminal_controls(f"explain {what} (text)", text)
    rc, out, err, _ = ctl("reset", "/mnt/share")
    show("reset /mnt/share", rc, out, err)
    text = strict_utf8("reset /mnt/share", out)
    if text is not None:
        no_terminal_controls("reset /mnt/share", text)
        if "(fuse.vbox\\x1b[2Jsf: no bdi of this name)" in text:
            ok("reset /mnt/share shows the filesystem type with \\xHH escapes")
        else:
            fail("reset /mnt/share shows the type escaped", "(fuse.vbox\\x1b[2Jsf: no bdi of this name)", text)
    rc, out, err, _ = ctl("explain", "sdu")
    text = out.decode(errors="replace")
    if "\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mEvil\\xc2\\x9b2JDisk" in text:
        ok("explain sdu shows the model with \\xHH escapes")
    else:
        fail("explain sdu shows the model escaped", "ID_MODEL=\\x1b]0;owned\\x07...", text[:2000])

    doc = ctl_json("explain sdu --json", "explain", "sdu", "--json")
    model = "\x1b]0;owned\x07\x1b[2J\x1b[31mEvil\u009b2JDisk"
    check_eq("explain sdu --json: samsung rule why (the model, whole)",
             f"ID_MODEL={model} is not Samsung*", rule_of(doc, "samsung").get("why"))
    why = rule_of(doc, "label").get("why") or ""
    m = re.fullmatch(r"ID_FS_LABEL=(\u0416+)( is not backup\*)?", why)
    if m:
        ok(f"explain sdu --json: label rule why holds whole characters ({len(m.group(1))} of 80 shown)")
    else:
        fail("explain sdu --json: label rule why is the label, cut between characters",
             "ID_FS_LABEL=ЖЖЖ...", repr(why))

    doc = ctl_json("explain 0:56 --json", "explain", "0:56", "--json")
    check_eq("explain 0:56 --json device.mount_point", evil_mp, ((doc or {}).get("device") or {}).get("mount_point"))
    # explain by that mount point, given as the raw bytes of the path.
    raw = b"/home/u/\x1b]0;owned\x07evil\nrow\xff\xfe"
    rc, out, err, _ = ctl(b"explain", raw, b"--json")
    text = strict_utf8("explain <evil mount point> --json", out)
    if rc == 0 and text:
        check_eq("explain <evil mount point>: device.name", "0:56", json.loads(text)["device"]["name"])
    else:
        fail("explain <evil mount point>", "exit 0", f"{ratest.describe_rc(rc)} {err!r}")


@case
def no_truncation():
    """Defect 3: no fixed buffer cuts a sysfs path (disk behind nested SAS
    expanders), a mount point (308 bytes of CJK), super options over 1 KiB,
    a property list (200 x 100 bytes, ID_WWN last) or /proc/self/exe."""
    nf.set_meminfo(nf.MEM_16G_KB)
    cjk = "\u957f" * 101  # 303 bytes
    long_mp = "/mnt/" + cjk
    assert len(long_mp.encode()) == 308
    long_opts = ",".join(f"opt{i}=value{i}" for i in range(100)) + ",rsize=262144"
    assert len(long_opts) > 1024
    nf.set_mountinfo([
        NFS4_1M.replace("/mnt/data", long_mp + "\u5c3e"),
        f"42 27 0:54 / /mnt/opts rw - nfs4 srv2:/export {long_opts}",
    ])
    dropin("profiles/default.conf.d/50-x.conf",
           "[Rule tail]\nMountPoint=/mnt/*\u5c3e\nSize=2M\n\n"
           "[Rule backup-disk]\nProperty=ID_WWN=0x5000c500a1b2c3d4\nSize=4M\n")

    doc = ctl_json("status --json", "status", "--json")
    check_device("status", doc, "0:53", {"mount_point": long_mp + "\u5c3e", "target_kb": 2048,
                                         "rule_section": "tail"})
    check_device("status", doc, "0:54", {"rsize_bytes": 262144, "target_kb": 1024})
    check_device("status", doc, "sdt", {"transport": "usb", "target_kb": 4096,
                                        "rule_section": "backup-disk"})
    check_device("status", doc, "sdq", {"target_kb": 512, "current_kb": 128})

    rc, out, err, _ = ctl(b"explain", (long_mp + "\u5c3e").encode(), b"--json")
    if rc == 0:
        check_eq("explain <308-byte mount point>: device.name", "0:53", json.loads(out)["device"]["name"])
    else:
        fail("explain <308-byte mount point>", "exit 0", f"{ratest.describe_rc(rc)}: {err!r}")

    props, _ = block_event("sdq")
    check_eq("agent change sdq (sysfs path > 256 bytes): READAHEAD_RESULT", "written",
             props.get("READAHEAD_RESULT"))
    check_eq("sdq read_ahead_kb", "512", block_ra("sdq"))
    props, _ = block_event("sdt")
    check_eq("agent change sdt (ID_WWN after 200 properties, 22 KiB): READAHEAD_TARGET_KB", "4096",
             props.get("READAHEAD_TARGET_KB"))
    check_eq("sdt read_ahead_kb", "4096", block_ra("sdt"))
    before = nf.snapshot()
    props, _ = nf.agent_event("0:53")
    check_eq("agent add 0:53 (308-byte mount point): READAHEAD_TARGET_KB", "2048",
             props.get("READAHEAD_TARGET_KB"))
    check_eq("0:53/read_ahead_kb", "2048", nf.bdi_ra("0:53"))

    # The waiter is exec'd from /proc/self/exe: an agent installed at a path
    # longer than 255 bytes must still start it.
    deep = os.path.join(os.environ["RA_HOSTILE_TMP"], *(["d" * 60] * 5))
    os.makedirs(deep)
    agent = os.path.join(deep, "readahead-agent")
    shutil.copy2(os.environ["RA_AGENT"], agent)
    assert len(agent) > 300
    rc, out, err, _ = run_bytes([agent, "--root", root()], env=nf.event_env("0:55", 4100),
                                timeout=nf.AGENT_TIMEOUT)
    show("agent at a 300-byte path, add 0:55 (no mount yet)", rc, out, err)
    check_eq("agent at a long path: READAHEAD_RESULT", "pending",
             ratest.parse_agent_lines("long-path agent", out.decode(errors="replace")).get("READAHEAD_RESULT"))
    nf.set_mountinfo([NFS4_1M.replace("40 27 0:53 / /mnt/data", "45 27 0:55 / /mnt/late")])
    if ratest.wait_until(lambda: nf.bdi_ra("0:55") == "4096", 10):
        ok("the waiter exec'd from a 300-byte path set 0:55 to 4096")
    else:
        fail("the waiter of an agent at a long path sets 0:55", "4096", nf.bdi_ra("0:55"))
    nf.check_sys_changes("agent runs", before, allowed=["0:53", "0:55"])


def filler_mounts(n_bytes):
    """Local mounts (tmpfs), as many as make n_bytes of mountinfo."""
    lines, size, i = [], 0, 0
    while size < n_bytes:
        line = (f"{1000 + i} 27 0:{3000 + i % 900} / /run/user/1000/filler/{i:07d} rw,nosuid,relatime "
                f"shared:{900 + i} - tmpfs tmpfs rw,size=1024k,mode=700,uid=1000,gid=1000,inode64")
        lines.append(line)
        size += len(line) + 1
        i += 1
    return lines


@case
def big_mountinfo():
    """Defect 4: a mountinfo over 8 MiB (FUSE mounts an unprivileged user
    may make) hides no network mount: status, explain and the waiter find
    them."""
    nf.set_meminfo(nf.MEM_16G_KB)
    filler = filler_mounts(9 << 20)
    nf.set_mountinfo(filler + [NFS4_1M])
    size = os.path.getsize(f"{nf.testbed()}/proc/self/mountinfo")
    print(f"setup: mountinfo of {size} bytes, {len(filler)} filler mounts before the NFS one")
    doc = ctl_json("status --json", "status", "--json")
    check_device("status", doc, "0:53", {"mount_point": "/mnt/data", "target_kb": 4096})
    doc = ctl_json("explain /mnt/data --json", "explain", "/mnt/data", "--json")
    check_eq("explain /mnt/data: device.name", "0:53", ((doc or {}).get("device") or {}).get("name"))
    props, _ = nf.agent_event("0:53")
    check_eq("agent add 0:53: READAHEAD_RESULT", "written", props.get("READAHEAD_RESULT"))
    check_eq("0:53/read_ahead_kb", "4096", nf.bdi_ra("0:53"))

    props, _ = nf.agent_event("0:54")
    check_eq("agent add 0:54 (not mounted yet): READAHEAD_RESULT", "pending", props.get("READAHEAD_RESULT"))
    time.sleep(0.3)
    nf.set_mountinfo(filler + [NFS4_1M, nf.NFS3_32K])
    if ratest.wait_until(lambda: nf.bdi_ra("0:54") == "1024", 15):
        ok("the waiter found 0:54 after 9 MiB of mountinfo and set 1024")
    else:
        fail("the waiter sets 0:54 behind 9 MiB of mountinfo", "1024", nf.bdi_ra("0:54"))


@case
def check_errors():
    """Defect 6: check fails for Size= that fails whatever the device, for a
    rule with Minimum= above Maximum=, and for limits out of order, each at
    the drop-in and line that did it; a rule that fails at run time names
    the drop-in that set its Size=."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([NFS4_1M])
    d = "profiles/default.conf.d/"
    dropin(d + "60-div.conf", "# constant division\n[Rule disk]\nSize=1M/0\n")
    dropin(d + "61-minmax.conf", "[Rule disk]\nMinimum=1M\nMaximum=256K\n")
    dropin(d + "62-order.conf", "[Profile]\n\nMaximum=256K\n")
    dropin(d + "63-runtime.conf", "[Rule nfs]\nSize=rsize / (rsize - 1024)\n")
    rc, out, err, _ = ctl("check")
    show("check", rc, out, err)
    check_eq("check exit status", "exit 1", ratest.describe_rc(rc))
    text = out.decode(errors="replace")
    base = f"{root()}/etc/readahead-agent/{d}"
    for where, msg in ((f"{base}60-div.conf:3: error: ", "Size=1M/0: division by zero"),
                       (f"{base}61-minmax.conf:3: error: ", "[Rule disk] unchanged by this file: Minimum= is above Maximum="),
                       (f"{base}62-order.conf:3: error: ", "Minimum=, Default= and Maximum= must be in ascending order")):
        if any(l.startswith(where) and msg in l for l in text.splitlines()):
            ok(f"check says {where}...{msg}")
        else:
            fail("check names the drop-in and line", where + msg + "...", text)
    # The same problems for a conformance job: check --json, exit status kept.
    rc, out, err, _ = ctl("check", "--json")
    check_eq("check --json exit status", "exit 1", ratest.describe_rc(rc))
    try:
        doc = json.loads(out)
    except ValueError as e:
        doc = {}
        fail("check --json is JSON", "JSON", f"{e}: {out[:300]!r}")
    check_eq("check --json problems", [
        {"file": f"{base}60-div.conf", "line": 3, "severity": "error",
         "message": "[Rule disk] unchanged by this file: Size=1M/0: division by zero whatever the device"},
        {"file": f"{base}61-minmax.conf", "line": 3, "severity": "error",
         "message": "[Rule disk] unchanged by this file: Minimum= is above Maximum="},
        {"file": f"{base}62-order.conf", "line": 3, "severity": "error",
         "message": "Minimum=, Default= and Maximum= must be in ascending order"},
    ], doc.get("problems"))
    check_eq("check --json errors", 3, doc.get("errors"))
    check_eq("check --json warnings", 0, doc.get("warnings"))
    check_eq("check --json profile", "default", doc.get("profile"))
    # The rule is dropped, not the file: its one rule was the bad one.
    check_eq("check --json: 60-div.conf", {"file": f"{base}60-div.conf", "state": "used", "dropin": True,
                                           "dropped_rules": 1},
             next((f for f in doc.get("files", []) if f.get("file", "").endswith("60-div.conf")), None))
    check_eq("check --json: 62-order.conf", {"file": f"{base}62-order.conf", "state": "ignored", "dropin": True,
                                             "dropped_rules": 0},
             next((f for f in doc.get("files", []) if f.get("file", "").endswith("62-order.conf")), None))
    doc = ctl_json("explain 0:53 --json", "explain", "0:53", "--json")
    why = rule_of(doc, "nfs").get("why") or ""
    check_eq("explain 0:53: nfs rule verdict", "failed", rule_of(doc, "nfs").get("verdict"))
    if "63-runtime.conf:2" in why:
        ok(f"the failed rule names the drop-in that set Size=: {why}")
    else:
        fail("the failed rule names the drop-in that set Size=", "...63-runtime.conf:2...", why)


@case
def apply_unsettable():
    """Defect 7: a rule that selects a cifs mount (its bdi is cifs-N, not
    0:N) gives a target that cannot be set: apply says so and succeeds."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([NFS4_1M, "51 27 0:60 / /mnt/share rw,relatime shared:41 - cifs //fileserver/share "
                      "rw,vers=3.1.1,rsize=4194304,wsize=4194304"])
    dropin("profiles/default.conf.d/50-cifs.conf", "[Rule cifs]\nFsType=cifs\nSize=1M\n")
    doc = ctl_json("status --json", "status", "--json")
    check_device("status", doc, "0:60", {"target_kb": 1024, "current_kb": None, "rule_section": "cifs"})
    for args in (("apply",), ("apply", "/mnt/share"), ("apply", "0:60")):
        rc, out, err, _ = ctl(*args)
        show(" ".join(args), rc, out, err)
        check_eq(f"readahead-ctl {' '.join(args)}: exit status", "exit 0", ratest.describe_rc(rc))
        if b"cannot be set" in out:
            ok(f"{' '.join(args)} says the cifs mount cannot be set")
        else:
            fail(f"{' '.join(args)} says why the cifs mount is not set", "'cannot be set'", out)
    check_eq("0:53 applied beside it", "4096", nf.bdi_ra("0:53"))
    check_eq("cifs-1 untouched", "8192", nf.bdi_ra("cifs-1"))


@case
def absurd_numbers():
    """Defect 8: sysfs and /proc numbers that overflow are unknown facts,
    named in explain: size 2^55+1 sectors, chunk 2^62, raid_disks 2^32+4,
    MemTotal -1, rsize beyond 64 bits."""
    nf.write_file(f"{nf.testbed()}/proc/meminfo", "MemTotal:       -1 kB\nMemFree:        1000 kB\n")
    nf.set_mountinfo([NFS4_1M.replace("rsize=1048576", "rsize=99999999999999999999")])
    doc = ctl_json("status --json", "status", "--json")
    check_eq("status mem_total_kb (MemTotal -1: unknown)", 0, (doc or {}).get("mem_total_kb"))
    check_eq("status memory_cap_kb", None, (doc or {}).get("memory_cap_kb"))
    # 2^55+1 sectors wrapped to 512 bytes gave the small-device cap, 4K.
    check_device("status", doc, "sdr", {"size_bytes": 0, "target_kb": 512})
    # chunk 2^62 x 3 data disks wrapped; 2^32+4 disks became 4.
    check_device("status", doc, "md126", {"class": "raid", "stripe_kb": None, "target_kb": 512})
    check_device("status", doc, "md127", {"class": "raid", "stripe_kb": None, "target_kb": 512})
    check_device("status", doc, "0:53", {"rsize_bytes": None})
    for name, refused in (("sdr", ["size", "mem_total"]), ("md126", ["chunk", "mem_total"]),
                          ("md127", ["raid_disks", "mem_total"]), ("0:53", ["mem_total", "rsize"])):
        doc = ctl_json(f"explain {name} --json", "explain", name, "--json")
        check_eq(f"explain {name} facts.refused", refused, ((doc or {}).get("facts") or {}).get("refused"))
        rc, out, err, _ = ctl("explain", name)
        line = next((l for l in out.decode(errors="replace").splitlines() if "refused" in l), None)
        if line and all(r in line for r in refused):
            ok(f"explain {name} says: {line.strip()}")
        else:
            fail(f"explain {name} names the refused facts", refused, line)
    props, _ = block_event("sdr")
    check_eq("agent change sdr: READAHEAD_TARGET_KB", "512", props.get("READAHEAD_TARGET_KB"))


def config_lines(err, path):
    """Lines the agent logged about path (stderr, or the journal)."""
    return [l for l in err.splitlines() if path in l]


@case
def log_once():
    """Defect 9: a configuration problem is logged once per configuration
    change, not on every event; changed again (touched, fixed, broken
    again), it is logged again."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([])
    bad = "profiles/default.conf.d/70-bad.conf"
    path = f"{root()}/etc/readahead-agent/{bad}"
    journal = os.access("/run/systemd/journal/socket", os.W_OK)

    def logged():
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - 1))
        _, err = block_event("sdq")
        if not journal:
            return len(config_lines(err, path))
        time.sleep(0.5)
        r = subprocess.run(["journalctl", "-q", "-o", "cat", f"CONFIG_FILE={path}", "--since", since],
                           capture_output=True, text=True)
        return len(r.stdout.splitlines())

    dropin(bad, "[Rule disk]\nColour=blue\nSize=lots\n")
    counts = [logged() for _ in range(3)]
    print(f"config lines logged per event: {counts}")
    if counts[0] > 0 and counts[1:] == [0, 0]:
        ok("logged on the first event only")
    else:
        fail("the problem is logged once, not per event", "[N>0, 0, 0]", counts)
    t = time.time() + 5
    os.utime(path, (t, t))
    check_eq("touched: logged again", True, logged() > 0)
    check_eq("and then not", 0, logged())
    nf.root_dropin(bad, "[Rule disk]\nSize=1M\n")
    check_eq("fixed: nothing logged", 0, logged())
    nf.root_dropin(bad, "[Rule disk]\nColour=blue\nSize=lots\n")
    check_eq("broken again (same text): logged again", True, logged() > 0)
    # A dry run remembers nothing: it always says what it sees.
    _, err = block_event("sdq", extra_args=["--dry-run"])
    if not journal:
        check_eq("--dry-run logs the problems", True, len(config_lines(err, path)) > 0)


@case
def missing_profile():
    """Profile=nosuch with a drop-in in profiles/nosuch.conf.d/: devices are
    left alone, as check, cat-config and the agent's log all say, naming
    the line that asked for the profile (never line 0)."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([])
    dropin("readahead.conf.d/50-profile.conf", "[Agent]\nProfile=nosuch\n")
    dropin("profiles/nosuch.conf.d/50-disk.conf", "[Rule disk]\nKind=block\nSize=2M\n")
    conf = f"{root()}/etc/readahead-agent/readahead.conf.d/50-profile.conf"
    text = "profile 'nosuch' not found: devices are left alone"
    rc, out, err, _ = ctl("check")
    show("check", rc, out, err)
    check_eq("check exit status", "exit 1", ratest.describe_rc(rc))
    lines = out.decode(errors="replace").splitlines()
    check_eq("check's problem", [f"{conf}:2: error: {text}"], [l for l in lines if ": error: " in l or ": warning: " in l])
    check_eq("check's summary", "Profile nosuch: 0 rule(s) from 2 file(s)",
             next((l for l in lines if l.startswith("Profile ")), None))
    rc, out, err, _ = ctl("cat-config")
    show("cat-config", rc, out, err)
    check_eq("cat-config says on stderr", f"readahead-ctl cat-config: {text}\n", err.decode(errors="replace"))
    doc = ctl_json("status --json", "status", "--json")
    check_device("status", doc, "sdq", {"target_kb": None})
    before = block_ra("sdq")
    props, err = block_event("sdq")
    check_eq("agent change sdq: READAHEAD_RESULT", "left-alone", props.get("READAHEAD_RESULT"))
    check_eq("agent change sdq: read_ahead_kb unchanged", before, block_ra("sdq"))
    if os.access("/run/systemd/journal/socket", os.W_OK):
        time.sleep(0.5)
        r = subprocess.run(["journalctl", "-q", "-o", "cat", f"CONFIG_FILE={conf}", "-n", "1"],
                           capture_output=True, text=True)
        logged = r.stdout.splitlines()
    else:
        logged = [l.removeprefix("readahead-agent: ") for l in config_lines(err, conf)]
    check_eq("the agent logs", [f"{conf}:2: {text}"], logged)


@case
def file_name_escapes():
    """A configuration file named with ESC, BEL and a newline: check's file
    list, cat-config's header and apply's reason print it escaped, one line
    each, as explain does; a mask that is a symlink to an empty file is
    called that."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([])
    etc = f"{root()}/etc/readahead-agent/profiles/default.conf.d"
    raw = "50-\x1b[31mred\x07\n.conf"
    shown = "50-\\x1b[31mred\\x07\\x0a.conf"
    # Fails on every device, but only when evaluated: apply says where.
    dropin(f"profiles/default.conf.d/{raw}", "[Rule sdq]\nName=sdq\nSize=1M / (default - 512K)\n")
    nf.write_file(f"{root()}/empty", "")
    os.symlink(f"{root()}/empty", f"{etc}/55-mask.conf")
    rc, out, err, _ = ctl("check")
    show("check", rc, out, err)
    text = strict_utf8("check", out) or ""
    no_terminal_controls("check", text)
    check_eq("check lists the drop-in escaped, on one line",
             [f"  used              {etc}/{shown}"], [l for l in text.splitlines() if "red" in l])
    rc, out, err, _ = ctl("cat-config")
    show("cat-config", rc, out, err)
    text = strict_utf8("cat-config", out) or ""
    no_terminal_controls("cat-config", text)
    check_eq("cat-config's header, escaped", [f"# {etc}/{shown}"], [l for l in text.splitlines() if "red" in l])
    check_eq("cat-config names the kind of mask",
             [f"# {etc}/55-mask.conf (mask: symlink to an empty file, hides the files of this name below it)"],
             [l for l in text.splitlines() if "55-mask" in l])
    rc, out, err, _ = ctl("apply", "sdq")
    show("apply sdq", rc, out, err)
    text = strict_utf8("apply", out) or ""
    no_terminal_controls("apply", text)
    lines = text.splitlines()
    check_eq("apply prints one line", 1, len(lines))
    if lines and shown in lines[0]:
        ok(f"apply's reason names the drop-in escaped: {lines[0]}")
    else:
        fail("apply's reason names the drop-in escaped", shown, lines)


GENERATED_EVENTS = 300


def raw_event(env):
    """The agent with exactly env (plus PATH and the test's preload), as a
    hostile caller could run it: (rc, props, message text)."""
    full = {k: v for k, v in env.items()}
    full["SEQNUM"] = "9000"
    for k in ("PATH", "LD_PRELOAD", "UMOCKDEV_DIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            full[k] = os.environ[k]
    rc, out, err, _ = run_bytes([os.environ["RA_AGENT"], "--root", root()], env=full, timeout=nf.AGENT_TIMEOUT)
    props = {}
    for line in out.decode(errors="replace").splitlines():
        k, _, v = line.partition("=")
        props[k] = v
    return rc, props, out, err


def reset_bdis():
    """Every bdi of the tree back at the kernel's 128: any write shows."""
    base = f"{nf.testbed()}/sys/devices/virtual/bdi"
    for name in os.listdir(base):
        with open(f"{base}/{name}/read_ahead_kb", "w") as f:
            f.write("128\n")


def refused_and_logged(label, env, since):
    before = nf.snapshot()
    rc, props, out, err = raw_event(env)
    show(label, rc, out, err)
    check_eq(f"{label}: exit status", "exit 0", ratest.describe_rc(rc))
    check_eq(f"{label}: READAHEAD_RESULT", "refused", props.get("READAHEAD_RESULT"))
    if b"event refused" in err or nf.journal_has("event refused", since):
        ok(f"{label}: the refusal is logged")
    else:
        fail(f"{label}: the refusal is logged", "'event refused' on stderr or in the journal", err)
    nf.check_sys_changes(label, before)


@case
def event_identity():
    """The agent, run as root from udev, trusts no event: a bdi event whose
    DEVPATH ends in /.. (crashed it: a NULL name), sdr's DEVPATH with sdq's
    MAJOR:MINOR (wrote sdq), and 300 generated events (DEVPATH, name,
    MAJOR:MINOR, DEVNAME and SUBSYSTEM mutated from true ones, seeded) never
    crash it, and write no bdi but the one of the device the event truly is
    (as the tree says); the true events among them are still carried out."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([NFS4_1M])
    # No waiters: a bdi without a mount is answered at once (no-mount).
    dropin("readahead.conf.d/50-wait.conf", "[Agent]\nMountWaitSec=0\n")
    # The tree's device nodes (those with a number), as events name them.
    tree = {name: dev for name, dev in ratest.parse_umockdev(os.environ["RA_HOSTILE_TREE"], raw_values=True).items()
            if any(k == "MAJOR" for k, _ in dev["props"])}
    since = time.strftime("%Y-%m-%d %H:%M:%S")
    reset_bdis()

    refused_and_logged("bdi add, DEVPATH /devices/virtual/bdi/0:53/..",
                       {"ACTION": "add", "SUBSYSTEM": "bdi", "DEVPATH": "/devices/virtual/bdi/0:53/.."}, since)
    refused_and_logged("bdi add, DEVPATH /devices/virtual/bdi/0:53/../0:54",
                       {"ACTION": "add", "SUBSYSTEM": "bdi", "DEVPATH": "/devices/virtual/bdi/0:53/../0:54"}, since)
    sdr = dict(tree["sdr"]["props"])
    refused_and_logged("change of sdr's DEVPATH with sdq's MAJOR=65 MINOR=0",
                       {"ACTION": "change", "SUBSYSTEM": "block", "DEVTYPE": "disk",
                        "DEVPATH": tree["sdr"]["devpath"], "DEVNAME": "/dev/sdr", "MAJOR": "65", "MINOR": "0"},
                       since)
    check_eq("sdq's bdi 65:0 after the event that named sdr", "128", nf.bdi_ra("65:0"))
    check_eq("sdr's bdi 65:16 after it (refused: the event was not sdr's either)", "128", nf.bdi_ra("65:16"))
    check_eq("sdr's own MAJOR:MINOR in the tree", "65:16", (sdr["MAJOR"] + b":" + sdr["MINOR"]).decode())

    generated = events.generate(tree, GENERATED_EVENTS)
    n_true = sum(1 for _, b in generated if b)
    print(f"generated: {len(generated)} events (seed {events.SEED}), {n_true} of them true")
    bad = []
    written = set()
    for i, (env, may_write) in enumerate(generated):
        reset_bdis()
        before = nf.snapshot()
        rc, props, out, err = raw_event(env)
        after = nf.snapshot()
        changed = sorted(p[len(nf.testbed()):] for p in set(before) | set(after) if before.get(p) != after.get(p))
        allowed = [] if may_write is None else [f"/sys/devices/virtual/bdi/{may_write}/read_ahead_kb"]
        problems = []
        if rc != 0:
            problems.append(ratest.describe_rc(rc))
        if [c for c in changed if c not in allowed]:
            problems.append(f"changed {changed}, may change {allowed or 'nothing'}")
        result = props.get("READAHEAD_RESULT")
        if may_write and result not in ("written", "no-mount"):
            problems.append(f"a true event gave READAHEAD_RESULT={result}")
        # failed: DEVPATH names no device (or one gone): the handler finds no facts.
        if not may_write and result not in (None, "refused", "failed"):
            problems.append(f"READAHEAD_RESULT={result} for an event that is no device's")
        if changed:
            written.update(changed)
        if problems:
            bad.append(f"event {i} {env!r}: {'; '.join(problems)}; stderr {err[-300:]!r}")
    if bad:
        fail(f"{len(generated)} generated events: exit 0, no write but to the event's own bdi",
             "none of these", "\n      ".join(bad[:20]) + (f"\n      ... {len(bad)} in all" if len(bad) > 20 else ""))
    else:
        ok(f"{len(generated)} generated events: exit 0, each wrote at most its own bdi; "
           f"{n_true} true events carried out, writing {len(written)} distinct bdis")
    check_eq("generated events include true events of disks and of bdis", True,
             any(b and b.startswith("0:") for _, b in generated) and any(b and not b.startswith("0:") for _, b in generated))


class WatchAgent:
    """readahead-agent --watch in the testbed, its stderr in a file."""

    def __init__(self, *args):
        self.log_path = os.path.join(os.environ["RA_HOSTILE_TMP"], "watch.log")
        self.log_file = open(self.log_path, "wb")
        argv = [os.environ["RA_AGENT"], "--watch", "--root", root(), *args]
        print(f"start: {' '.join(argv)}")
        self.proc = subprocess.Popen(argv, env=ratest.sanitizer_env(dict(os.environ)), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.log_file)
        self.seen = 0

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read()

    def new_log(self):
        """What it logged since the last call."""
        text = self.log()
        new, self.seen = text[self.seen:], len(text)
        return new

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log_file.close()
        print("---- its log:\n" + "".join(f"     {l}\n" for l in self.log().decode(errors="replace").splitlines()))


def cpu_seconds(pid):
    """User and system time a process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


SDR = "/devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sdr"


def disk_event(devpath, major, minor, name="sdr", seqnum=1):
    return [("ACTION", "change"), ("DEVPATH", devpath), ("SUBSYSTEM", "block"), ("SEQNUM", str(seqnum)),
            ("DEVNAME", f"/dev/{name}"), ("DEVTYPE", "disk"), ("MAJOR", major), ("MINOR", minor)]


@case
def watch_event_identity():
    """--watch checks every event from its udev monitor as the udev helper
    checks its environment (one check, handle_event()): forged monitor
    messages (tests/lib/uevent.py) with sdr's DEVPATH and sdq's MAJOR=65
    MINOR=0 (wrote sdq's bdi before), DEVPATH /devices/virtual/bdi/0:53/../0:54
    with 0:54 mounted (accepted as 0:54 before), and sdr's DEVPATH with
    /.. after it (logged '(null): cannot read device facts' before) are
    refused and logged, nothing written; sdr's true event, before and after
    them, is still written. The start pass sets the mounted bdis too."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([NFS4_1M, nf.NFS3_32K])
    since = time.strftime("%Y-%m-%d %H:%M:%S")
    agent = WatchAgent("--check-sec", "86400")
    try:
        started = ratest.wait_until(lambda: b"watching" in agent.log() or agent.proc.poll() is not None, 60)
        if not started or agent.proc.poll() is not None:
            fail("--watch starts", "'watching' logged", agent.log()[-500:])
            return
        ok("--watch started")
        # The start pass covers the bdis too (0.2.0 enumerated block AND
        # DEVTYPE=disk, which no bdi has: mounts were left to the next change).
        check_eq("0:53 (NFS 4.2, rsize 1M) after the start", "4096", nf.bdi_ra("0:53"))
        check_eq("0:54 (NFS 3, rsize 32K) after the start", "1024", nf.bdi_ra("0:54"))
        if re.search(rb"watching: 6 disks and 4 mounts at start", agent.log()):
            ok("the start counts the tree's 6 disks and its 4 bdis of ours (0:53 to 0:56)")
        else:
            fail("the start counts 6 disks and 4 mounts", "watching: 6 disks and 4 mounts at start", agent.log()[-300:])
        agent.new_log()
        seq = [100]

        def event(label, props, may_write=None):
            """Sends props after resetting the bdis; then sdr's true event as a
            barrier (events are handled in order): once sdr is written, the
            forged event before it has been handled."""
            reset_bdis()
            before = nf.snapshot()
            seq[0] += 2
            props = [(k, str(seq[0]) if k == "SEQNUM" else v) for k, v in props]
            if uevent.send(props) != 1:
                fail(f"{label}: sent to the agent's monitor", "1 monitor", "none listening")
                return
            uevent.send(disk_event(SDR, "65", "16", seqnum=seq[0] + 1))
            if not ratest.wait_until(lambda: nf.bdi_ra("65:16") == "512", 20):
                fail(f"{label}: sdr's true event after it is written", "512", nf.bdi_ra("65:16"))
                return
            log = agent.new_log()
            print(f"---- {label}:\n" + "".join(f"     {l}\n" for l in log.decode(errors="replace").splitlines()))
            if may_write:
                ok(f"{label}: a true event")
            elif b"event refused" in log or nf.journal_has("event refused", since):
                ok(f"{label}: 'event refused' logged")
            else:
                fail(f"{label}: 'event refused' logged", "event refused: ...", log[-400:])
            check_eq(f"{label}: no (null) in the log", False, b"(null)" in log)
            nf.check_sys_changes(label, before, allowed=["65:16"])

        event("sdr's true event (the monitor reaches the agent)", disk_event(SDR, "65", "16"), may_write="65:16")
        event("sdr's DEVPATH with sdq's MAJOR=65 MINOR=0", disk_event(SDR, "65", "0"))
        check_eq("sdq's bdi 65:0 after it", "128", nf.bdi_ra("65:0"))
        event("bdi add, DEVPATH /devices/virtual/bdi/0:53/../0:54 (0:54 mounted)",
              [("ACTION", "add"), ("DEVPATH", "/devices/virtual/bdi/0:53/../0:54"), ("SUBSYSTEM", "bdi"),
               ("SEQNUM", "")])
        check_eq("0:54 after it", "128", nf.bdi_ra("0:54"))
        event("sdr's DEVPATH with /.. after it", disk_event(SDR + "/..", "65", "16"))
    finally:
        agent.stop()


@case
def mountinfo_fifo():
    """A FIFO as --mountinfo is refused at once with a clear message (it
    blocked the start in open(), then spun at 88% of a CPU once a writer had
    come and gone: poll() reported POLLHUP for ever, which the loop never
    looked at); readahead-ctl and the waiter reading a FIFO through
    READAHEAD_MOUNTINFO say so promptly too."""
    nf.set_meminfo(nf.MEM_16G_KB)
    nf.set_mountinfo([NFS4_1M])
    fifo = os.path.join(os.environ["RA_HOSTILE_TMP"], "mountinfo.fifo")
    os.mkfifo(fifo)
    since = time.strftime("%Y-%m-%d %H:%M:%S")
    reset_bdis()
    before = nf.snapshot()
    agent = WatchAgent("--mountinfo", fifo, "--check-sec", "86400")
    try:
        try:
            rc = agent.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            rc = None
        if rc is not None:
            check_eq("--watch --mountinfo FIFO: exit status", "exit 2", ratest.describe_rc(rc))
        else:
            fail("--watch --mountinfo FIFO exits within 1 s", "exit 2", "still running (blocked in open()?)")
            # What it did next on 0.2.0: a writer comes and goes, and the loop spins.
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            ratest.wait_until(lambda: b"watching" in agent.log(), 30)
            t0 = cpu_seconds(agent.proc.pid)
            time.sleep(1)
            used = cpu_seconds(agent.proc.pid) - t0
            print(f"after a writer came and went: {used:.2f} s of CPU in 1 s")
            check_eq("--watch on a FIFO whose writer has gone: at most 0.1 s of CPU in 1 s", True, used <= 0.1)
        log = agent.log()
        want = f"--mountinfo {fifo}: not a regular file".encode()
        if want in log:
            ok("the refusal names the option, the path and why")
        else:
            fail("the refusal names the option, the path and why", want, log[-300:])
    finally:
        agent.stop()
    nf.check_sys_changes("--watch --mountinfo FIFO", before)

    env = ratest.sanitizer_env(dict(os.environ, READAHEAD_MOUNTINFO=fifo))
    rc, out, err, secs = run_bytes([os.environ["RA_CTL"], "--root", root(), "status"], env=env, timeout=5)
    show("readahead-ctl status, READAHEAD_MOUNTINFO a FIFO", rc, out, err)
    check_eq("readahead-ctl status on a FIFO returns", True, rc is not None)
    if b"not a regular file" in err:
        ok("readahead-ctl says the mount table is not a regular file")
    else:
        fail("readahead-ctl says the mount table is not a regular file", "not a regular file", err[-300:])
    rc, out, err, secs = run_bytes([os.environ["RA_AGENT"], "--root", root(), "--wait-bdi", "0:53"], env=env,
                                   timeout=5)
    show("readahead-agent --wait-bdi 0:53, READAHEAD_MOUNTINFO a FIFO", rc, out, err)
    check_eq("the waiter on a FIFO: exit status", "exit 1", ratest.describe_rc(rc))
    if b"not a regular file" in err or nf.journal_has("not a regular file", since):
        ok("the waiter says the mount table is not a regular file")
    else:
        fail("the waiter says the mount table is not a regular file", "not a regular file", err[-300:])
    check_eq("0:53 after all of it", "128", nf.bdi_ra("0:53"))


def main():
    ratest.case_main("hostile", CASES, lambda: ratest.kill_waiters(("0:53", "0:54", "0:55", "0:56"), root()))


if __name__ == "__main__":
    main()
