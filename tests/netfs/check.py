#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Network-filesystem cases: one per ctest (see README.md). Runs inside
`umockdev-run -d bdis.umockdev`, started by run-case.sh, with a private copy
of the test configuration root in $RA_NETFS_ROOT.

Each case writes the testbed's /proc/self/mountinfo and /proc/meminfo (umockdev
serves $UMOCKDEV_DIR/proc/... in their place), then checks
`readahead-ctl status --json`, `explain`, and the agent run as udev would run
it for a bdi `add` event, or as `--wait-bdi`. Every expected number is written
down in the case, worked out by hand from the rules in the design brief
(max(default, 4 x rsize), the memory cap); nothing here computes one.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ratest  # noqa: E402  (tests/lib/ratest.py)
from ratest import (check_eq, describe_rc, die, fail, failures, ok, run,  # noqa: E402,F401
                    sanitizer_env, wait_until)

PAGE_KB = os.sysconf("SC_PAGESIZE") // 1024
AGENT_TIMEOUT = 10  # seconds: a udev-run agent takes milliseconds; umockdev and sanitizers are slow
# A udev worker must never wait for a mount: the agent handing off the wait
# must return well before the shortest wait it hands off (MountWaitSec=30 by
# default). Generous for ASan under umockdev; a real run takes a few ms.
PENDING_MAX_S = 3.0

# ------------------------------------------------------------------ host data
#
# mountinfo lines, as the kernel prints them (fields: id, parent, MAJ:MIN,
# root, mount point, mount options, optional fields, "-", fstype, source,
# super options). Local filesystems only: none of them is a network mount.

HOST_MOUNTS = [
    "21 27 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw",
    "22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw",
    "23 27 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=8124332k,nr_inodes=2031083,mode=755,inode64",
    "25 27 0:23 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=1630384k,mode=755,inode64",
    "27 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro",
    "29 27 0:27 / /tmp rw,nosuid,nodev shared:17 - tmpfs tmpfs rw,nr_inodes=1048576,inode64",
]

NFS4_1M = ("40 27 0:53 / /mnt/data rw,relatime shared:30 - nfs4 srv:/export "
           "rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,"
           "retrans=2,sec=sys,clientaddr=192.0.2.2,local_lock=none,addr=192.0.2.1")
NFS3_32K = ("41 27 0:54 / /mnt/old rw,relatime shared:31 - nfs nas:/vol/old "
            "rw,vers=3,rsize=32768,wsize=32768,namlen=255,hard,proto=tcp,timeo=600,retrans=2,"
            "sec=sys,mountaddr=192.0.2.3,mountvers=3,mountport=20048,mountproto=udp,"
            "local_lock=none,addr=192.0.2.3")
NFS4_256K = ("42 27 0:55 / /mnt/home rw,nosuid,nodev,relatime shared:32 - nfs4 [2001:db8::5]:/home "
             "rw,vers=4.1,rsize=262144,wsize=262144,namlen=255,hard,proto=tcp6,timeo=600,"
             "retrans=2,sec=krb5p,clientaddr=2001:db8::2,local_lock=none,addr=2001:db8::5")

MEM_16G_KB = 16303840  # memory cap 16384 KiB: never the limit for NFS below
MEM_256M_KB = 250000   # 244 MiB -> power of two 256 -> memory cap 256 KiB


# ------------------------------------------------------------------ testbed

def testbed():
    return os.environ["UMOCKDEV_DIR"]


def bdi_attr(bdi):
    return f"{testbed()}/sys/class/bdi/{bdi}/read_ahead_kb"


def bdi_ra(bdi):
    """What a reader of the attribute gets; None when there is no such file."""
    try:
        with open(bdi_attr(bdi), "rb") as f:
            return f.read().decode(errors="replace").strip()
    except FileNotFoundError:
        return None


