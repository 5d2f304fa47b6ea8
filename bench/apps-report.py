#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The plot (matplotlib) and the markdown tables of bench/apps.

Reads bench/apps.tsv (one row a run; the overnight grid's, else
bench/apps-quick.tsv, --quick's) and its -settings.tsv (which value each
setting gives each cell), and writes, per application x workload x device
model: the best median of the sweep, each setting's median as % of it, the
spread of the runs, and where advise ended. The tables replace the part of
bench/README-apps.md between the markers named by the TSV's file name (the
grid's and --quick's have a section each; a TSV without one is printed);
the plot is the TSV's name with .png.

  bench/apps-report.py [--tsv bench/apps.tsv] [--png bench/apps.png]
"""
import argparse
import collections
import csv
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXED = ["kernel", "rule-6.17", "tuned", "vendor", "kml", "profile"]


def markers(tsv):
    """The README's markers around the tables of this TSV."""
    name = os.path.basename(tsv)
    return (f"<!-- tables of {name}: bench/apps-report.py writes from here -->",
            f"<!-- tables of {name}: end -->")


def size(kb):
    kb = int(kb)
    return f"{kb // 1024}M" if kb >= 1024 and kb % 1024 == 0 else f"{kb}K"


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def higher_is_better(metric):
    return metric != "seconds"


class Cell:
    """The runs of one application x workload x device."""

    def __init__(self):
        self.fixed = collections.defaultdict(list)  # kb -> values
        self.final = []  # advise's runs at the value it ended at
        self.final_kb = None
        self.rounds = []  # (kb, advice)
        self.metric = self.unit = None
        self.timeouts = set()  # kb with a run that hit the limit
        self.load = []

    def median(self, kb):
        v = self.fixed.get(int(kb))
        return statistics.median(v) if v else None

    def best(self):
        pick = max if higher_is_better(self.metric) else min
        meds = {kb: statistics.median(v) for kb, v in self.fixed.items() if v}
        if not meds:
            return None, None
        kb = pick(meds, key=meds.get)
        return kb, meds[kb]

    def pct(self, value):
        """value as % of the best median (higher is better either way)."""
        _, best = self.best()
        if value is None or not best:
            return None
        return 100.0 * (value / best if higher_is_better(self.metric) else best / value)


def spread(values):
    """(max - min) / median of the runs, in %."""
    if len(values) < 2 or not statistics.median(values):
        return None
    return 100.0 * (max(values) - min(values)) / statistics.median(values)


def load(tsv):
    cells = collections.defaultdict(Cell)
    for r in read_tsv(tsv):
        c = cells[(r["app"], r["workload"], r["device"])]
        c.metric, c.unit = r["metric"], r["unit"]
        kb, v, note = int(r["read_ahead_kb"]), float(r["value"]), r.get("note") or ""
        if "failed" in note:
            continue
        try:
            c.load.append(float(r.get("load1") or "nan"))
        except ValueError:
            pass
        if "timeout" in note:
            c.timeouts.add(kb)
        if r["setting"] != "advise":
            c.fixed[kb].append(v)
        elif note.startswith("round"):
            m = re.match(r"round\d+:?(\S*)", note)
            c.rounds.append((kb, (m.group(1).split(",")[0] if m else "") or "?"))
        elif note.startswith("final"):
            c.final.append(v)
            c.final_kb = kb
    return cells


def settings_of(path):
    s = collections.defaultdict(list)  # (app, wl, dev) -> [(setting, kb, source)]
    if os.path.exists(path):
        for r in read_tsv(path):
            if r["setting"] in FIXED:
                s[(r["app"], r["workload"], r["device"])].append((r["setting"], int(r["read_ahead_kb"]), r["source"]))
    return s


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


def fmt_pct(p):
    return "-" if p is None else f"{p:.0f}%"


