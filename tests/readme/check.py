#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every command in README.md's code blocks is run by a test: this one runs
what it can without touching the machine (readahead-ctl in a umockdev tree,
the unit binaries, ctest's selection), and the rest must be named in
ELSEWHERE with the file that runs it, which must still hold the command.
A command nobody runs fails the test. See README.md in this directory.

Code blocks must say what they hold: sh (every line a command), console
(lines after `$ ` are commands, the rest their output), crontab (the command
after the schedule and user), or text, ini, json (no commands).
"""

import os
import re
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ratest  # noqa: E402

SRC = os.environ.get("RA_SOURCE_DIR") or ratest.die("RA_SOURCE_DIR is not set (run through ctest)")
BUILD = os.environ.get("RA_BUILD_DIR") or ratest.die("RA_BUILD_DIR is not set (run through ctest)")
CTL = os.environ.get("RA_CTL") or ratest.die("RA_CTL is not set (run through ctest)")
ROOT = os.environ.get("RA_README_ROOT") or ratest.die("RA_README_ROOT is not set (run through run.sh)")

LANGUAGES = {"sh", "console", "crontab", "text", "ini", "json"}

# Commands that need root, a whole machine or a network: the file that runs
# each, and what that file must still contain. (regex on the README's
# command, file, text the file holds)
ELSEWHERE = [
    (r"\./setup\.sh", "tests/debian-root/run.sh", "./setup.sh"),
    (r"tests/run\.sh", ".ci/run", "exec tests/run.sh"),
    (r"scripts/install-deps\.sh --test", "tests/debian-root/run.sh", "scripts/install-deps.sh --test"),
    (r"dpkg-buildpackage -b -us -uc", "tests/package/package.sh", "dpkg-buildpackage -b -us -uc)"),
    (r"apt install \.\./readahead-agent_\*\.deb", "tests/systemd/guest/lab.sh", 'apt-get install -y -q "$deb"'),
    (r"cmake --build build -j\"\$\(nproc\)\"", "tests/run.sh", 'cmake --build build -j"$jobs"'),
    # <this repository> is for the reader to fill in; CI starts from a clone.
    (r"git clone <this repository> readahead-agent", None, None),
    (r"cd readahead-agent", None, None),
]


def commands(text):
    """[(line number, command)] from the fenced blocks; an untagged or
    unknown block is a failure (it could hide a command)."""
    found, lang, start = [], None, 0
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if lang is None:
                lang, start = line[3:].strip(), no
                if lang not in LANGUAGES:
                    ratest.fail(f"README.md:{no}: code block's language", " or ".join(sorted(LANGUAGES)), lang or "none")
            else:
                lang = None
            continue
        if lang == "sh":
            cmd = re.sub(r"\s+#\s.*$", "", line).strip()
        elif lang == "console":
            cmd = line[2:].strip() if line.startswith("$ ") else ""
        elif lang == "crontab":
            cmd = line.split(None, 6)[6] if len(line.split(None, 6)) == 7 else ""
        else:
            continue
        if cmd:
            found.append((no, lang, cmd))
    if lang is not None:
        ratest.fail(f"README.md:{start}: code block", "closed", "open at the end of the file")
    return found


def local(arg):
    """The README's build/ paths are this build's."""
    return BUILD + arg[len("build"):] if arg == "build" or arg.startswith("build/") else arg


def check_rc(what, rc, out, err):
    if rc == 0:
        ratest.ok(f"{what}: exit 0")
        return True
    ratest.fail(what, "exit 0", f"{ratest.describe_rc(rc)}: {(err or out).strip()[-400:]}")
    return False


def run_ctl(what, cmd, expected_output):
    """readahead-ctl ARGS in the umockdev tree, on a copy of the test root.
    When the README shows its output, each line has as many fields."""
    argv = [CTL, "--root", ROOT] + shlex.split(cmd)[1:]
    rc, out, err, _ = ratest.run(argv, env=ratest.testbed_env(dict(os.environ)))
    if not check_rc(what, rc, out, err):
        return
    if not out.strip():
        ratest.fail(what, "some output", "nothing")
    raw = any(w in ("-r", "--raw") or re.fullmatch(r"-[a-z]*r[a-z]*", w) for w in cmd.split())
    if expected_output and raw:
        ratest.check_eq(f"{what}: fields a line", sorted({len(l.split()) for l in expected_output}),
                        sorted({len(l.split()) for l in out.splitlines()}))


def run_cron(what, cmd):
    """The crontab line, with its directory and readahead-ctl made local:
    the file it leaves is whole, and nothing half-written stays."""
    with tempfile.TemporaryDirectory() as d:
        local_cmd = cmd.replace("d=/var/lib/prometheus/node-exporter", f"d={shlex.quote(d)}")
        local_cmd = local_cmd.replace("readahead-ctl ", f"{shlex.quote(CTL)} --root {shlex.quote(ROOT)} ")
        if local_cmd == cmd:
            ratest.fail(what, "a line this test knows how to run locally", cmd)
            return
        rc, out, err, _ = ratest.run(["sh", "-c", local_cmd], env=ratest.testbed_env(dict(os.environ)))
        if check_rc(what, rc, out, err):
            ratest.check_eq(f"{what}: files left", ["readahead.prom"], sorted(os.listdir(d)))
            with open(os.path.join(d, "readahead.prom")) as f:
                prom = f.read()
            ratest.check_eq(f"{what}: has readahead_current_bytes", True, "readahead_current_bytes{" in prom)


def run_ctest(what, argv):
    """ctest's selection (-N), not the tests: the label or name still
    selects something, and a label is anchored (ctest reads it as a regular
    expression: `-L unit` would also select the `units` label's tests)."""
    for opt, label in zip(argv, argv[1:]):
        if opt in ("-L", "-LE"):
            ratest.check_eq(f"{what}: {opt} {label} anchored", True, label.startswith("^") and label.endswith("$"))
    argv = [local(a) for a in argv if a != "-V"] + ["-N"]
    rc, out, err, _ = ratest.run(argv)
    if check_rc(what, rc, out, err):
        m = re.search(r"Total Tests: (\d+)", out)
        ratest.check_eq(f"{what}: selects tests", True, bool(m and int(m.group(1)) > 0))


def run_program(what, cmd):
    """A program of the build (what `gdb --args` would debug), with the
    environment the line sets."""
    words = shlex.split(cmd)
    env = ratest.testbed_env(dict(os.environ))
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    if words[:2] == ["gdb", "--args"]:
        words = words[2:]
    argv = [local(w) for w in words]
    # build/testroot is the test configuration root: a copy of it here.
    argv = [ROOT if a == os.path.join(BUILD, "testroot") else a for a in argv]
    rc, out, err, _ = ratest.run(argv, env=env)
    check_rc(what, rc, out, err)


def elsewhere(what, cmd):
    for pattern, path, needle in ELSEWHERE:
        if re.fullmatch(pattern, cmd):
            if path is None:
                ratest.ok(f"{what}: a placeholder for the reader (see ELSEWHERE)")
                return True
            with open(os.path.join(SRC, path)) as f:
                held = needle in f.read()
            if held:
                ratest.ok(f"{what}: run by {path}")
            else:
                ratest.fail(f"{what}: run by {path}", needle, "not in that file any more")
            return True
    return False


def main():
    with open(os.path.join(SRC, "README.md")) as f:
        text = f.read()
    lines = text.splitlines()
    found = commands(text)
    for no, lang, full in found:
        output = []
        if lang == "console":
            for line in lines[no:]:
                if line.startswith("$ ") or line.startswith("```"):
                    break
                output.append(line)
        # A && B: each part is a command of its own.
        for part in [p.strip() for p in full.split(" && ")] if lang == "sh" else [full]:
            cmd = re.sub(r"^sudo ", "", part)
            what = f"README.md:{no}: `{part}`"
            words = shlex.split(cmd) if lang != "crontab" else []
            if lang == "crontab":
                run_cron(what, cmd)
            elif words[0] == "readahead-ctl":
                run_ctl(what, cmd, output)
            elif words[0] == "ctest":
                run_ctest(what, words)
            elif words[0].startswith("build/") or words[0] == "gdb" or re.fullmatch(r"[A-Z_]+=.*", words[0]):
                run_program(what, cmd)
            elif words[:3] == ["cmake", "-S", "."]:
                configure(what, words)
            elif not elsewhere(what, cmd):
                ratest.fail(what, "run by this test or named in ELSEWHERE with the test that runs it",
                            "run by no test")
    ratest.check_eq("README.md commands found", True, len(found) >= 10)
    ratest.report("readme")


def configure(what, words):
    """cmake -S . -B build OPTIONS: tests/run.sh configures a build with
    every one of these options (its ASan build)."""
    with open(os.path.join(SRC, "tests/run.sh")) as f:
        lines = [l.strip().removeprefix("run ") for l in f.read().splitlines()]
        run_sh = [l.split() for l in lines if l.startswith("cmake -S . -B ")]
    want = {w for w in words if w.startswith("-D")}
    if any(want <= set(l) for l in run_sh):
        ratest.ok(f"{what}: tests/run.sh configures with {' '.join(sorted(want))}")
    else:
        ratest.fail(f"{what}: run by tests/run.sh", " ".join(sorted(want)), "no `cmake -S . -B` line with them all")


if __name__ == "__main__":
    main()