def write_file(path, text):
    """Atomically: a poller never sees half a file."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def set_mountinfo(extra):
    write_file(f"{testbed()}/proc/self/mountinfo", "".join(l + "\n" for l in HOST_MOUNTS + extra))
    print(f"setup: mountinfo with {len(extra)} network mount line(s): "
          + ", ".join(l.split()[2] + " " + l.split()[4] for l in extra))


def set_meminfo(kb):
    write_file(f"{testbed()}/proc/meminfo",
               f"MemTotal:       {kb} kB\nMemFree:        {kb // 2} kB\nMemAvailable:   {kb // 2} kB\n")


def snapshot():
    """Every file below the testbed's /sys with its content."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(testbed() + "/sys"):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                snap[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    snap[p] = ("file", f.read())
            else:
                snap[p] = ("dir", None)
    return snap


def check_sys_changes(label, before, allowed=()):
    """Only the attributes in allowed may differ from the snapshot."""
    after = snapshot()
    allowed = {os.path.realpath(bdi_attr(b)) for b in allowed}
    changes = []
    for p in sorted(set(before) | set(after)):
        if os.path.realpath(p) in allowed or before.get(p) == after.get(p):
            continue
        rel = p[len(testbed()):]
        a, b = before.get(p), after.get(p)
        changes.append(f"created {rel}" if a is None else f"removed {rel}" if b is None
                       else f"changed {rel} {a[1]!r} -> {b[1]!r}")
    if changes:
        fail(f"{label}: nothing else below /sys changed", "no change", "; ".join(changes))
    else:
        ok(f"{label}: nothing else below /sys changed")


def root_dropin(rel, text):
    """A file below the private configuration root's /etc/readahead-agent."""
    path = os.path.join(os.environ["RA_NETFS_ROOT"], "etc/readahead-agent", rel)
    write_file(path, text)
    print(f"setup: {path}:\n" + "".join(f"    {l}\n" for l in text.splitlines()))


# ------------------------------------------------------------------ commands

def ctl(*args):
    return run([os.environ["RA_CTL"], "--root", os.environ["RA_NETFS_ROOT"], *args],
               sanitizer_env(dict(os.environ)), 60)


def status():
    rc, out, err, _ = ctl("status", "--json")
    if rc != 0:
        fail("readahead-ctl status --json", "exit 0", f"{describe_rc(rc)}; stderr: {err.strip()}")
        return None
    try:
        doc = json.loads(out)
    except ValueError as e:
        fail("status --json is JSON", "a JSON object", f"{e}: {out[:400]!r}")
        return None
    if err.strip():
        print(f"note: status stderr: {err.strip()}")
    rc, table, err, _ = ctl("status")
    if rc != 0:
        fail("readahead-ctl status (table)", "exit 0", f"{describe_rc(rc)}; stderr: {err.strip()}")
    else:
        print("     " + table.rstrip().replace("\n", "\n     "))
    return doc


def mounts(doc):
    return [d for d in doc.get("devices", []) if d.get("kind") == "mount"]


def check_status(want_mounts, mem_total_kb=MEM_16G_KB, memory_cap_kb=16384, label="status"):
    """want_mounts: {bdi name: {field: expected}}. The list must hold exactly
    these mounts, each once."""
    doc = status()
    if doc is None:
        return None
    check_eq(f"{label} mem_total_kb", mem_total_kb, doc.get("mem_total_kb"))
    check_eq(f"{label} memory_cap_kb", memory_cap_kb, doc.get("memory_cap_kb"))
    listed = mounts(doc)
    names = [d.get("name") for d in listed]
    check_eq(f"{label}: mounts listed (each once)", sorted(want_mounts), sorted(names))
    for name, fields in want_mounts.items():
        d = next((d for d in listed if d.get("name") == name), None)
        if d is None:
            continue
        for key, want in fields.items():
            check_eq(f"{label} {name} {key}", want, d.get(key))
        t = d.get("target_kb")
        if isinstance(t, int) and (t <= 0 or t % PAGE_KB):
            fail(f"{label} {name} target_kb is whole pages", f"positive multiple of {PAGE_KB}", t)
    return doc


