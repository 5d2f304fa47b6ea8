#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks one umockdev tree. Runs inside `umockdev-run -d TREE`, started by
run-tree.sh, with the tree's meminfo already at $UMOCKDEV_DIR/proc/meminfo.

  1. setup from trees.tsv (and /sys/block without partitions, as the kernel has it)
  2. `readahead-ctl --root ROOT status --json` against expected.tsv
  3. `readahead-ctl --root ROOT explain DEV --json` against explain.tsv
  4. the agent, once per agent.tsv row, with the event environment udev would
     give it, against its stdout and the testbed's /sys afterwards
  5. status again: current_kb must be what the testbed now holds

The expectations are numbers written down in the .tsv files: nothing here
computes a readahead value.
"""

import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ratest  # noqa: E402  (tests/lib/ratest.py)
from ratest import describe_rc, die, fail, ok, run, sanitizer_env  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TREES = os.path.join(HERE, "trees")
PAGE_KB = os.sysconf("SC_PAGESIZE") // 1024
AGENT_TIMEOUT = 10  # seconds; udev wants milliseconds, umockdev and sanitizers are slow


# ---------------------------------------------------------------- data files

def read_tsv(name, tree):
    path = os.path.join(HERE, name)
    header, rows = None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#tree\t"):
                header = line[1:].split("\t")
                continue
            if line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None or len(cells) != len(header):
                die(f"{path}: malformed line: {line!r}")
            row = dict(zip(header, cells))
            if row["tree"] == tree:
                rows.append(row)
    return rows


parse_tree = ratest.parse_umockdev


def prop(dev, key):
    for k, v in dev["props"]:
        if k == key:
            return v
    return None


# ---------------------------------------------------------------- matching

def cell_matches(cell, value):
    """A .tsv cell against a JSON value (or a stdout string, or None for absent)."""
    if cell == "*":
        return True
    for alt in cell.split("|"):
        if alt in ("null", "-"):
            if value is None:
                return True
        elif alt == "true":
            if value is True:
                return True
        elif alt == "false":
            if value is False:
                return True
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            if alt.isdigit() and int(alt) == value:
                return True
        elif isinstance(value, str):
            if alt == value:
                return True
    return False


def check(what, cell, value):
    if cell_matches(cell, value):
        ok(f"{what} = {json.dumps(value)}")
        return True
    fail(what, cell, json.dumps(value))
    return False


def rule_file_ok(path, root, vendor):
    want = vendor.rstrip("/") + "/profiles/default.conf"
    return path in (want, root.rstrip("/") + want)


# ---------------------------------------------------------------- testbed

def testbed():
    return os.environ["UMOCKDEV_DIR"]


def sys_path(devpath, rel=""):
    p = testbed() + "/sys" + devpath
    return p + "/" + rel if rel else p


def snapshot():
    """Everything below the testbed's /sys: files with content, links, dirs."""
    snap = {}
    base = testbed() + "/sys"
    for dirpath, dirnames, filenames in os.walk(base):
        for d in list(dirnames):
            p = os.path.join(dirpath, d)
            if os.path.islink(p):
                snap[p] = ("link", os.readlink(p))
                dirnames.remove(d)
            else:
                snap[p] = ("dir", None)
        for fn in filenames:
            p = os.path.join(dirpath, fn)
            if os.path.islink(p):
                snap[p] = ("link", os.readlink(p))
            else:
                try:
                    with open(p, "rb") as f:
                        snap[p] = ("file", f.read())
                except OSError as e:
                    snap[p] = ("error", str(e))
    return snap


def diff(before, after):
    changes = []
    for p in sorted(set(before) | set(after)):
        a, b = before.get(p), after.get(p)
        if a != b:
            rel = p[len(testbed()):]
            if a is None:
                changes.append(f"created {rel} {b[1]!r}")
            elif b is None:
                changes.append(f"removed {rel}")
            else:
                changes.append(f"changed {rel} {a[1]!r} -> {b[1]!r}")
    return changes


