#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""qmp-wakeup.py SOCKET LOG: wakes the guest each time it suspends to RAM.

A guest that enters S3 stays there until something wakes it: on real
hardware a key or the lid, here QEMU's `system_wakeup` command. This connects
to QEMU's QMP socket, asks `query-status` twice a second and, once the guest
reports "suspended", waits 2 s and sends `system_wakeup`. Every suspend and
wakeup is written to LOG with the host's time. Exits when QEMU goes away.
"""
import json
import socket
import sys
import time


def main():
    path, log_path = sys.argv[1], sys.argv[2]
    log = open(log_path, "a", buffering=1)
    for _ in range(600):  # QEMU creates the socket as it starts
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            break
        except OSError:
            time.sleep(0.1)
    else:
        log.write("no QMP socket at %s\n" % path)
        return 1
    f = s.makefile("rw")

    def command(name):
        f.write(json.dumps({"execute": name}) + "\n")
        f.flush()
        while True:  # events may come before the answer
            line = f.readline()
            if not line:
                raise EOFError
            msg = json.loads(line)
            if "return" in msg or "error" in msg:
                return msg

    f.readline()  # greeting
    command("qmp_capabilities")
    try:
        while True:
            status = command("query-status").get("return", {}).get("status")
            if status == "suspended":
                log.write("%.1f guest suspended; system_wakeup in 2 s\n" % time.time())
                time.sleep(2)
                log.write("%.1f system_wakeup: %s\n" % (time.time(), command("system_wakeup")))
            time.sleep(0.5)
    except (EOFError, OSError, ValueError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