def check_explain(what, fields, rules=None):
    """fields: {top-level or device.KEY: expected}; rules: {section: verdict}."""
    rc, out, err, _ = ctl("explain", what, "--json")
    if rc != 0:
        fail(f"readahead-ctl explain {what} --json", "exit 0", f"{describe_rc(rc)}; stderr: {err.strip()}")
        return
    try:
        doc = json.loads(out)
    except ValueError as e:
        fail(f"explain {what} --json is JSON", "a JSON object", f"{e}: {out[:400]!r}")
        return
    for path, want in fields.items():
        cur = doc
        for part in path.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        check_eq(f"explain {what} {path}", want, cur)
    for section, verdict in (rules or {}).items():
        got = [r.get("verdict") for r in doc.get("rules", []) if r.get("section") == section]
        check_eq(f"explain {what} rule [{section}] verdict", verdict, got[-1] if got else None)
    rc, _, err, _ = ctl("explain", what)
    if rc not in (0, 1):  # 1: current differs from the target
        fail(f"readahead-ctl explain {what} (text)", "exit 0 or 1", f"{describe_rc(rc)}; {err.strip()}")


def event_env(bdi, seqnum):
    """What udev gives a program for a bdi add event."""
    env = {
        "DEVPATH": f"/devices/virtual/bdi/{bdi}",
        "SUBSYSTEM": "bdi",
        "ACTION": "add",
        "SEQNUM": str(seqnum),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    return ratest.testbed_env(env)


parse_props = ratest.parse_agent_lines


SEQNUM = [2000]


def agent_event(bdi):
    """Runs the agent for `ACTION=add` of bdi; returns (props, seconds)."""
    SEQNUM[0] += 1
    label = f"agent add {bdi}"
    rc, out, err, secs = run([os.environ["RA_AGENT"], "--root", os.environ["RA_NETFS_ROOT"]],
                             event_env(bdi, SEQNUM[0]), AGENT_TIMEOUT)
    print(f"---- {label} ({describe_rc(rc)}, {secs * 1000:.0f} ms)")
    for line in out.splitlines():
        print(f"     stdout: {line}")
    for line in err.splitlines():
        print(f"     stderr: {line}")
    check_eq(f"{label}: exit status", "exit 0", describe_rc(rc))
    return parse_props(label, out), secs


def check_props(label, props, want):
    """want: {KEY: value, or None for absent}; READAHEAD_ prefix implied."""
    for key, value in want.items():
        check_eq(f"{label}: READAHEAD_{key}", value, props.get("READAHEAD_" + key))


def rule_is(label, got, section):
    """A rule reference FILE:SECTION, FILE in the private root or the vendor dir."""
    vendor = os.environ["RA_VENDOR_DIR"].rstrip("/")
    root = os.environ["RA_NETFS_ROOT"].rstrip("/")
    f, _, s = (got or "").rpartition(":")
    okfile = f in (vendor + "/profiles/default.conf", root + vendor + "/profiles/default.conf") or \
        f.startswith(root + "/etc/readahead-agent/profiles/default.conf.d/")
    if s == section and okfile:
        ok(f"{label} = {got}")
    else:
        fail(label, f"[ROOT]{vendor}/profiles/default.conf*:{section}", got)


def waiter_pids(bdi):
    """`readahead-agent --wait-bdi BDI --root ROOT` processes of this test only."""
    return ratest.waiter_pids(bdi, os.environ["RA_NETFS_ROOT"])


def systemd_runs():
    return os.path.exists("/run/systemd/system")


def journal_has(text, since):
    """Where journald runs the agent logs there, not to stderr."""
    if not os.access("/run/systemd/journal/socket", os.W_OK):
        return False
    r = subprocess.run(["journalctl", "-q", "-o", "cat", "-t", "readahead-agent",
                        "--since", since], capture_output=True, text=True)
    return text in r.stdout


# ------------------------------------------------------------------ cases

CASES = {}
case = ratest.case_decorator(CASES)


def decide_at_once(bdi, target, rule="nfs", klass="nfs"):
    """The agent for an add event of bdi whose mount is visible: decides at
    once, writes target, and status then reports it as current."""
    before = snapshot()
    props, _ = agent_event(bdi)
    check_props(f"agent add {bdi}", props, {"CLASS": klass, "PREVIOUS_KB": "128",
                                            "TARGET_KB": str(target), "RESULT": "written",
                                            "WAIT": None})
    rule_is(f"agent add {bdi}: READAHEAD_RULE", props.get("READAHEAD_RULE"), rule)
    check_eq(f"{bdi}/read_ahead_kb after the agent", str(target), bdi_ra(bdi))
    check_sys_changes(f"agent add {bdi}", before, allowed=[bdi])


@case
def nfs4_1m():
    """NFS 4.2, rsize=1048576: max(512, 4 x 1024) = 4096."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS4_1M])
    check_status({"0:53": {"class": "nfs", "fstype": "nfs4", "mount_point": "/mnt/data",
                           "mount_points": 1, "server": "srv", "source": "srv:/export",
                           "rsize_bytes": 1048576, "nfs_version": "4.2", "target_kb": 4096,
                           "current_kb": 128, "drift": True, "rule_section": "nfs"}})
    for what in ("0:53", "/mnt/data"):
        check_explain(what, {"device.name": "0:53", "rule_kb": 4096, "target_kb": 4096,
                             "caps.memory_cap_kb": 16384}, {"nfs": "matched", "disk": "no-match"})
    decide_at_once("0:53", 4096)
    check_status({"0:53": {"target_kb": 4096, "current_kb": 4096, "drift": False}}, label="status after")
    # A second add (udevadm trigger) finds the value in place.
    props, _ = agent_event("0:53")
    check_props("agent add 0:53 again", props, {"TARGET_KB": "4096", "RESULT": "unchanged"})


@case
def nfs3_32k():
    """NFS 3, rsize=32768: 4 x 32 = 128 is below the NFS floor: 1024."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS3_32K])
    check_status({"0:54": {"class": "nfs", "fstype": "nfs", "mount_point": "/mnt/old",
                           "server": "nas", "rsize_bytes": 32768, "nfs_version": "3",
                           "target_kb": 1024, "current_kb": 128, "rule_section": "nfs"}})
    check_explain("/mnt/old", {"device.name": "0:54", "rule_kb": 1024, "target_kb": 1024})
    decide_at_once("0:54", 1024)


@case
def nfs_256k():
    """NFS 4.1 over IPv6, rsize=262144: 4 x 256 = 1024."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS4_256K])
    check_status({"0:55": {"class": "nfs", "fstype": "nfs4", "mount_point": "/mnt/home",
                           "server": "2001:db8::5", "rsize_bytes": 262144, "nfs_version": "4.1",
                           "target_kb": 1024, "current_kb": 128}})
    decide_at_once("0:55", 1024)


@case
def small_host():
    """rsize=1M on a 256 MiB host: 4096 capped by memory (250000 kB -> 256)."""
    set_meminfo(MEM_256M_KB)
    set_mountinfo([NFS4_1M])
    check_status({"0:53": {"class": "nfs", "rsize_bytes": 1048576, "target_kb": 256,
                           "current_kb": 128}}, mem_total_kb=MEM_256M_KB, memory_cap_kb=256)
    check_explain("0:53", {"rule_kb": 4096, "target_kb": 256, "caps.memory_cap_kb": 256})
    decide_at_once("0:53", 256)


@case
def two_mount_points():
    """One superblock (0:53) mounted twice (a bind mount of a subdirectory):
    one bdi, listed once, mount_points 2, the first mount point shown."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS4_1M,
                   "47 27 0:53 /projects /srv/projects rw,relatime shared:30 - nfs4 srv:/export "
                   "rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,"
                   "retrans=2,sec=sys,clientaddr=192.0.2.2,local_lock=none,addr=192.0.2.1"])
    check_status({"0:53": {"class": "nfs", "mount_point": "/mnt/data", "mount_points": 2,
                           "target_kb": 4096}})
    for what in ("/mnt/data", "/srv/projects"):
        check_explain(what, {"device.name": "0:53", "device.mount_points": 2, "target_kb": 4096})
    decide_at_once("0:53", 4096)


