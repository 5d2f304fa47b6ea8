#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The texts that list readahead-ctl's verbs, options, status columns, its
Prometheus gauges and the profile keys must name everything the program's
own tables have: the program prints its tables (readahead-ctl --list-verbs,
--list-options, --list-columns, --list-gauges, --list-keys) and each text is
read for the names.

  text                          checked for
  completion/readahead-ctl      verbs, every option per verb, columns
  man/readahead-ctl.8.scd       verbs (COMMANDS), options, columns (STATUS TABLE),
                                status's Prometheus gauges (--format), advise's
                                (COMMANDS, advise)
  README.md                     verbs in the usage block (Status and explain); every
                                gauge (Prometheus); keys: [Agent] anywhere,
                                [Profile] and [Rule NAME] tables
  man/readahead.conf.5.scd      keys, per section
  tests/fuzz/profile.dict       keys
  tests/fuzz/corpus/profile/all-keys.conf   [Profile] and [Rule] keys
  readahead-ctl --help          options (each must have a help in its table),
                                and readahead-ctl(8) their arguments' names
  readahead-agent --help, readahead-agent.8.scd
                                the agent's options (readahead-agent --list-options)
  docs/json.md                  the columns' --json fields, and the other fields
                                of a device that src/ctl/device-json.c writes

The agent's own gauge, named once in src/agent/metrics-file.h
(METRICS_LAST_SUCCESS_GAUGE, appended after readahead-ctl's gauges under
--watch --metrics-file), must be in readahead-agent(8) --metrics-file,
README's Prometheus section and deploy/kubernetes/README.md's Metrics.

The completion's lists and the dictionary must not name anything the tables
lack either. Run: ctest -R tables -V (or RA_CTL=build/readahead-ctl
RA_SOURCE_DIR=. python3 tests/tables/check.py).
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ratest  # noqa: E402

CTL = os.environ.get("RA_CTL") or ratest.die("RA_CTL is not set (run through ctest)")
AGENT = os.environ.get("RA_AGENT") or ratest.die("RA_AGENT is not set (run through ctest)")
SRC = os.environ.get("RA_SOURCE_DIR") or ratest.die("RA_SOURCE_DIR is not set (run through ctest)")


def table(option, program=None):
    """readahead-ctl (or program) --list-OPTION: its lines, split into words."""
    out = subprocess.run([program or CTL, option], check=True, capture_output=True, text=True).stdout
    return [line.split() for line in out.splitlines()]


def read(rel):
    with open(os.path.join(SRC, rel), encoding="utf-8") as f:
        return f.read()


def section(text, start, end=r"^# [A-Z][A-Z ]*$"):
    """The lines of text after the line matching start, up to the next line
    matching end."""
    m = re.search(start, text, re.M)
    if not m:
        ratest.die(f"no line matching {start!r}")
    rest = text[m.end():]
    e = re.search(end, rest, re.M)
    return rest[: e.start()] if e else rest


def check_has(where, what, wanted, found):
    """Every name of wanted (the table's "what", a plural) is in found."""
    missing = [n for n in wanted if n not in found]
    if missing:
        ratest.fail(f"{where} names all the table's {what}", " ".join(wanted), "missing " + " ".join(missing))
    else:
        ratest.ok(f"{where} names all {len(wanted)} {what}")


def check_only(where, what, wanted, found):
    """found names nothing that wanted lacks."""
    extra = sorted(set(found) - set(wanted))
    if extra:
        ratest.fail(f"{where} names only the table's {what}", " ".join(wanted), "also " + " ".join(extra))


VERBS = [w[0] for w in table("--list-verbs")]
OPTIONS = {}  # verb ("*": main's) -> its long options
OPTION_ROWS = table("--list-options")  # VERB --NAME -X ARG HELP ("-": none)
for w in OPTION_ROWS:
    OPTIONS.setdefault(w[0], []).append(w[1])
COLUMNS = [w[0] for w in table("--list-columns")]
GAUGES = {}  # "status" (the columns') or "advise" -> its gauges
for w in table("--list-gauges"):
    GAUGES.setdefault(w[0], []).append(w[1])
if sorted(GAUGES.get("status", [])) != sorted(w[2] for w in table("--list-columns") if w[2] != "-"):
    ratest.fail("--list-gauges names the columns' gauges", "the same", " ".join(GAUGES.get("status", [])))
JSON_FIELDS = [w[1] for w in table("--list-columns") if w[1] != "-"]
KEYS = {}  # section -> its keys
for w in table("--list-keys"):
    KEYS.setdefault(w[0], []).append(w[1])