def bdi_devpath(dev):
    """The disk's bdi: its read_ahead_kb is the one the product writes (the
    kernel's queue/read_ahead_kb is the same setting; here a separate file,
    which must stay as it was)."""
    return f"/devices/virtual/bdi/{prop(dev, 'MAJOR')}:{prop(dev, 'MINOR')}"


def ra_name(dev):
    return f"bdi {prop(dev, 'MAJOR')}:{prop(dev, 'MINOR')} ({dev.get('name') or os.path.basename(dev['devpath'])})"


def read_ra(dev):
    p = sys_path(bdi_devpath(dev), "read_ahead_kb")
    if not os.path.lexists(p):
        return None
    with open(p, "rb") as f:
        return f.read()


def kernel_layout(devices):
    """umockdev links partitions into /sys/block; the kernel does not."""
    for name, dev in devices.items():
        if prop(dev, "DEVTYPE") == "partition":
            link = testbed() + "/sys/block/" + name
            if os.path.islink(link):
                os.unlink(link)


def setup(devices, spec):
    if spec == "-":
        return
    what, _, name = spec.partition(":")
    dev = devices.get(name)
    if not dev:
        die(f"setup {spec}: no device {name} in the tree")
    if what == "vanish-device":
        shutil.rmtree(sys_path(dev["devpath"]))
        shutil.rmtree(sys_path(bdi_devpath(dev)), ignore_errors=True)  # unregistered with its disk
        for link in (f"/sys/block/{name}", f"/sys/class/block/{name}",
                     f"/sys/class/bdi/{prop(dev, 'MAJOR')}:{prop(dev, 'MINOR')}",
                     f"/sys/dev/block/{prop(dev, 'MAJOR')}:{prop(dev, 'MINOR')}",
                     f"/dev/{name}", f"/dev/.node/{name}"):
            p = testbed() + link
            if os.path.lexists(p):
                os.unlink(p)
        for s in dev["links"]:
            p = testbed() + "/dev/" + s
            if os.path.lexists(p):
                os.unlink(p)
        print(f"setup: {name} removed from the testbed")
    elif what == "vanish-queue":
        shutil.rmtree(sys_path(dev["devpath"], "queue"))
        print(f"setup: {name}/queue removed from the testbed")
    else:
        die(f"unknown setup {spec}")


# ---------------------------------------------------------------- commands

def ctl(root, *args):
    env = sanitizer_env(dict(os.environ))
    return run([os.environ["RA_CTL"], "--root", root, *args], env=env)


def status(root, label):
    # --all: the trees' disks without media (sr0 without a disc) too
    rc, out, err, _ = ctl(root, "status", "--json", "--all")
    if rc != 0:
        fail(f"{label}: readahead-ctl status --json", "exit 0", f"{describe_rc(rc)}; stderr: {err.strip()}")
        return None
    try:
        doc = json.loads(out)
    except ValueError as e:
        fail(f"{label}: status --json is JSON", "a JSON object", f"{e}: {out[:400]!r}")
        return None
    if err.strip():
        print(f"note: status stderr: {err.strip()}")
    return doc


# ---------------------------------------------------------------- checks