@case
def mount_later():
    """The bdi add event comes before the mount is in mountinfo: the agent
    returns at once (pending), the wait goes off the worker, and the value is
    set once the mount shows up. Then the same with --wait-bdi run directly,
    as readahead-agent-bdi@.service runs it."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([])  # the host's local mounts only
    check_status({})
    before = snapshot()
    props, secs = agent_event("0:53")
    check_props("agent add 0:53 (no mount yet)", props,
                {"RESULT": "pending", "TARGET_KB": None, "CLASS": None})
    if secs < PENDING_MAX_S:
        ok(f"agent returned in {secs * 1000:.0f} ms: the udev worker does not wait")
    else:
        fail("agent returns at once when the mount is not there", f"< {PENDING_MAX_S} s", f"{secs:.1f} s")
    wait = props.get("READAHEAD_WAIT")
    direct = None
    if systemd_runs():
        check_eq("READAHEAD_WAIT (systemd runs here)", "systemd", wait)
        # What the unit would start; systemd is not part of this testbed.
        direct = subprocess.Popen([os.environ["RA_AGENT"], "--wait-bdi", "0:53", "--root",
                                   os.environ["RA_NETFS_ROOT"]], env=sanitizer_env(dict(os.environ)),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    else:
        check_eq("READAHEAD_WAIT (no systemd here)", "process", wait)
        pids = wait_until(lambda: waiter_pids("0:53"), 3)
        if pids:
            ok(f"a detached waiter runs: pid {pids}")
        else:
            fail("a detached `--wait-bdi 0:53` runs", "a process", "none found within 3 s")
    check_eq("0:53/read_ahead_kb while waiting", "128", bdi_ra("0:53"))

    time.sleep(0.5)
    t0 = time.monotonic()
    set_mountinfo([NFS4_1M])
    got = wait_until(lambda: bdi_ra("0:53") == "4096", 10)
    secs = time.monotonic() - t0
    if got:
        ok(f"0:53/read_ahead_kb = 4096, {secs * 1000:.0f} ms after the mount appeared")
    else:
        fail("0:53/read_ahead_kb set once the mount appears (within 10 s)", "4096", bdi_ra("0:53"))
    if direct:
        try:
            out, err = direct.communicate(timeout=10)
            check_eq("--wait-bdi 0:53: exit status", 0, direct.returncode)
        except subprocess.TimeoutExpired:
            direct.kill()
            fail("--wait-bdi 0:53 exits", "exit 0", "still running after 10 s")
    else:
        left = wait_until(lambda: not waiter_pids("0:53"), 5)
        if left:
            ok("the waiter exited")
        else:
            fail("the waiter exits once it has decided", "no process", waiter_pids("0:53"))
    check_sys_changes("waiter for 0:53", before, allowed=["0:53"])
    check_status({"0:53": {"target_kb": 4096, "current_kb": 4096, "drift": False}}, label="status after")

    # --wait-bdi started by hand (as the systemd unit does), mount 0.5 s later.
    before = snapshot()
    p = subprocess.Popen([os.environ["RA_AGENT"], "--wait-bdi", "0:54", "--root",
                          os.environ["RA_NETFS_ROOT"]], env=sanitizer_env(dict(os.environ)),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    if p.poll() is None:
        ok("--wait-bdi 0:54 is waiting")
    else:
        fail("--wait-bdi 0:54 waits for its mount", "running", f"exited {p.returncode}")
    set_mountinfo([NFS4_1M, NFS3_32K])
    try:
        out, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        fail("--wait-bdi 0:54 exits once the mount is there", "exit within 10 s", "still running")
    print(f"---- --wait-bdi 0:54 ({describe_rc(p.returncode)})")
    for line in (out + err).splitlines():
        print(f"     {line}")
    check_eq("--wait-bdi 0:54: exit status", "exit 0", describe_rc(p.returncode))
    props = parse_props("--wait-bdi 0:54", out)
    check_props("--wait-bdi 0:54", props, {"CLASS": "nfs", "TARGET_KB": "1024", "RESULT": "written"})
    check_eq("0:54/read_ahead_kb", "1024", bdi_ra("0:54"))
    check_sys_changes("--wait-bdi 0:54", before, allowed=["0:54"])


@case
def mount_never():
    """No mount ever appears: --wait-bdi gives up after MountWaitSec=1, says
    so, exits non-zero and writes nothing; the agent's own waiter does too."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS3_32K])  # another mount, not 0:53's
    root_dropin("readahead.conf.d/50-wait.conf", "[Agent]\nMountWaitSec=1\n")
    rc, out, err, _ = ctl("check")
    check_eq("readahead-ctl check with MountWaitSec=1", "exit 0", describe_rc(rc))

    before = snapshot()
    since = time.strftime("%Y-%m-%d %H:%M:%S")
    rc, out, err, secs = run([os.environ["RA_AGENT"], "--wait-bdi", "0:53", "--root",
                              os.environ["RA_NETFS_ROOT"]], sanitizer_env(dict(os.environ)), 15)
    print(f"---- --wait-bdi 0:53 ({describe_rc(rc)}, {secs * 1000:.0f} ms)")
    for line in (out + err).splitlines():
        print(f"     {line}")
    if rc is not None and rc > 0:
        ok(f"--wait-bdi 0:53 exits non-zero ({rc})")
    else:
        fail("--wait-bdi 0:53 exits non-zero when it gives up", "exit 1 (or another > 0)", describe_rc(rc))
    if 0.9 <= secs <= 3.0:
        ok(f"gave up after {secs:.2f} s (MountWaitSec=1)")
    else:
        fail("gives up after about MountWaitSec=1", "0.9 to 3.0 s", f"{secs:.2f} s")
    if "giving up" in err and "0:53" in err:
        ok("the giving-up message names the bdi")
    elif journal_has("giving up", since):
        ok("the giving-up message is in the journal")
    else:
        fail("--wait-bdi logs that it gives up", "'0:53: ... giving up ...' on stderr", repr(err))
    check_eq("--wait-bdi 0:53: stdout", "", out)
    check_eq("0:53/read_ahead_kb", "128", bdi_ra("0:53"))
    check_sys_changes("--wait-bdi 0:53 (gave up)", before)

    # The same through the agent: pending at once, its waiter gives up.
    props, secs = agent_event("0:53")
    check_props("agent add 0:53", props, {"RESULT": "pending", "TARGET_KB": None})
    if secs < PENDING_MAX_S:
        ok(f"agent returned in {secs * 1000:.0f} ms")
    else:
        fail("agent returns at once", f"< {PENDING_MAX_S} s", f"{secs:.1f} s")
    if props.get("READAHEAD_WAIT") == "process":
        # It lives about 1 s: look for it early.
        if wait_until(lambda: waiter_pids("0:53"), 0.8, step=0.01):
            ok("a detached waiter runs")
        else:
            fail("a detached `--wait-bdi 0:53` runs", "a process", "none (gone already?)")
        gone = wait_until(lambda: not waiter_pids("0:53"), 5)
        if gone:
            ok("the detached waiter exited within 5 s (MountWaitSec=1)")
        else:
            fail("the detached waiter gives up", "gone within 5 s", waiter_pids("0:53"))
    check_eq("0:53/read_ahead_kb", "128", bdi_ra("0:53"))
    check_sys_changes("agent add 0:53 and its waiter (gave up)", before)