ALL_KEYS = sorted({k for keys in KEYS.values() for k in keys})

# ---- bash completion --------------------------------------------------------
completion = read("completion/readahead-ctl")


def completion_list(var):
    m = re.search(rf"^\s*local {var}='([^']*)'", completion, re.M)
    if not m:
        ratest.fail(f"completion has local {var}='...'", "the list", "none")
        return []
    return [w.rstrip("=") for w in m.group(1).split()]


check_has("completion's verbs", "verbs", VERBS, completion_list("verbs"))
check_only("completion's verbs", "verbs", VERBS, completion_list("verbs"))
for verb, opts in OPTIONS.items():
    var = "opts" if verb == "*" else verb.replace("-", "_") + "_opts"
    check_has(f"completion's {var}", "main options" if verb == "*" else f"options of {verb}", opts, completion_list(var))
check_has("completion's cols", "columns", COLUMNS, completion_list("cols"))
check_only("completion's cols", "columns", COLUMNS, completion_list("cols"))

# ---- readahead-ctl(8) ---------------------------------------------------------
man_ctl = read("man/readahead-ctl.8.scd")
commands = section(man_ctl, r"^# COMMANDS$")
check_has("readahead-ctl(8) COMMANDS", "verbs", VERBS, re.findall(r"^\*([a-z-]+)\*", commands, re.M))
check_has("readahead-ctl(8)", "options", sorted({o for opts in OPTIONS.values() for o in opts}),
          re.findall(r"\*(--[a-z-]+)\*", man_ctl))
status_table = section(man_ctl, r"^# STATUS TABLE$")
check_has("readahead-ctl(8) STATUS TABLE", "columns", COLUMNS,
          [c for line in status_table.splitlines() if line.startswith("*")
           for c in re.findall(r"\*([A-Z][A-Z:]*)\*", line)])

check_has("readahead-ctl(8) --format", "status's Prometheus gauges", GAUGES["status"],
          re.findall(r"\*(readahead_[a-z_]+)\*", section(man_ctl, r"^\*--format\*=", r"^\*--")))
check_has("readahead-ctl(8) advise", "advise's Prometheus gauges", GAUGES["advise"],
          re.findall(r"\*(readahead_[a-z_]+)\*", section(commands, r"^\*advise\*", r"^\*[a-z-]+\*")))

# ---- readahead-ctl's options -----------------------------------------------------
# Each described once, in its table (main's in src/ctl/ctl.c, a verb's in
# ctl-VERB.c): every option has a help, --help prints it, and the man page
# names it with its argument's name.
no_help = [f"{w[0]} {w[1]}" for w in OPTION_ROWS if len(w) < 5 or w[4:] == ["-"]]
if no_help:
    ratest.fail("every readahead-ctl option has a help in its table", "a help", "none for " + ", ".join(no_help))
else:
    ratest.ok(f"all {len(OPTION_ROWS)} readahead-ctl options have a help")
ctl_help = subprocess.run([CTL, "--help"], check=True, capture_output=True, text=True).stdout
help_heads = [re.sub(r"^-[a-z], ", "", l.strip()).split()[0] for l in ctl_help.splitlines()
              if re.match(r"  (-[a-z], )?--", l)]
check_has("readahead-ctl --help", "options", sorted({o for opts in OPTIONS.values() for o in opts}), help_heads)
man_args = {(n, a) for n, a in re.findall(r"\*(--[a-z-]+)\*[= ]_([A-Z]+)_", man_ctl)}
wanted_args = sorted({f"{w[1]} {w[3]}" for w in OPTION_ROWS if len(w) >= 4 and w[3] != "-"})
check_has("readahead-ctl(8)", "options' argument names", wanted_args, {f"{n} {a}" for n, a in man_args})

# ---- README.md ----------------------------------------------------------------
readme = read("README.md")
check_has("README's Prometheus section", "Prometheus gauges", GAUGES["status"] + GAUGES["advise"],
          re.findall(r"`(readahead_[a-z_]+)`", section(readme, r"^### Prometheus$", r"^#")))
usage = section(readme, r"^## Status and explain$", r"^#")
usage = usage.split("```")[1] if usage.count("```") >= 2 else ""
usage_words = {w for line in usage.splitlines() if line.startswith("readahead-ctl ") for w in line.split()}
check_has("README's readahead-ctl usage block", "verbs", VERBS, usage_words)

