# SPDX-License-Identifier: MIT
"""Sends an event, any properties at all, to every libudev monitor of the
umockdev testbed: what readahead-agent --watch receives from udevd, forged
as a hostile sender on the socket could forge it.

umockdev's preload library binds each monitor's netlink socket to a Unix
socket $UMOCKDEV_DIR/event<fd> and makes what arrives there look as sent by
udevd (uid 0, the udev group); its own sender (umockdev_testbed_uevent)
takes DEVPATH from the testbed, so it cannot send a DEVPATH with ".." or
one device's path with another's numbers. This writes the same message
(libudev's monitor header, then KEY=VALUE\\0 properties) with the
properties given, exactly.
"""

import glob
import os
import socket
import struct

UDEV_MONITOR_MAGIC = 0xfeedcafe
HEADER = "=8sIIIIIIII"  # prefix, magic, header size, properties offset and length, 2 hashes, bloom hi, lo


def murmur_hash2(data):
    """The subsystem and devtype hashes the monitor's socket filter compares
    (MurmurHash2, seed = length, as libudev and umockdev compute them)."""
    m = 0x5bd1e995
    h = len(data)
    i = 0
    while len(data) - i >= 4:
        k = struct.unpack_from("<I", data, i)[0]
        k = (k * m) & 0xffffffff
        k ^= k >> 24
        k = (k * m) & 0xffffffff
        h = ((h * m) & 0xffffffff) ^ k
        i += 4
    rest = data[i:]
    if len(rest) == 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if rest:
        h ^= rest[0]
        h = (h * m) & 0xffffffff
    h ^= h >> 13
    h = (h * m) & 0xffffffff
    h ^= h >> 15
    return h


def message(props):
    """props: [(KEY, value)] in order; ACTION, DEVPATH, SUBSYSTEM and SEQNUM
    are needed for libudev to take the event at all."""
    body = b"".join(k.encode() + b"=" + (v if isinstance(v, bytes) else v.encode()) + b"\0" for k, v in props)
    d = dict(props)
    subsystem = d.get("SUBSYSTEM", "").encode()
    devtype = d.get("DEVTYPE")
    size = struct.calcsize(HEADER)
    header = struct.pack(HEADER, b"libudev\0", socket.htonl(UDEV_MONITOR_MAGIC), size, size, len(body),
                         socket.htonl(murmur_hash2(subsystem)),
                         socket.htonl(murmur_hash2(devtype.encode())) if devtype else 0, 0, 0)
    return header + body


def send(props):
    """Sends to every monitor listening in the testbed; how many got it."""
    data = message(props)
    sent = 0
    for path in glob.glob(os.environ["UMOCKDEV_DIR"] + "/event[0-9]*"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_RAW)
        try:
            s.connect(path)
            s.send(data)
            sent += 1
        except ConnectionRefusedError:
            pass  # a monitor closed since
        finally:
            s.close()
    return sent
