#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the umockdev tree of the status-table tests to stdout: md0 (raid1)
over the partitions sda1 and sdb1, dm-0 (LVM) over md0, sdc alone, and the
bdi 0:56 of a FUSE mount (its mount point comes from mountinfo, check.py)."""

ATA = "/devices/pci0000:00/0000:00:17.0/ata{n}/host{h}/target{h}:0:0/{h}:0:0:0/block/{name}"
GIB = 1024 ** 3
DISK_BYTES = 1024 * GIB  # large enough for no small-device cap: 512K everywhere


def queue(ra_kb=128, rotational=1):
    return [
        "A: queue/hw_sector_size=512\\n",
        "A: queue/logical_block_size=512\\n",
        "A: queue/physical_block_size=4096\\n",
        "A: queue/minimum_io_size=4096\\n",
        "A: queue/optimal_io_size=0\\n",
        "A: queue/max_hw_sectors_kb=1280\\n",
        "A: queue/max_sectors_kb=1280\\n",
        f"A: queue/read_ahead_kb={ra_kb}\\n",
        f"A: queue/rotational={rotational}\\n",
    ]


def record(path, name, major, minor, devtype, props, attrs):
    lines = [f"P: {path}", f"N: {name}", f"E: DEVNAME=/dev/{name}", f"E: DEVTYPE={devtype}",
             f"E: MAJOR={major}", f"E: MINOR={minor}", "E: SUBSYSTEM=block"]
    lines += [f"E: {p}" for p in props]
    lines += [f"A: dev={major}:{minor}\\n"] + attrs
    return "\n".join(lines) + "\n"


def disk(n, letter, with_partition):
    name = f"sd{letter}"
    path = ATA.format(n=n, h=n - 1, name=name)
    minor = (n - 1) * 16
    out = [record(path, name, 8, minor, "disk",
                  ["ID_BUS=ata", f"ID_MODEL=WDC_WD20EFRX-{n}", f"ID_SERIAL=WDC_WD20EFRX_{n}"],
                  ["A: removable=0\\n", f"A: size={DISK_BYTES // 512}\\n"] + queue())]
    if with_partition:
        out.append(record(f"{path}/{name}1", f"{name}1", 8, minor + 1, "partition",
                          ["ID_FS_TYPE=linux_raid_member"],
                          ["A: partition=1\\n", f"A: size={DISK_BYTES // 512 - 2048}\\n", "A: start=2048\\n"]))
    return out, path


def main():
    recs = []
    sda, sda_path = disk(1, "a", True)
    sdb, sdb_path = disk(2, "b", True)
    sdc, _ = disk(3, "c", False)
    recs += sda + sdb + sdc
    # md0 over the two partitions, listed sdb1 first: the parent is the first by name.
    up = "../../../.."
    recs.append(record("/devices/virtual/block/md0", "md0", 9, 0, "disk",
                       ["MD_LEVEL=raid1", "MD_DEVICES=2"],
                       ["A: removable=0\\n", f"A: size={DISK_BYTES // 512 - 4096}\\n",
                        "A: md/level=raid1\\n", "A: md/raid_disks=2\\n", "A: md/chunk_size=0\\n",
                        "A: md/layout=0\\n"] + queue() +
                       [f"L: slaves/sdb1={up}{sdb_path[len('/devices'):]}/sdb1",
                        f"L: slaves/sda1={up}{sda_path[len('/devices'):]}/sda1"]))
    recs.append(record("/devices/virtual/block/dm-0", "dm-0", 253, 0, "disk",
                       ["DM_NAME=vg0-data", "DM_UUID=LVM-Xq3dVfc8Jt1K0R8B2w7QhJmV2y9cSe4nZr6TgUkBf1pWx3LqYs5Do0Ae7Hi9Mk2N",
                        "DM_SUSPENDED=0"],
                       ["A: removable=0\\n", f"A: size={DISK_BYTES // 1024}\\n", "A: dm/name=vg0-data\\n",
                        "A: dm/uuid=LVM-Xq3dVfc8Jt1K0R8B2w7QhJmV2y9cSe4nZr6TgUkBf1pWx3LqYs5Do0Ae7Hi9Mk2N\\n",
                        "A: dm/suspended=0\\n"] + queue() + ["L: slaves/md0=../../md0"]))
    # Each disk's bdi: its read_ahead_kb is the one the product reads and writes.
    for bdi in ("8:0", "8:16", "8:32", "9:0", "253:0", "0:56"):
        recs.append(f"P: /devices/virtual/bdi/{bdi}\nE: SUBSYSTEM=bdi\nA: read_ahead_kb=128\n")
    print("\n".join(recs), end="")


if __name__ == "__main__":
    main()