readme_keys = {
    "Agent": re.findall(r"`([A-Z][A-Za-z]*)=", readme),
    "Profile": re.findall(r"^\| `([A-Z][A-Za-z]*)=", section(readme, r"^### `\[Profile\]`$", r"^#"), re.M),
    "Rule": re.findall(r"`([A-Z][A-Za-z]*)=", "\n".join(
        line.split("|")[1] for line in section(readme, r"^### `\[Rule NAME\]`$", r"^#").splitlines()
        if line.startswith("| `"))),
}
for sec, keys in KEYS.items():
    where = "README.md" if sec == "Agent" else f"README's [{sec}] table"
    check_has(where, f"{sec} keys", keys, readme_keys.get(sec, []))

# ---- readahead-agent's options ---------------------------------------------------
# Each described once, in the agent's table: --help prints its help, and the
# man page must name it.
AGENT_OPTIONS = [w[0] for w in table("--list-options", AGENT)]
agent_help = subprocess.run([AGENT, "--help"], check=True, capture_output=True, text=True).stdout
check_has("readahead-agent --help", "agent options", AGENT_OPTIONS,
          [l.split()[0] for l in agent_help.splitlines() if l.startswith("  --")])
check_has("readahead-agent(8)", "agent options", AGENT_OPTIONS,
          re.findall(r"\*(--[a-z-]+)\*", read("man/readahead-agent.8.scd")))

# ---- docs/json.md ----------------------------------------------------------------
# The status columns' --json fields, and the device fields json_device_fields()
# writes by name (the rest of its fields are the columns').
json_doc = set(re.findall(r"`([a-z_]+)`", read("docs/json.md"))) | set(
    re.findall(r'"([a-z_]+)":', read("docs/json.md")))
check_has("docs/json.md", "columns' --json fields", JSON_FIELDS, json_doc)
device_fields = re.findall(r'json_[a-z_]+\(j, "([a-z_]+)"', read("src/ctl/device-json.c"))
check_has("docs/json.md", "device fields of src/ctl/device-json.c", device_fields, json_doc)

# ---- readahead.conf(5) ----------------------------------------------------------
man_conf = read("man/readahead.conf.5.scd")
man_sections = {"Agent": r"^# readahead\.conf$", "Profile": r"^# \[Profile\]$", "Rule": r"^# \[Rule NAME\]$"}
for sec, keys in KEYS.items():
    text = section(man_conf, man_sections[sec], r"^# ")
    found = [k for line in text.splitlines() if line.startswith("*")
             for k in re.findall(r"\*([A-Z][A-Za-z]*)=\*", line)]
    check_has(f"readahead.conf(5) {sec} section", f"{sec} keys", keys, found)

# ---- the agent's own gauge ---------------------------------------------------------
m = re.search(r'^#define METRICS_LAST_SUCCESS_GAUGE "(readahead_[a-z_]+)"$', read("src/agent/metrics-file.h"), re.M)
AGENT_GAUGES = [m.group(1)] if m else ratest.die("no METRICS_LAST_SUCCESS_GAUGE in src/agent/metrics-file.h")
check_has("readahead-agent(8) --metrics-file", "agent's gauges", AGENT_GAUGES,
          re.findall(r"\*(readahead_[a-z_]+)\*", section(read("man/readahead-agent.8.scd"), r"^\*--metrics-file\*", r"^\*--")))
check_has("README's Prometheus section", "agent's gauges", AGENT_GAUGES,
          re.findall(r"`(readahead_[a-z_]+)`", section(readme, r"^### Prometheus$", r"^#")))
check_has("deploy/kubernetes/README.md's Metrics", "agent's gauges", AGENT_GAUGES,
          re.findall(r"`(readahead_[a-z_]+)`", section(read("deploy/kubernetes/README.md"), r"^## Metrics$", r"^#")))

# ---- the fuzzer's dictionary and corpus ---------------------------------------
dict_keys = re.findall(r'^"([A-Z][A-Za-z]*)="$', read("tests/fuzz/profile.dict"), re.M)
check_has("tests/fuzz/profile.dict", "keys", ALL_KEYS, dict_keys)
check_only("tests/fuzz/profile.dict", "keys", ALL_KEYS, dict_keys)

corpus = read("tests/fuzz/corpus/profile/all-keys.conf")
corpus_keys = {}
sec = None
for line in corpus.splitlines():
    if line.startswith("["):
        sec = "Rule" if line.startswith("[Rule ") else line.strip("[]")
    elif sec and "=" in line and line[0].isalpha():
        corpus_keys.setdefault(sec, []).append(line.split("=", 1)[0])
for sec in ("Profile", "Rule"):
    check_has(f"all-keys.conf [{sec}]", f"{sec} keys", KEYS[sec], corpus_keys.get(sec, []))

ratest.report("tables")
