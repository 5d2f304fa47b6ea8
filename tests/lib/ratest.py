# SPDX-License-Identifier: MIT
"""Helpers shared by the umockdev, netfs, hostile and btrfs checks: results,
running the built programs, and finding this test's mount waiters.

A check script finds this module with
    sys.path.insert(0, os.path.join(HERE, "..", "lib"))
"""

import json
import os
import signal
import subprocess
import sys
import time

# Every failed check, by name: a script ends with report(), which exits 1 if
# any failed. Checks keep going after a failure, so one run shows them all.
failures = []


def fail(what, expected, got):
    failures.append(what)
    print(f"FAIL: {what}\n      expected: {expected}\n      got:      {got}")


def ok(what):
    print(f"ok:   {what}")


def check_eq(what, expected, got):
    if expected == got:
        ok(f"{what} = {json.dumps(got)}")
        return True
    fail(what, json.dumps(expected), json.dumps(got))
    return False


def die(msg):
    print(f"ERROR: {msg}")
    sys.exit(1)


def report(label):
    """Prints the failed checks and exits 1, or says all passed."""
    if failures:
        print(f"\n{label}: {len(failures)} check(s) failed:")
        for f in failures:
            print(f"  - {f}")
        sys.exit(1)
    print(f"\n{label}: all checks passed")


# ------------------------------------------------------------------ commands

def sanitizer_env(env):
    """ASan must tolerate umockdev's preload library loading before it."""
    a = env.get("ASAN_OPTIONS", "")
    if "verify_asan_link_order" not in a:
        env["ASAN_OPTIONS"] = (a + ":" if a else "") + "verify_asan_link_order=0"
    return env


def testbed_env(env):
    """env for a program run in the testbed as udev runs it: plus what
    umockdev and the sanitizers need from this process's environment."""
    for k in ("LD_PRELOAD", "UMOCKDEV_DIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    return sanitizer_env(env)


AGENT_LINE_PREFIX = "READAHEAD_"


def parse_agent_lines(label, out):
    """The agent's stdout, READAHEAD_*=VALUE lines only, each key once: a
    {KEY: VALUE} dict; every other line is a failure."""
    props = {}
    for line in out.splitlines():
        k, eq, v = line.partition("=")
        if (not eq or not k.startswith(AGENT_LINE_PREFIX) or not k.replace("_", "").isalnum()
                or not k.isupper()):
            fail(f"{label}: stdout is READAHEAD_*=VALUE lines only", "KEY=VALUE", repr(line))
            continue
        if k in props:
            fail(f"{label}: {k} printed once", "one line", f"{props[k]!r} and {v!r}")
        props[k] = v
    return props


def parse_umockdev(path, raw_values=False):
    """The devices of a .umockdev record file, by kernel name (N:, else the
    devpath's last part): {"devpath", "name", "props": [(k, v)], "links",
    "attrs"}; with raw_values, property values stay bytes (a hostile tree's
    are not text)."""
    devices = {}
    with open(path, "rb") as f:
        blocks = f.read().split(b"\n\n")
    for block in blocks:
        dev = {"props": [], "links": [], "attrs": {}}
        for line in block.split(b"\n"):
            kind, _, rest = line.partition(b": ")
            if kind == b"E":
                k, _, v = rest.partition(b"=")
                dev["props"].append((k.decode(), v if raw_values else v.decode()))
                continue
            text = rest.decode(errors="surrogateescape")
            if kind == b"P":
                dev["devpath"] = text
            elif kind == b"N":
                dev["name"] = text
            elif kind == b"S":
                dev["links"].append(text)
            elif kind == b"A":
                k, _, v = text.partition("=")
                dev["attrs"][k] = v
        if "devpath" in dev:
            dev.setdefault("name", os.path.basename(dev["devpath"]))
            devices[dev["name"]] = dev
    return devices


def run(argv, env=None, timeout=60):
    """(rc, stdout, stderr, seconds) as text; rc None on timeout."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, f"timed out after {timeout} s", timeout
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def run_bytes(argv, env=None, timeout=60):
    """(rc, stdout bytes, stderr bytes, seconds); rc None on timeout. The
    environment gets sanitizer_env()."""
    env = sanitizer_env(dict(env if env is not None else os.environ))
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b"", timeout
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def describe_rc(rc):
    if rc is None:
        return "timeout"
    if rc < 0:
        return f"killed by signal {signal.Signals(-rc).name}"
    return f"exit {rc}"


def wait_until(pred, seconds, step=0.05):
    """pred()'s first true value, or its last false one after seconds."""
    deadline = time.monotonic() + seconds
    while True:
        v = pred()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(step)


# ------------------------------------------------------------------ waiters

def waiter_pids(bdi, root):
    """`readahead-agent --wait-bdi BDI ... --root ROOT` processes of this test
    only (ROOT is the test's private copy), whatever other options
    (--dry-run) stand between."""
    want_bdi, want_root = bdi.encode(), root.encode()
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                argv = [a for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        args = argv[1:]
        pairs = set(zip(args, args[1:]))
        if (b"--wait-bdi", want_bdi) in pairs and (b"--root", want_root) in pairs:
            pids.append(int(p))
    return pids


def kill_waiters(bdis, root):
    """Waiters this test started that are still running (after a failure)."""
    for bdi in bdis:
        for pid in waiter_pids(bdi, root):
            print(f"cleanup: killing leftover waiter {pid} for {bdi}")
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


# ------------------------------------------------------------------ cases

def netfs_root():
    """The private copy of the test configuration root a umockdev case runs
    readahead-ctl against (tests/lib/umockdev-case.sh sets it)."""
    return os.environ["RA_NETFS_ROOT"]


def ctl(*args, timeout=120):
    """readahead-ctl with the case's root: (rc, out, err, ...) as bytes."""
    return run_bytes([os.environ["RA_CTL"], "--root", netfs_root(), *args], timeout=timeout)


def show(label, rc, out, err):
    """A command's output for the log, indented, at most 60 lines."""
    print(f"---- {label} ({describe_rc(rc)})")
    for line in (out + err).decode(errors="backslashreplace").splitlines()[:60]:
        print(f"     {line}")


def ctl_json(label, *args, decode=None):
    """readahead-ctl ARGS (ctl()) that must exit 0 and print JSON: the
    document, or None after a failure. decode(out) turns stdout into text,
    None when it failed (default: bytes as they are)."""
    rc, out, err, _ = ctl(*args)
    if rc != 0:
        show(label, rc, out, err)
        fail(label, "exit 0", describe_rc(rc))
        return None
    text = decode(out) if decode else out
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as e:
        fail(f"{label} is JSON", "JSON", f"{e}: {text[:300]!r}")
        return None


def device(doc, name):
    """The device called name in a status --json document, or None."""
    return next((d for d in (doc or {}).get("devices", []) if d.get("name") == name), None)


def case_decorator(cases):
    """@case registers a function in cases under its name with dashes."""
    def case(fn):
        cases[fn.__name__.replace("_", "-")] = fn
        return fn
    return case


def case_main(suite, cases, cleanup):
    """Runs the case named by argv[1], then cleanup(), then report()."""
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        die(f"usage: check.py CASE; cases: {' '.join(cases)}")
    name = sys.argv[1]
    print(f"== {suite}-{name}:\n   " + " ".join(cases[name].__doc__.split()))
    try:
        cases[name]()
    finally:
        cleanup()
    report(f"{suite}-{name}")
