#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the umockdev tree of the devices cases to stdout. Each block
device has its bdi (/sys/class/bdi/MAJ:MIN), as the kernel gives it, at the
value of its queue/read_ahead_kb: the two are one setting in the kernel,
two plain files here, which shows which one the product writes.

Devices (see README.md for what each case expects of them):
  bdi 0:53      an NFS mount (mountinfo from tests/netfs/check.py)
  sda   8:0     a 1 TB SATA disk, rotational
  sdb   8:16    a SATA SSD whose queue/ has no read_ahead_kb: only the bdi
  sdc   8:32    a disk behind a USB bridge reporting io_opt 65535 sectors
  nvme0n1 259:0 QEMU's NVMe disk: io_opt 512, the logical block
  zram1 252:1   zram with 4096-byte blocks and io_opt 4096 (sized)
  loop0 7:0     an empty loop device (size 0)
  zram0 252:0   zram before it is sized (size 0)
"""

import sys


def block(devpath, name, major, minor, size, props=(), attrs=(), ra=128, queue_ra=True):
    lines = [f"P: {devpath}", f"N: {name}", f"E: DEVNAME=/dev/{name}", "E: DEVTYPE=disk",
             f"E: MAJOR={major}", f"E: MINOR={minor}", "E: SUBSYSTEM=block"]
    lines += [f"E: {p}" for p in props]
    a = {"dev": f"{major}:{minor}", "removable": "0", "ro": "0", "size": str(size),
         "queue/logical_block_size": "512", "queue/physical_block_size": "4096",
         "queue/minimum_io_size": "4096", "queue/optimal_io_size": "0",
         "queue/max_sectors_kb": "1280", "queue/rotational": "1"}
    if queue_ra:
        a["queue/read_ahead_kb"] = str(ra)
    a.update(dict(x.split("=", 1) for x in attrs))
    lines += [f"A: {k}={v}\\n" for k, v in a.items()]
    return "\n".join(lines) + "\n\n" + bdi(f"{major}:{minor}", ra)


def bdi(name, ra):
    return f"P: /devices/virtual/bdi/{name}\nE: SUBSYSTEM=bdi\nA: read_ahead_kb={ra}\\n\n"


def main():
    ata = "/devices/pci0000:00/0000:00:17.0/ata{0}/host{1}/target{1}:0:0/{1}:0:0:0/block/{2}"
    parts = [bdi("0:53", 128)]
    parts.append(block(ata.format(1, 0, "sda"), "sda", 8, 0, 1953525168,
                       props=["ID_BUS=ata", "ID_SERIAL=WDC_WD10EZEX_WD-WCC6Y7KP4192"]))
    parts.append(block(ata.format(2, 1, "sdb"), "sdb", 8, 16, 976773168, queue_ra=False,
                       props=["ID_BUS=ata", "ID_SERIAL=Samsung_SSD_860_S3Z9NB0K123456"],
                       attrs=["queue/rotational=0"]))
    parts.append(block("/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdc",
                       "sdc", 8, 32, 3907029168,
                       props=["ID_BUS=usb", "ID_PATH=pci-0000:00:14.0-usb-0:1:1.0-scsi-0:0:0:0"],
                       attrs=["queue/minimum_io_size=512", "queue/optimal_io_size=33553920"]))
    parts.append(block("/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "nvme0n1", 259, 0, 209715200,
                       props=["ID_BUS=nvme"],
                       attrs=["queue/physical_block_size=512", "queue/minimum_io_size=512",
                              "queue/optimal_io_size=512", "queue/rotational=0"]))
    parts.append(block("/devices/virtual/block/zram1", "zram1", 252, 1, 8388608,
                       attrs=["queue/logical_block_size=4096", "queue/optimal_io_size=4096",
                              "queue/rotational=0"]))
    parts.append(block("/devices/virtual/block/loop0", "loop0", 7, 0, 0, attrs=["queue/rotational=0"]))
    parts.append(block("/devices/virtual/block/zram0", "zram0", 252, 0, 0,
                       attrs=["queue/logical_block_size=4096", "queue/optimal_io_size=4096",
                              "queue/rotational=0"]))
    sys.stdout.write("\n".join(parts))


if __name__ == "__main__":
    main()
