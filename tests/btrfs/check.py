#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""btrfs cases: one per ctest (see CMakeLists.txt). Runs inside
`umockdev-run -d TREE.umockdev`, started by tests/netfs/run-case.sh, with a
private copy of the test configuration root in $RA_NETFS_ROOT.

A umockdev tree holds block devices and bdis only: each case lays out what the
kernel shows of a mounted btrfs below the testbed's /sys/fs/btrfs/<fsid>/ (bdi
link, devices/, devinfo/, allocation/data/<profile>/), writes /proc/meminfo and
/proc/self/mountinfo, then checks `readahead-ctl status --json`, `explain` and
the agent as udev runs it for the bdi's add event. The helpers are those of
the network-filesystem cases (tests/netfs/check.py). Every expected number is
written down here, worked out by hand from the rules in the design brief.
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "netfs"))
import ratest  # noqa: E402  (tests/lib/ratest.py)
import check as nf  # noqa: E402  (tests/netfs/check.py: the bdi test helpers)

from check import check_eq, check_explain, check_props, check_status, ok, fail  # noqa: E402

GIB = 1024 ** 3
SSD_P1_BYTES = 1073741824 * 512      # sd[a-h]1: 512 GiB
SSD_P2_BYTES = 879779248 * 512       # sd[a-h]2: the rest of a 1 TB SSD
KEY_BYTES = 2097152 * 512            # sdi: a 1 GiB USB key
NVME_P2_BYTES = 249017008 * 512      # nvme0n1p2: 250069680 - 1050624 - 2048 sectors

FSID_POOL = "0a1b2c3d-0000-4000-8000-000000000001"
FSID_ARCHIVE = "0a1b2c3d-0000-4000-8000-000000000002"
FSID_KEY = "0a1b2c3d-0000-4000-8000-000000000003"
FSID_ROOT = "0a1b2c3d-0000-4000-8000-000000000004"

LOCAL_MOUNTS = [
    "21 27 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw",
    "22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw",
    "25 27 0:23 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=1630384k,mode=755",
]
BTRFS_OPTS = "rw,ssd,discard=async,space_cache=v2"


def btrfs_line(mount_id, devnum, root, point, source, subvolid, subvol):
    return (f"{mount_id} 27 {devnum} {root} {point} rw,relatime shared:{mount_id} - btrfs {source} "
            f"{BTRFS_OPTS},subvolid={subvolid},subvol={subvol}")


POOL = btrfs_line(61, "0:61", "/", "/srv/pool", "/dev/sda1", 5, "/")
POOL_HOME = btrfs_line(62, "0:61", "/@home", "/srv/pool-home", "/dev/sda1", 257, "/@home")
ARCHIVE = btrfs_line(63, "0:62", "/", "/srv/archive", "/dev/sdh2", 5, "/")
KEY = btrfs_line(64, "0:63", "/", "/media/key", "/dev/sdi", 5, "/")


def set_mountinfo(lines):
    nf.write_file(f"{nf.testbed()}/proc/self/mountinfo", "".join(l + "\n" for l in LOCAL_MOUNTS + lines))
    print("setup: mountinfo: " + ", ".join(l.split()[4] + " (" + l.split()[2] + ")" for l in lines))