def tables(cells, settings):
    out = []
    out.append("| app | workload | device | metric | best: median (spread, runs) | "
               + " | ".join(FIXED) + " | advise: rounds -> final (% of best) | profile vs 128K |")
    out.append("|" + "---|" * (6 + len(FIXED)))
    for key in sorted(cells):
        c = cells[key]
        bkb, best = c.best()
        if bkb is None:
            continue
        runs = c.fixed[bkb]
        sp = spread(runs)
        row = [*key, f"{c.metric} ({c.unit})",
               f"{fmt(best)} at {size(bkb)} ({'-' if sp is None else f'{sp:.0f}%'}, {len(runs)})"]
        by = collections.defaultdict(list)
        for name, kb, source in settings.get(key, []):
            by[name].append((kb, source))
        for name in FIXED:
            parts = []
            for kb, source in by.get(name, []):
                label = f"{size(kb)}: {fmt_pct(c.pct(c.median(kb)))}"
                if kb in c.timeouts:
                    label += " (timeout)"
                parts.append(label + (f" {source}" if name == "vendor" else ""))
            row.append("<br>".join(parts) or "-")
        if c.final:
            path = " -> ".join(f"{size(kb)} {a}" for kb, a in c.rounds)
            row.append(f"{path}; {size(c.final_kb)}: {fmt(statistics.median(c.final))} "
                       f"({fmt_pct(c.pct(statistics.median(c.final)))})")
        else:
            row.append("-")
        prof = [kb for name, kb, _ in settings.get(key, []) if name == "profile"]
        m128, mprof = c.median(128), (c.median(prof[0]) if prof else None)
        if m128 and mprof:
            ratio = mprof / m128 if higher_is_better(c.metric) else m128 / mprof
            row.append(f"{size(prof[0])}: {100 * (ratio - 1):+.0f}%")
        else:
            row.append("-")
        out.append("| " + " | ".join(row) + " |")
    loads = [x for c in cells.values() for x in c.load if not math.isnan(x)]
    if loads:
        out.append("")
        out.append(f"Load average (1 min) during the runs: {min(loads):.1f} to {max(loads):.1f}, "
                   f"median {statistics.median(loads):.1f}, on {os.cpu_count()} CPUs.")
    return "\n".join(out) + "\n"


def plot(cells, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted({(a, w) for a, w, _ in cells})
    if not groups:
        return
    cols = min(3, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.4 * rows), squeeze=False)
    for ax, (app, wl) in zip(axes.flat, groups):
        for (a, w, dev), c in sorted(cells.items()):
            if (a, w) != (app, wl) or not c.fixed:
                continue
            kbs = sorted(c.fixed)
            ax.plot(kbs, [c.pct(c.median(kb)) for kb in kbs], marker="o", label=dev)
            if c.final:
                ax.plot([c.final_kb], [c.pct(statistics.median(c.final))], marker="*", markersize=12,
                        linestyle="none", color=ax.lines[-1].get_color())
        ax.set_xscale("log", base=2)
        ax.set_xticks([8, 64, 512, 4096])
        ax.set_xticklabels(["8K", "64K", "512K", "4M"])
        ax.set_ylim(0, 105)
        ax.set_title(f"{app} {wl}", fontsize=10)
        ax.set_xlabel("read_ahead_kb")
        ax.set_ylabel("% of best median")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    fig.suptitle("bench/apps: % of the best median (star: where advise ended)", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.985))  # room for the title above the top row
    fig.savefig(png, dpi=80)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    grid = os.path.join(HERE, "apps.tsv")
    p.add_argument("--tsv", default=grid if os.path.exists(grid) else os.path.join(HERE, "apps-quick.tsv"))
    p.add_argument("--settings")
    p.add_argument("--png")
    p.add_argument("--readme", default=os.path.join(HERE, "README-apps.md"))
    p.add_argument("--print", action="store_true", help="print the tables instead of writing the README")
    a = p.parse_args()
    settings_path = a.settings or re.sub(r"\.tsv$", "", a.tsv) + "-settings.tsv"
    png = a.png or re.sub(r"\.tsv$", "", a.tsv) + ".png"
    every = load(a.tsv)
    # A cell is shown once advise has run on it, the last step of
    # bench/apps; until then its runs wait for bench/apps to resume it.
    running = sorted(k for k, c in every.items() if not c.final)
    cells = {k: c for k, c in every.items() if c.final}
    text = tables(cells, settings_of(settings_path))
    if running:
        text += ("\nNot finished (runs in the TSV, not in the table or the plot): "
                 + ", ".join(" ".join(k) + f" ({len(every[k].fixed)} values)" for k in running) + ".\n")
    begin, end = markers(a.tsv)
    doc = open(a.readme).read() if os.path.exists(a.readme) else ""
    if a.print or begin not in doc or end not in doc:
        sys.stdout.write(text)
    else:
        head, rest = doc.split(begin, 1)
        tail = rest.split(end, 1)[1]
        with open(a.readme + ".tmp", "w") as f:
            f.write(head + begin + "\n\n" + text + "\n" + end + tail)
        os.replace(a.readme + ".tmp", a.readme)
    plot(cells, png)


if __name__ == "__main__":
    main()