@case
def sshfs_cifs():
    """FUSE (sshfs) and cifs mounts are shown and left alone by default. cifs
    names its bdi cifs-N: status lists the mount without a current value, the
    event for cifs-1 runs nothing."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([
        "50 27 0:56 / /home/u/remote rw,nosuid,nodev,relatime shared:40 - fuse.sshfs "
        "u@build.example.org:/home/u rw,user_id=1000,group_id=1000",
        "51 27 0:60 / /mnt/share rw,relatime shared:41 - cifs //fileserver/share "
        "rw,vers=3.1.1,cache=strict,username=u,uid=0,noforceuid,gid=0,noforcegid,addr=192.0.2.10,"
        "file_mode=0755,dir_mode=0755,soft,nounix,serverino,mapposix,rsize=4194304,wsize=4194304,"
        "bsize=1048576,echo_interval=60,actimeo=1,closetimeo=1",
    ])
    check_status({
        "0:56": {"class": "fuse", "fstype": "fuse.sshfs", "mount_point": "/home/u/remote",
                 "server": "build.example.org", "target_kb": None, "current_kb": 128,
                 "rule_section": "other-network"},
        "0:60": {"class": "netfs", "fstype": "cifs", "mount_point": "/mnt/share",
                 "server": "fileserver", "rsize_bytes": 4194304, "target_kb": None,
                 "current_kb": None, "rule_section": "other-network"},
    })
    check_explain("/home/u/remote", {"device.name": "0:56", "target_kb": None},
                  {"other-network": "matched", "nfs": "no-match"})
    # status lists the cifs mount (as 0:60): explain must know it too, by
    # mount point and by that name, though it has no bdi 0:60 to read.
    for what in ("/mnt/share", "0:60"):
        check_explain(what, {"device.name": "0:60", "device.class": "netfs", "target_kb": None},
                      {"other-network": "matched"})

    before = snapshot()
    props, _ = agent_event("0:56")
    check_props("agent add 0:56 (sshfs)", props, {"CLASS": "fuse", "RESULT": "left-alone",
                                                  "TARGET_KB": None})
    check_eq("0:56/read_ahead_kb", "128", bdi_ra("0:56"))
    props, _ = agent_event("cifs-1")
    check_eq("agent add cifs-1 prints nothing", {}, props)
    check_eq("cifs-1/read_ahead_kb", "8192", bdi_ra("cifs-1"))
    check_sys_changes("agent for sshfs and cifs", before)


@case
def rule_mount_point():
    """An /etc drop-in rule picks one NFS mount by mount point (2M); another
    NFS mount keeps the default profile's value."""
    set_meminfo(MEM_16G_KB)
    scratch = NFS4_1M.replace("40 27 0:53 / /mnt/data", "43 27 0:53 / /mnt/scratch")
    data = NFS4_1M.replace("40 27 0:53", "44 27 0:54")
    set_mountinfo([scratch, data])
    root_dropin("profiles/default.conf.d/50-x.conf", "[Rule scratch]\nMountPoint=/mnt/scratch\nSize=2M\n")
    rc, out, err, _ = ctl("check")
    check_eq("readahead-ctl check with the drop-in", "exit 0", describe_rc(rc))
    check_status({
        "0:53": {"mount_point": "/mnt/scratch", "rsize_bytes": 1048576, "target_kb": 2048,
                 "rule_section": "scratch"},
        "0:54": {"mount_point": "/mnt/data", "rsize_bytes": 1048576, "target_kb": 4096,
                 "rule_section": "nfs"},
    })
    # The last rule that matches wins; the nfs rule before it is overridden.
    check_explain("/mnt/scratch", {"device.name": "0:53", "target_kb": 2048},
                  {"nfs": "overridden", "scratch": "matched"})
    check_explain("/mnt/data", {"device.name": "0:54", "target_kb": 4096},
                  {"nfs": "matched", "scratch": "no-match"})
    decide_at_once("0:53", 2048, rule="scratch")
    decide_at_once("0:54", 4096)