def btrfs_sysfs(fsid, bdi, members, profile, link_bdi=True):
    """What the kernel shows below /sys/fs/btrfs/<fsid>: members are the
    block device names (partitions or disks), linked to their sysfs dirs."""
    top = f"{nf.testbed()}/sys/fs/btrfs/{fsid}"
    os.makedirs(f"{top}/devices", exist_ok=True)
    for i, m in enumerate(members, 1):
        target = os.path.realpath(f"{nf.testbed()}/sys/class/block/{m}")
        os.symlink(os.path.relpath(target, f"{top}/devices"), f"{top}/devices/{m}")
        os.makedirs(f"{top}/devinfo/{i}", exist_ok=True)
        nf.write_file(f"{top}/devinfo/{i}/missing", "0\n")
    for p, total in ((profile, 8 * GIB), ("single", 0)):  # mkfs leaves an empty single chunk
        nf.write_file(f"{top}/allocation/data/{p}/total_bytes", f"{total}\n")
    nf.write_file(f"{top}/allocation/metadata/raid1/total_bytes", f"{GIB}\n")
    nf.write_file(f"{top}/label", "\n")
    if link_bdi:
        link_btrfs_bdi(fsid, bdi)
    print(f"setup: /sys/fs/btrfs/{fsid}: {profile} over {' '.join(members)}"
          + (f", bdi -> {bdi}" if link_bdi else ", no bdi link yet"))


def link_btrfs_bdi(fsid, bdi):
    os.symlink(f"../../../devices/virtual/bdi/{bdi}", f"{nf.testbed()}/sys/fs/btrfs/{fsid}/bdi")


def block_ra(name):
    """The disk's read_ahead_kb, from its bdi: the attribute the product writes."""
    with open(f"{nf.testbed()}/sys/class/block/{name}/dev") as f:
        return nf.bdi_ra(f.read().strip())


def agent_writes(bdi, target, klass, rule, previous="4096"):
    """The agent for an add event of bdi whose filesystem is mounted: writes
    target at once, nothing else below /sys changes; a second add finds it."""
    before = nf.snapshot()
    props, _ = nf.agent_event(bdi)
    check_props(f"agent add {bdi}", props, {"CLASS": klass, "PREVIOUS_KB": previous,
                                            "TARGET_KB": str(target), "RESULT": "written",
                                            "WAIT": None})
    nf.rule_is(f"agent add {bdi}: READAHEAD_RULE", props.get("READAHEAD_RULE"), rule)
    check_eq(f"{bdi}/read_ahead_kb after the agent", str(target), nf.bdi_ra(bdi))
    nf.check_sys_changes(f"agent add {bdi}", before, allowed=[bdi])
    props, _ = nf.agent_event(bdi)
    check_props(f"agent add {bdi} again", props, {"TARGET_KB": str(target), "RESULT": "unchanged"})


def ctl_ok(*args):
    rc, out, err, _ = nf.ctl(*args)
    print(f"---- readahead-ctl {' '.join(args)} ({ratest.describe_rc(rc)})")
    for line in (out + err).splitlines():
        print(f"     {line}")
    check_eq(f"readahead-ctl {' '.join(args)}: exit status", "exit 0", ratest.describe_rc(rc))
    return out


CASES = {}
case = ratest.case_decorator(CASES)


