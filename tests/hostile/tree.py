#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the umockdev tree of the hostile-input cases to stdout (bytes: some
values are not UTF-8 on purpose). Generated rather than checked in, so that
the sizes that matter (a sysfs path over 256 bytes, 200 udev
properties) are computed and asserted here, next to why they matter.

Devices (see README.md for what each case expects of them):
  bdis 0:53 .. 0:56 at 128, cifs-1 at 8192     network and FUSE mounts
  sdq    a disk behind seven nested SAS expanders: sysfs path > 256 bytes
  sdr    size = 2^55 + 1 sectors (2^64 + 512 bytes)
  md126  raid5 of 4, chunk_size = 2^62
  md127  raid5 of 2^32 + 4 disks, chunk 512K
  sdt    200 udev properties of 100 bytes each (A_PAD_*: first in any
         order, inserted or sorted), then ID_BUS, ID_PATH, ID_WWN
  sdu    model with ESC/OSC sequences and a C1 CSI (U+009B); an 80-character
         Cyrillic filesystem label
"""

import sys

SAS_PATH = ("/devices/pci0000:00/0000:00:03.0/0000:02:00.0/host0/port-0:0/expander-0:0/"
            "port-0:0:0/expander-0:1/port-0:1:0/expander-0:2/port-0:2:0/expander-0:3/"
            "port-0:3:0/expander-0:4/port-0:4:0/expander-0:5/port-0:5:0/expander-0:6/"
            "port-0:6:0/end_device-0:6:0/target0:0:0/0:0:0:0/block/sdq")
# The old fixed buffers: "/sys" + path + "/queue/read_ahead_kb" in 256 bytes.
assert len("/sys" + SAS_PATH + "/queue/read_ahead_kb") > 256, len(SAS_PATH)

# umockdev reads its records as UTF-8: invalid bytes come through mountinfo.
HOSTILE_MODEL = "\x1b]0;owned\x07\x1b[2J\x1b[31mEvil\u009b2JDisk".encode()
CYRILLIC_LABEL = ("\u0416" * 80).encode()  # 80 characters, 160 bytes
assert len(CYRILLIC_LABEL) == 160

PAD_PROPS = 200  # more than the old 96 entries
PAD_VALUE = "p" * 100
assert PAD_PROPS * (len(PAD_VALUE) + 16) > 16384  # beyond the old 16 KiB


def block(devpath, name, major, minor, size, props=(), attrs=(), rotational=1):
    lines = [f"P: {devpath}", f"N: {name}", f"E: DEVNAME=/dev/{name}", "E: DEVTYPE=disk",
             f"E: MAJOR={major}", f"E: MINOR={minor}", "E: SUBSYSTEM=block"]
    out = [l.encode() for l in lines]
    out += [b"E: " + (p if isinstance(p, bytes) else p.encode()) for p in props]
    a = [f"dev={major}:{minor}", "removable=0", "ro=0", f"size={size}",
         "queue/hw_sector_size=512", "queue/logical_block_size=512",
         "queue/physical_block_size=4096", "queue/minimum_io_size=4096",
         "queue/optimal_io_size=0", "queue/max_sectors_kb=1280", "queue/read_ahead_kb=128",
         f"queue/rotational={rotational}"] + list(attrs)
    out += [f"A: {x}\\n".encode() for x in a]
    # and its bdi, whose read_ahead_kb is the one the product reads and writes
    return b"\n".join(out) + b"\n\n" + bdi(f"{major}:{minor}", 128)


def bdi(name, ra):
    return f"P: /devices/virtual/bdi/{name}\nE: SUBSYSTEM=bdi\nA: read_ahead_kb={ra}\n".encode()


def md(name, minor, raid_disks, chunk):
    return block(f"/devices/virtual/block/{name}", name, 9, minor, 23441313792,
                 props=["MD_LEVEL=raid5", "MD_METADATA=1.2"],
                 attrs=["md/level=raid5", f"md/raid_disks={raid_disks}", f"md/chunk_size={chunk}",
                        "md/layout=2"])


def main():
    parts = [bdi(b, 128) for b in ("0:53", "0:54", "0:55", "0:56")] + [bdi("cifs-1", 8192)]
    parts.append(block(SAS_PATH, "sdq", 65, 0, 7814037168,
                       props=["ID_BUS=scsi", "ID_PATH=pci-0000:02:00.0-sas-exp0x500605b0000272bf-phy4-lun-0"]))
    parts.append(block("/devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sdr",
                       "sdr", 65, 16, 2**55 + 1, props=["ID_BUS=ata"]))
    parts.append(md("md126", 126, 4, 2**62))
    parts.append(md("md127", 127, 2**32 + 4, 524288))
    pads = [f"A_PAD_{i:03d}={PAD_VALUE}" for i in range(PAD_PROPS)]
    parts.append(block("/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdt",
                       "sdt", 65, 48, 3907029168,
                       props=pads + ["ID_BUS=usb", "ID_PATH=pci-0000:00:14.0-usb-0:1:1.0-scsi-0:0:0:0",
                                     "ID_WWN=0x5000c500a1b2c3d4"]))
    parts.append(block("/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sdu",
                       "sdu", 65, 64, 1953525168, rotational=0,
                       props=[b"ID_BUS=ata", b"ID_MODEL=" + HOSTILE_MODEL,
                              b"ID_FS_LABEL=" + CYRILLIC_LABEL]))
    sys.stdout.buffer.write(b"\n".join(parts))


if __name__ == "__main__":
    main()
