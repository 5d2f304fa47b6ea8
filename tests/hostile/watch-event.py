#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""watch-metrics.sh's event-while-hung case: run under umockdev-wrapper, so
that this process owns the testbed and can send it a uevent (umockdev-run
offers no way to). Usage: watch-event.py TREE LOG CTL_PIDS AGENT ARGS...

Starts AGENT ARGS... (--watch with a readahead-ctl stub that never exits and
writes its pid to CTL_PIDS) in a testbed loaded from TREE, its stderr to LOG.
While the stub runs, mmcblk0's read_ahead_kb is changed behind the agent's
back and a change event sent: the agent must set it back at once (it serves
events while readahead-ctl runs), then stop within a second of SIGTERM.
"""

import glob
import os
import subprocess
import sys
import time

import gi

gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402

tree, log_path, pids_path, *agent = sys.argv[1:]
failed = False


def check(what, good, detail=""):
    global failed
    print(f"ok: {what}" if good else f"FAIL: {what}{': ' + detail if detail else ''}", flush=True)
    failed |= not good


def wait_for(seconds, pred):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def logged(text):
    with open(log_path, encoding="utf-8", errors="replace") as f:
        return text in f.read()


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


testbed = UMockdev.Testbed.new()
testbed.add_from_file(tree)
sys_dir = testbed.get_sys_dir()
# (os.walk, not a recursive glob: sysfs's links make cycles.)
disk = next(root for root, _, _ in os.walk(sys_dir + "/devices") if root.endswith("/block/mmcblk0"))

with open(log_path, "w") as log:
    agent_proc = subprocess.Popen(agent, stderr=log)
check("the agent starts while readahead-ctl hangs", wait_for(10, lambda: logged("watching:")))
check("readahead-ctl runs", wait_for(5, lambda: os.path.getsize(pids_path) > 0 if os.path.exists(pids_path) else False))
with open(pids_path) as f:
    ctl_pid = int(f.read().split()[0])

# Drift behind the agent's back, on the queue and on the bdi it writes through.
for attr in [disk + "/queue/read_ahead_kb"] + glob.glob(sys_dir + "/devices/virtual/bdi/179:0/read_ahead_kb"):
    with open(attr, "w") as f:
        f.write("4096\n")
t0 = time.monotonic()
testbed.uevent(disk[len(sys_dir) - len("/sys"):], "change")
set_back = wait_for(2, lambda: logged("mmcblk0: read_ahead_kb 4096 -> 64"))
check("a change event is served while readahead-ctl hangs",
      set_back and alive(ctl_pid), f"set back: {set_back}, readahead-ctl {ctl_pid} running: {alive(ctl_pid)}")
if set_back:
    print(f"    set back {(time.monotonic() - t0) * 1000:.0f} ms after the event", flush=True)

agent_proc.terminate()
try:
    agent_proc.wait(timeout=1)
    check("the agent stops within a second of SIGTERM", True)
except subprocess.TimeoutExpired:
    check("the agent stops within a second of SIGTERM", False)
    agent_proc.kill()
    agent_proc.wait()
if alive(ctl_pid):
    os.kill(ctl_pid, 9)
sys.exit(1 if failed else 0)