@case
def raid():
    """btrfs-raid tree, 16 GB host: raid10 over 8 SSD partitions (4 data
    devices: stripe 256K, 2 x 256 = 512), raid6 over the 8 other partitions (6
    data devices: stripe 384K, 768) and a single-device btrfs on a 1 GiB USB
    key (small-device cap 256)."""
    nf.set_meminfo(nf.MEM_16G_KB)
    btrfs_sysfs(FSID_POOL, "btrfs-1", [f"sd{c}1" for c in "abcdefgh"], "raid10")
    btrfs_sysfs(FSID_ARCHIVE, "btrfs-2", [f"sd{c}2" for c in "abcdefgh"], "raid6")
    btrfs_sysfs(FSID_KEY, "btrfs-3", ["sdi"], "single")
    set_mountinfo([POOL, POOL_HOME, ARCHIVE, KEY])

    doc = check_status({
        "btrfs-1": {"class": "raid", "transport": "ata", "fstype": "btrfs", "major": 0, "minor": 61,
                    "mount_point": "/srv/pool", "mount_points": 2, "source": "/dev/sda1",
                    "data_profile": "raid10", "device_count": 8, "rotational": False,
                    "size_bytes": 8 * SSD_P1_BYTES, "stripe_kb": 256, "target_kb": 512,
                    "current_kb": 4096, "drift": True, "rule_section": "raid"},
        "btrfs-2": {"class": "raid", "data_profile": "raid6", "device_count": 8, "mount_point": "/srv/archive",
                    "size_bytes": 8 * SSD_P2_BYTES, "stripe_kb": 384, "target_kb": 768,
                    "current_kb": 4096, "rule_section": "raid"},
        "btrfs-3": {"class": "removable", "transport": "usb", "removable": True, "rotational": True,
                    "data_profile": "single", "device_count": 1, "size_bytes": KEY_BYTES, "stripe_kb": None,
                    "target_kb": 256, "current_kb": 4096, "rule_section": "btrfs"},
    })
    if doc:
        pool = next((d for d in nf.mounts(doc) if d.get("name") == "btrfs-1"), {})
        members = pool.get("members") or []
        check_eq("status btrfs-1 members", [f"sd{c}1" for c in "abcdefgh"], [m.get("name") for m in members])
        check_eq("status btrfs-1 members' disks", [f"sd{c}" for c in "abcdefgh"], [m.get("disk") for m in members])
        check_eq("status btrfs-1 members' class", ["ssd"] * 8, [m.get("class") for m in members])
        check_eq("status btrfs-1 member size_bytes", SSD_P1_BYTES, members[0].get("size_bytes") if members else None)
        # The disks themselves are listed as disks, each once.
        blocks = sorted(d.get("name") for d in doc.get("devices", []) if d.get("kind") == "block")
        check_eq("status: whole disks listed", [f"sd{c}" for c in "abcdefghi"], blocks)

    # By bdi, by either mount point of the superblock, by its device number.
    for what in ("btrfs-1", "/srv/pool", "/srv/pool-home", "0:61"):
        check_explain(what, {"device.name": "btrfs-1", "facts.data_disks": 4, "facts.chunk_kb": 64,
                             "facts.stripe_source": "btrfs", "rule_kb": 512, "target_kb": 512},
                      {"btrfs": "overridden", "raid": "matched", "disk": "no-match"})
    check_explain("/srv/archive", {"device.name": "btrfs-2", "facts.data_disks": 6, "rule_kb": 768,
                                   "target_kb": 768}, {"raid": "matched"})
    check_explain("/media/key", {"device.name": "btrfs-3", "rule_kb": 512, "caps.device_cap_kb": 256,
                                 "target_kb": 256}, {"btrfs": "matched", "raid": "no-match"})
    rc, out, _, _ = nf.ctl("explain", "/srv/pool")
    for want in ("raid10 over 8 device(s)", "sda1 on sda: ssd, ata", "stripe         256K = 64K x 4"):
        if want in out:
            ok(f"explain /srv/pool (text) shows '{want}'")
        else:
            fail("explain /srv/pool (text)", want, out)

    agent_writes("btrfs-2", 768, "raid", "raid")
    agent_writes("btrfs-3", 256, "removable", "btrfs")
    check_eq("sdi/queue/read_ahead_kb (the key itself, not its filesystem)", "128", block_ra("sdi"))

    # reset: btrfs's own max(4 MiB, 128 KiB x 8) = 4096; apply puts 768 back.
    ctl_ok("reset", "/srv/archive")
    check_eq("btrfs-2/read_ahead_kb after reset", "4096", nf.bdi_ra("btrfs-2"))
    ctl_ok("apply", "btrfs-2")
    check_eq("btrfs-2/read_ahead_kb after apply", "768", nf.bdi_ra("btrfs-2"))