def check_status(tree, root, vendor, host, devices):
    doc = status(root, "status")
    if doc is None:
        return
    check("status profile", "default", doc.get("profile"))
    check("status mem_total_kb", host["mem_total_kb"], doc.get("mem_total_kb"))
    check("status memory_cap_kb", host["memory_cap_kb"], doc.get("memory_cap_kb"))
    listed = {d.get("name"): d for d in doc.get("devices", []) if d.get("kind") == "block"}
    rows = read_tsv("expected.tsv", tree)
    expected_names = {r["device"] for r in rows}
    for name in sorted(set(listed) - expected_names):
        fail(f"status lists only the expected disks", sorted(expected_names), f"also {name}: {json.dumps(listed[name])}")
    for name, dev in devices.items():
        if prop(dev, "DEVTYPE") == "partition" and name in listed:
            fail(f"status lists no partition", "only DEVTYPE=disk", f"{name} listed")
    for r in rows:
        name = r["device"]
        d = listed.get(name)
        if r["listed"] == "no":
            if d is None:
                ok(f"{name} not listed")
            else:
                fail(f"{name} not listed", "absent", json.dumps(d))
            continue
        if d is None:
            if r["listed"] == "maybe":
                ok(f"{name} not listed (allowed)")
            else:
                fail(f"{name} listed", "listed", f"absent; devices: {sorted(listed)}")
            continue
        for key in ("class", "transport", "rotational", "removable", "size_bytes", "stripe_kb",
                    "current_kb", "target_kb"):
            check(f"{name} {key}", r[key], d.get(key))
        if r["rule"] != "*":
            check(f"{name} rule_section", r["rule"], d.get("rule_section"))
            rf = d.get("rule_file")
            if rule_file_ok(rf or "", root, vendor):
                ok(f"{name} rule_file {rf}")
            else:
                fail(f"{name} rule_file", f"[ROOT]{vendor}/profiles/default.conf", rf)
        # Invariants of any decision.
        t = d.get("target_kb")
        if t is not None:
            if not isinstance(t, int) or t <= 0 or t % PAGE_KB:
                fail(f"{name} target_kb is whole pages", f"a positive multiple of {PAGE_KB}", t)
            if isinstance(t, int) and isinstance(doc.get("memory_cap_kb"), int) and t > doc["memory_cap_kb"]:
                fail(f"{name} target_kb within the memory cap", f"<= {doc['memory_cap_kb']}", t)
            cur = d.get("current_kb")
            if isinstance(cur, int) and "drift" in d:
                check(f"{name} drift", "true" if cur // PAGE_KB != t // PAGE_KB else "false", d.get("drift"))


def lookup(doc, path):
    cur = doc
    for part in path.split("."):
        if part.startswith("rules[") and part.endswith("]"):
            section = part[6:-1]
            matches = [r for r in cur.get("rules", []) if r.get("section") == section]
            if not matches:
                raise KeyError(f"no rule [{section}] in explain output")
            cur = matches[-1]
        else:
            if not isinstance(cur, dict) or part not in cur:
                raise KeyError(f"no '{part}' in {json.dumps(cur)[:200]}")
            cur = cur[part]
    return cur


def check_explain(tree, root):
    rows = read_tsv("explain.tsv", tree)
    docs = {}
    for r in rows:
        name = r["device"]
        if name not in docs:
            rc, out, err, _ = ctl(root, "explain", name, "--json")
            if rc != 0:
                fail(f"readahead-ctl explain {name} --json", "exit 0", f"{describe_rc(rc)}; stderr: {err.strip()}")
                docs[name] = None
            else:
                try:
                    docs[name] = json.loads(out)
                except ValueError as e:
                    fail(f"explain {name} --json is JSON", "a JSON object", f"{e}: {out[:400]!r}")
                    docs[name] = None
        if docs[name] is None:
            continue
        try:
            value = lookup(docs[name], r["path"])
        except KeyError as e:
            fail(f"explain {name} {r['path']}", r["expected"], str(e))
            continue
        check(f"explain {name} {r['path']}", r["expected"], value)
    # Every explain must agree with status about the target.
    for name, d in docs.items():
        if d and "device" in d and "target_kb" in d:
            check(f"explain {name} target_kb agrees with device.target_kb",
                  json.dumps(d["device"].get("target_kb")), d.get("target_kb"))


def agent_env(dev, action, seqnum):
    env = {k: v for k, v in dev["props"]}
    env["DEVPATH"] = dev["devpath"]
    env["ACTION"] = action
    env["SEQNUM"] = str(seqnum)
    if dev["links"]:
        env["DEVLINKS"] = " ".join("/dev/" + s for s in dev["links"])
    return ratest.testbed_env(env)


parse_agent_stdout = ratest.parse_agent_lines


# What the agent's log line says for each READAHEAD_RESULT (carry-out.c): an
# event that wrote nothing must say why (issue 34, 7).
OUTCOME_WORDS = {
    "written": "read_ahead_kb ",
    "unchanged": "read_ahead_kb already ",
    "dry-run": "dry run",
    "left-alone": "read_ahead_kb left alone",
    "deferred": "not writing read_ahead_kb",
    "failed": "",
    "refused": "event refused",
}


def check_outcome_logged(label, name, result, err, since):
    """The agent logged result for device name: on stderr where no journal
    listens, else in the journal with READAHEAD_DEVICE= and READAHEAD_RESULT=."""
    if result not in OUTCOME_WORDS:
        return
    words = OUTCOME_WORDS[result]
    if os.access("/run/systemd/journal/socket", os.W_OK):
        r = subprocess.run(["journalctl", "-q", "-o", "cat", "--since", since, f"READAHEAD_DEVICE={name}",
                            f"READAHEAD_RESULT={result}"], capture_output=True, text=True)
        lines = r.stdout.splitlines()
        where = "the journal"
    else:
        lines = [l[len("readahead-agent: "):] for l in err.splitlines() if l.startswith("readahead-agent: ")]
        where = "stderr"
    # A refusal names the event's DEVPATH, not a device it does not trust.
    if any((l.startswith(f"{name}: ") or result == "refused") and words in l for l in lines):
        ok(f"{label}: {result} logged ({where})")
    else:
        fail(f"{label}: {result} logged ({where})", f"'{name}: ...{words}...'", lines)


def check_agent(tree, root, vendor, devices):
    rows = read_tsv("agent.tsv", tree)
    for seq, r in enumerate(rows, start=1000):
        name, action = r["device"], r["action"]
        action, _, flag = action.partition("+")
        extra = ["--" + flag] if flag else []
        dev = devices.get(name)
        if dev is None:
            die(f"agent.tsv: no device {name} in tree {tree}")
        watch = devices[name if r["watch"] == "=" else r["watch"]]
        label = f"agent {action} {name}" + (f" --{flag}" if flag else "")
        before = snapshot()
        ra_before = read_ra(watch)
        env = agent_env(dev, action, seq)
        since = time.strftime("%Y-%m-%d %H:%M:%S")
        rc, out, err, secs = run([os.environ["RA_AGENT"], "--root", root, *extra], env=env, timeout=AGENT_TIMEOUT)
        print(f"---- {label} ({describe_rc(rc)}, {secs * 1000:.0f} ms)")
        for line in out.splitlines():
            print(f"     stdout: {line}")
        for line in err.splitlines():
            print(f"     stderr: {line}")
        if rc == 0:
            ok(f"{label}: exit 0")
        else:
            fail(f"{label}: exit status", "exit 0", describe_rc(rc))
        props = parse_agent_stdout(label, out)

        # stdout
        if r["class"] == "-" and r["result"] == "-":
            if out == "":
                ok(f"{label}: prints nothing")
            else:
                fail(f"{label}: prints nothing", "empty stdout", repr(out))
        elif "-" in r["result"].split("|") and out == "":
            ok(f"{label}: prints nothing (allowed)")
        else:
            for key, col in (("READAHEAD_CLASS", "class"), ("READAHEAD_PREVIOUS_KB", "previous_kb"),
                             ("READAHEAD_TARGET_KB", "target_kb"), ("READAHEAD_RESULT", "result")):
                cell = r[col]
                if col == "result":
                    cell = "|".join(a for a in cell.split("|") if a != "-") or "-"
                check(f"{label}: {key}", cell, props.get(key))
            if r["rule"] != "*":
                rule = props.get("READAHEAD_RULE")
                if r["rule"] == "-":
                    check(f"{label}: READAHEAD_RULE", "-", rule)
                else:
                    f, _, section = (rule or "").rpartition(":")
                    if section == r["rule"] and rule_file_ok(f, root, vendor):
                        ok(f"{label}: READAHEAD_RULE = {rule}")
                    else:
                        fail(f"{label}: READAHEAD_RULE", f"[ROOT]{vendor}/profiles/default.conf:{r['rule']}", rule)
            t = props.get("READAHEAD_TARGET_KB")
            if t is not None and (not t.isdigit() or int(t) % PAGE_KB or int(t) == 0):
                fail(f"{label}: READAHEAD_TARGET_KB is whole pages", f"positive multiple of {PAGE_KB}", t)

        # the log: every outcome, including those that write nothing
        check_outcome_logged(label, name, props.get("READAHEAD_RESULT"), err, since)

        # the testbed afterwards
        ra_after = read_ra(watch)
        wname = ra_name(watch)
        final = r["final_kb"]
        if final == "absent":
            if ra_after is None:
                ok(f"{label}: {wname} read_ahead_kb still absent")
            else:
                fail(f"{label}: {wname} read_ahead_kb not created", "no such file", repr(ra_after))
        elif final == "same":
            if ra_after == ra_before:
                ok(f"{label}: {wname} read_ahead_kb untouched ({ra_before!r})")
            else:
                fail(f"{label}: {wname} read_ahead_kb untouched", repr(ra_before), repr(ra_after))
        elif final != "*":
            want = (final + "\n").encode()
            # What a reader of the attribute gets: the number, before trailing whitespace.
            if ra_after is not None and ra_after.rstrip() == final.encode():
                ok(f"{label}: {wname} read_ahead_kb = {final}")
            else:
                hint = ""
                if ra_after and b"\n" in ra_after.rstrip():
                    hint = (" (the new value was written over a longer one without truncating:"
                            " real sysfs replaces the value on each write, this testbed's plain file keeps"
                            " the tail; open with O_TRUNC as `echo >` does)")
                fail(f"{label}: {wname} read_ahead_kb", repr(want), repr(ra_after) + hint)
        # TARGET printed and "written" must mean the file holds it
        t = props.get("READAHEAD_TARGET_KB")
        if props.get("READAHEAD_RESULT") in ("written", "unchanged") and t is not None and watch is dev:
            if (ra_after or b"").rstrip() != t.encode():
                fail(f"{label}: result {props['READAHEAD_RESULT']} means the kernel holds the target",
                     t, repr(ra_after))

        # nothing else may change
        allowed = {sys_path(bdi_devpath(watch), "read_ahead_kb")} if final not in ("same", "absent") else set()
        changes = [c for c in diff(before, snapshot()) if not any(c.split(" ")[1] == a[len(testbed()):] for a in allowed)]
        if changes:
            fail(f"{label}: writes nothing else below /sys", "no other change", "; ".join(changes))
        else:
            ok(f"{label}: nothing else below /sys changed")


def check_status_after(root, devices):
    doc = status(root, "status after the agent")
    if doc is None:
        return
    for d in doc.get("devices", []):
        if d.get("kind") != "block":
            continue
        dev = devices.get(d.get("name"))
        if not dev:
            continue
        raw = read_ra(dev)
        if raw is None:
            continue
        try:
            held = int(raw.strip())
        except ValueError:
            continue  # reported by the agent checks
        check(f"status after the agent: {d['name']} current_kb is what the testbed holds", str(held),
              d.get("current_kb"))


def main():
    if len(sys.argv) != 2:
        die("usage: check.py TREE")
    tree = sys.argv[1]
    root = os.environ["RA_UMOCK_ROOT"]
    vendor = os.environ["RA_VENDOR_DIR"]
    hosts = read_tsv("trees.tsv", tree)
    if len(hosts) != 1:
        die(f"trees.tsv: tree {tree} must appear exactly once")
    host = hosts[0]
    devices = parse_tree(os.path.join(TREES, tree + ".umockdev"))

    kernel_layout(devices)
    setup(devices, host["setup"])

    print(f"== {tree}: status")
    check_status(tree, root, vendor, host, devices)
    rc, out, err, _ = ctl(root, "status")
    if rc != 0:
        fail("readahead-ctl status (table)", "exit 0", f"{describe_rc(rc)}; stderr: {err.strip()}")
    else:
        ok("readahead-ctl status (table) exits 0")
    print(f"== {tree}: explain")
    check_explain(tree, root)
    print(f"== {tree}: agent")
    check_agent(tree, root, vendor, devices)
    print(f"== {tree}: status after the agent")
    check_status_after(root, devices)

    ratest.report(tree)


if __name__ == "__main__":
    main()