@case
def rule_misspelled_key():
    """Issue 34: a drop-in rule whose one match is misspelled (MountPiont=)
    is dropped whole rather than set on every mount: check exits 1 naming
    its file, line and rule; the NFS mount keeps the nfs rule's value."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS4_1M])
    rel = "profiles/default.conf.d/50-data.conf"
    root_dropin(rel, "[Rule data]\nMountPiont=/mnt/data\nSize=16M\n")
    path = os.path.join(os.environ["RA_NETFS_ROOT"], "etc/readahead-agent", rel)
    rc, out, err, _ = ctl("check")
    print(out)
    check_eq("readahead-ctl check with the misspelled drop-in", "exit 1", describe_rc(rc))
    problem = f"{path}:2: error: [Rule data] dropped: unknown key MountPiont="
    check_eq("check names the file, line and rule", [problem],
             [l for l in out.splitlines() if ": error: " in l])
    check_status({"0:53": {"target_kb": 4096, "rule_section": "nfs"}})
    check_explain("/mnt/data", {"device.name": "0:53", "target_kb": 4096}, {"nfs": "matched", "data": None})
    decide_at_once("0:53", 4096)


@case
def disk_bdi():
    """7:0 (a loop disk's bdi) is not anonymous: the agent prints nothing and
    writes nothing, even with a mount of 7:0 in mountinfo."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS4_1M, "60 27 7:0 / /mnt/image rw,relatime shared:50 - ext4 /dev/loop0 rw"])
    before = snapshot()
    props, _ = agent_event("7:0")
    check_eq("agent add 7:0 prints nothing", {}, props)
    check_eq("7:0/read_ahead_kb", "2560", bdi_ra("7:0"))
    check_sys_changes("agent add 7:0", before)
    rc, _, err, _ = run([os.environ["RA_AGENT"], "--wait-bdi", "7:0", "--root",
                         os.environ["RA_NETFS_ROOT"]], sanitizer_env(dict(os.environ)), 10)
    check_eq("--wait-bdi 7:0 is a usage error", "exit 2", describe_rc(rc))
    check_sys_changes("--wait-bdi 7:0", before)
    check_status({"0:53": {"target_kb": 4096}})


@case
def named_bdi():
    """bdi btrfs-1 whose filesystem never links it (no /sys/fs/btrfs here), a
    btrfs line in mountinfo: the agent hands the wait off (pending), the
    waiter gives up after MountWaitSec=1 and writes nothing (btrfs itself is
    tests/btrfs). cifs-1 is in sshfs-cifs."""
    set_meminfo(MEM_16G_KB)
    set_mountinfo([NFS4_1M, "61 27 0:61 / /srv/pool rw,relatime shared:51 - btrfs /dev/sdb "
                   "rw,space_cache=v2,subvolid=5,subvol=/"])
    root_dropin("readahead.conf.d/50-wait.conf", "[Agent]\nMountWaitSec=1\n")
    before = snapshot()
    props, _ = agent_event("btrfs-1")
    check_props("agent add btrfs-1", props, {"RESULT": "pending", "TARGET_KB": None, "CLASS": None})
    if props.get("READAHEAD_WAIT") == "process":
        if wait_until(lambda: not waiter_pids("btrfs-1"), 5):
            ok("the waiter for btrfs-1 gave up within 5 s")
        else:
            fail("the waiter for btrfs-1 gives up", "gone within 5 s", waiter_pids("btrfs-1"))
    check_eq("btrfs-1/read_ahead_kb", "4096", bdi_ra("btrfs-1"))
    check_sys_changes("agent add btrfs-1", before)
    check_status({"0:53": {"target_kb": 4096}})


def kill_waiters():
    ratest.kill_waiters(("0:53", "0:54", "0:55", "0:56", "btrfs-1"), os.environ["RA_NETFS_ROOT"])


def main():
    ratest.case_main("netfs", CASES, kill_waiters)


if __name__ == "__main__":
    main()