@case
def mount_later():
    """btrfs-raid tree: the bdi add event comes during mount(2), before btrfs
    links /sys/fs/btrfs/<fsid>/bdi and before the mount is in mountinfo. The
    agent returns at once (pending), its detached waiter sets 512 once the
    mount is complete, and leaves the other filesystems alone."""
    nf.set_meminfo(nf.MEM_16G_KB)
    btrfs_sysfs(FSID_POOL, "btrfs-1", [f"sd{c}1" for c in "abcdefgh"], "raid10", link_bdi=False)
    btrfs_sysfs(FSID_KEY, "btrfs-3", ["sdi"], "single")
    set_mountinfo([KEY])
    props, secs = nf.agent_event("btrfs-1")
    check_props("agent add btrfs-1 (mount not complete)", props,
                {"RESULT": "pending", "TARGET_KB": None, "CLASS": None})
    if secs < nf.PENDING_MAX_S:
        ok(f"agent returned in {secs * 1000:.0f} ms: the udev worker does not wait")
    else:
        fail("agent returns at once", f"< {nf.PENDING_MAX_S} s", f"{secs:.1f} s")
    if props.get("READAHEAD_WAIT") == "process":
        if ratest.wait_until(lambda: nf.waiter_pids("btrfs-1"), 3):
            ok("a detached waiter runs for btrfs-1")
        else:
            fail("a detached `--wait-bdi btrfs-1` runs", "a process", "none found within 3 s")
        waiter = None
    else:
        check_eq("READAHEAD_WAIT (systemd runs here)", "systemd", props.get("READAHEAD_WAIT"))
        waiter = subprocess.Popen([os.environ["RA_AGENT"], "--wait-bdi", "btrfs-1", "--root",
                                   os.environ["RA_NETFS_ROOT"]], env=ratest.sanitizer_env(dict(os.environ)),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    check_eq("btrfs-1/read_ahead_kb while mounting", "4096", nf.bdi_ra("btrfs-1"))
    link_btrfs_bdi(FSID_POOL, "btrfs-1")
    time.sleep(0.3)
    check_eq("btrfs-1/read_ahead_kb: linked, not in mountinfo yet", "4096", nf.bdi_ra("btrfs-1"))
    t0 = time.monotonic()
    set_mountinfo([KEY, POOL])
    if ratest.wait_until(lambda: nf.bdi_ra("btrfs-1") == "512", 10):
        ok(f"btrfs-1/read_ahead_kb = 512, {(time.monotonic() - t0) * 1000:.0f} ms after the mount appeared")
    else:
        fail("btrfs-1/read_ahead_kb set once the mount is complete (within 10 s)", "512", nf.bdi_ra("btrfs-1"))
    if waiter:
        try:
            waiter.communicate(timeout=10)
            check_eq("--wait-bdi btrfs-1: exit status", 0, waiter.returncode)
        except subprocess.TimeoutExpired:
            waiter.kill()
            fail("--wait-bdi btrfs-1 exits", "exit 0", "still running after 10 s")
    elif ratest.wait_until(lambda: not nf.waiter_pids("btrfs-1"), 5):
        ok("the waiter exited (after its checks that the value stays)")
    else:
        fail("the waiter exits", "no process", nf.waiter_pids("btrfs-1"))
    check_eq("btrfs-3/read_ahead_kb (another filesystem)", "4096", nf.bdi_ra("btrfs-3"))
    check_eq("btrfs-2/read_ahead_kb (not mounted)", "4096", nf.bdi_ra("btrfs-2"))
    check_eq("sda/queue/read_ahead_kb (a member disk)", "128", block_ra("sda"))
    check_status({"btrfs-1": {"target_kb": 512, "current_kb": 512, "drift": False},
                  "btrfs-3": {"target_kb": 256, "current_kb": 4096}}, label="status after")


@case
def small_host():
    """btrfs-small-host tree, MemTotal 250000 kB (memory cap 256): the root
    btrfs on nvme0n1p2, mounted twice (subvolumes / and /home), gets
    min(512, 256) = 256. An erofs mounted from a file and a vboxsf share are listed, not settable. bdi btrfs-2 belongs to no filesystem (a mount that
    failed): with MountWaitSec=1 the waiter gives up and writes nothing."""
    nf.set_meminfo(nf.MEM_256M_KB)
    btrfs_sysfs(FSID_ROOT, "btrfs-1", ["nvme0n1p2"], "single")
    root = btrfs_line(30, "0:30", "/@", "/", "/dev/nvme0n1p2", 256, "/@")
    home = btrfs_line(31, "0:30", "/@home", "/home", "/dev/nvme0n1p2", 257, "/@home")
    # erofs mounted from a file registers its own bdi (erofs-N) too, and
    # nothing links it to the mount: listed, not settable.
    erofs = "40 27 0:40 / /opt/app ro,relatime shared:40 - erofs /var/lib/app.erofs ro,user_xattr,acl"
    vboxsf = "41 27 0:41 / /media/sf_share rw,nodev,relatime shared:41 - vboxsf share rw"
    set_mountinfo([root, home, erofs, vboxsf])
    nf.root_dropin("readahead.conf.d/50-wait.conf", "[Agent]\nMountWaitSec=1\n")
    check_status({"btrfs-1": {"class": "ssd", "transport": "nvme", "mount_point": "/", "mount_points": 2,
                              "size_bytes": NVME_P2_BYTES, "data_profile": "single", "device_count": 1,
                              "target_kb": 256, "current_kb": 4096, "rule_section": "btrfs"},
                  "0:40": {"fstype": "erofs", "mount_point": "/opt/app", "target_kb": None,
                           "current_kb": None},
                  "0:41": {"fstype": "vboxsf", "target_kb": None, "current_kb": None}},
                 mem_total_kb=nf.MEM_256M_KB, memory_cap_kb=256)
    check_explain("/home", {"device.name": "btrfs-1", "rule_kb": 512, "caps.memory_cap_kb": 256,
                            "target_kb": 256}, {"btrfs": "matched"})
    agent_writes("btrfs-1", 256, "ssd", "btrfs")
    check_explain("/opt/app", {"device.name": "0:40", "device.fstype": "erofs", "target_kb": None})
    out = ctl_ok("apply", "/opt/app")
    if "not settable" in out:
        ok("apply /opt/app says the erofs mount is not settable")
    else:
        fail("apply /opt/app (erofs from a file)", "'not settable'", out)

    before = nf.snapshot()
    props, _ = nf.agent_event("btrfs-2")
    check_props("agent add btrfs-2 (no filesystem links it)", props, {"RESULT": "pending", "TARGET_KB": None})
    if props.get("READAHEAD_WAIT") == "process":
        if ratest.wait_until(lambda: not nf.waiter_pids("btrfs-2"), 5):
            ok("the waiter for btrfs-2 gave up within 5 s (MountWaitSec=1)")
        else:
            fail("the waiter for btrfs-2 gives up", "gone within 5 s", nf.waiter_pids("btrfs-2"))
    check_eq("btrfs-2/read_ahead_kb", "4096", nf.bdi_ra("btrfs-2"))
    nf.check_sys_changes("agent add btrfs-2 and its waiter", before)
    rc, _, err, secs = ratest.run([os.environ["RA_AGENT"], "--wait-bdi", "btrfs-2", "--root",
                               os.environ["RA_NETFS_ROOT"]], ratest.sanitizer_env(dict(os.environ)), 15)
    check_eq("--wait-bdi btrfs-2 gives up: exit status", "exit 1", ratest.describe_rc(rc))
    rc, _, _, _ = ratest.run([os.environ["RA_AGENT"], "--wait-bdi", "btrfs-x", "--root",
                          os.environ["RA_NETFS_ROOT"]], ratest.sanitizer_env(dict(os.environ)), 15)
    check_eq("--wait-bdi btrfs-x is a usage error", "exit 2", ratest.describe_rc(rc))


def main():
    ratest.case_main("btrfs", CASES, lambda: ratest.kill_waiters(("btrfs-1", "btrfs-2", "btrfs-3"),
                                                                  os.environ["RA_NETFS_ROOT"]))


if __name__ == "__main__":
    main()
