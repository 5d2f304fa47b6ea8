#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tables (markdown) and the plot (gnuplot) for bench/benefit's raw results.

results.tsv: model, workload, read_ahead_kb, device bytes read, and the
ra-workload line (ops= bytes= seconds= mib_per_s= ops_per_s= steady_mib_per_s=).
meta.tsv: model, description, IOPS, MiB/s, kernel default, agent target, tuned.
"""
import argparse
import os
import subprocess
import sys

WORKLOADS = {
    "seq1": ("1 stream", "MiB/s"),
    "seq8": ("8 streams", "MiB/s"),
    "rand4k": ("random 4K reads", "reads/s"),
    "mmap": ("random mmap faults", "faults/s"),
    "mem32": ("32 streams, 48M cgroup", "MiB/s"),
}
SWEEP = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def size(kb):
    kb = int(kb)
    if kb >= 1024 and kb % 1024 == 0:
        return f"{kb // 1024}M"
    return f"{kb}K"


def load(results_path, meta_path):
    meta, order = {}, []
    with open(meta_path) as f:
        for line in f:
            m, desc, iops, mibs, kdef, agent, tuned = line.rstrip("\n").split("\t")
            meta[m] = dict(desc=desc, iops=int(iops), mibs=int(mibs), kernel=int(kdef),
                           agent=int(agent), tuned=int(tuned))
            order.append(m)
    runs = {}
    with open(results_path) as f:
        for line in f:
            m, wl, kb, dev_bytes, rest = line.rstrip("\n").split("\t")
            r = dict(kv.split("=") for kv in rest.split())
            r = {k: float(v) for k, v in r.items()}
            r["device_bytes"] = int(dev_bytes)
            r["oom_killed"] = bool(r.get("oom_killed"))
            r["amplification"] = r["device_bytes"] / r["bytes"] if r["bytes"] else float("nan")
            runs[(m, wl, int(kb))] = r
    return meta, order, runs


def value(r, wl):
    return r["ops_per_s"] if WORKLOADS[wl][1] != "MiB/s" else r["mib_per_s"]


def fmt_value(v, wl):
    if WORKLOADS[wl][1] == "MiB/s":
        return f"{v:.1f}" if v < 1000 else f"{v:.0f}"
    return f"{v:.0f}"


def cell(r, wl):
    if r is None:
        return "-"
    if r["oom_killed"]:
        return f"OOM-killed ({r['device_bytes'] / 2**20:.0f} MiB read)"
    return f"{fmt_value(value(r, wl), wl)} ×{r['amplification']:.2f}"


def report(args, meta, order, runs):
    out = []
    p = out.append
    workloads = [w for w in WORKLOADS if any(k[1] == w for k in runs)]
    p(f"{args.kernel}, {args.cpus} CPUs; each run {args.seconds:g} s (mem32: until each reader has "
      f"8 MiB, at most {4 * args.seconds:g} s); whole bench {args.elapsed // 60} min {args.elapsed % 60} s.")
    p("")
    p("Each cell: throughput (MiB/s consumed, or reads/faults a second) and read amplification "
      "(bytes the device read / bytes consumed). Page cache dropped before and after each run.")
    p("")
    for m in order:
        md = meta[m]
        p(f"#### {m}: {md['desc']}")
        p("")
        p(f"| workload | kernel default {size(md['kernel'])} | agent {size(md['agent'])} | "
          f"tuned {size(md['tuned'])} | best of 16K..16M |")
        p("|---|---:|---:|---:|---:|")
        for wl in workloads:
            name, unit = WORKLOADS[wl]
            sweep = [(kb, runs.get((m, wl, kb))) for kb in SWEEP if (m, wl, kb) in runs]
            best = max(sweep, key=lambda x: value(x[1], wl)) if sweep else None
            best_cell = f"{cell(best[1], wl)} at {size(best[0])}" if best else "-"
            p(f"| {name} ({unit}) | {cell(runs.get((m, wl, md['kernel'])), wl)} | "
              f"{cell(runs.get((m, wl, md['agent'])), wl)} | {cell(runs.get((m, wl, md['tuned'])), wl)} | "
              f"{best_cell} |")
        p("")
    for m in order:
        md = meta[m]
        p(f"<details><summary>{m}: the whole sweep</summary>")
        p("")
        p("| read_ahead_kb | " + " | ".join(f"{WORKLOADS[w][0]} ({WORKLOADS[w][1]})" for w in workloads) + " |")
        p("|---:|" + "---:|" * len(workloads))
        kbs = sorted({k[2] for k in runs if k[0] == m and k[1] in workloads})
        for kb in kbs:
            marks = [t for t, v in (("kernel", md["kernel"]), ("agent", md["agent"]), ("tuned", md["tuned"]))
                     if v == kb]
            label = size(kb) + (f" ({', '.join(marks)})" if marks else "")
            p(f"| {label} | " + " | ".join(cell(runs.get((m, w, kb)), w) for w in workloads) + " |")
        p("")
        p("</details>")
        p("")
    seeds(p, meta, runs)
    return "\n".join(out) + "\n"


def seeds(p, meta, runs):
    p("#### Against the seeds")
    p("")
    issue = {128: 15.0, 256: 29.8, 512: 60.2, 1024: 107.5, 2048: 98.0, 4096: 106.4}
    if "hdd" in meta and all(("hdd", "seq1", kb) in runs for kb in issue):
        p("The issue's dd numbers (one stream, 125 IOPS / 100 MiB/s), MiB/s:")
        p("")
        p("| read_ahead_kb | " + " | ".join(size(k) for k in issue) + " |")
        p("|---|" + "---:|" * len(issue))
        p("| issue (dd bs=4k) | " + " | ".join(f"{v:.1f}" for v in issue.values()) + " |")
        p("| here (1 stream) | " + " | ".join(f"{runs[('hdd', 'seq1', k)]['mib_per_s']:.1f}" for k in issue)
          + " |")
        p("")
    if all(("hdd", "seq8", kb) in runs for kb in (128, 512)):
        a, b = runs[("hdd", "seq8", 128)]["mib_per_s"], runs[("hdd", "seq8", 512)]["mib_per_s"]
        p(f"Wu's table (HDD, concurrent streams): 13.8 MB/s at 128K, 39 MB/s at 512K, x{39 / 13.8:.1f}. "
          f"Here, 8 streams on the HDD model: {a:.1f} and {b:.1f} MiB/s, x{b / a:.1f}.")
        p("")
    mason = {4: 131, 32: 126, 64: 121, 256: 100}
    direct = sorted(k[1] for k in runs if k[0] == "hdd" and k[1].startswith("direct"))
    if direct:
        sizes = sorted(int(w[len("direct"):]) for w in direct)
        p("Chris Mason's random reads (O_DIRECT, SATA disk) against the HDD model, reads/s:")
        p("")
        p("| request | " + " | ".join(size(k) for k in sizes) + " |")
        p("|---|" + "---:|" * len(sizes))
        p("| Mason | " + " | ".join(str(mason.get(k, "")) for k in sizes) + " |")
        row = []
        for k in sizes:
            r = [v for kk, v in runs.items() if kk[0] == "hdd" and kk[1] == f"direct{k}"]
            row.append(f"{r[0]['ops_per_s']:.0f}" if r else "-")
        p("| here | " + " | ".join(row) + " |")
        p("")
    thrash = {512: 283, 4096: 583, 16384: 1046}
    rows = [m for m in meta if all((m, "mem32", kb) in runs for kb in thrash)]
    if rows:
        p("The issue's thrashing seed: MiB read from the device per 256 MiB consumed by 32 streams "
          "in a 48 MiB memory cgroup:")
        p("")
        p("| | " + " | ".join(size(k) for k in thrash) + " |")
        p("|---|" + "---:|" * len(thrash))
        p("| issue | " + " | ".join(str(v) for v in thrash.values()) + " |")
        for m in rows:
            p(f"| {m} | " + " | ".join("OOM-killed" if runs[(m, 'mem32', k)]["oom_killed"] else
                                      f"{256 * runs[(m, 'mem32', k)]['amplification']:.0f}" for k in thrash) + " |")
        p("")


def plot(args, meta, order, runs):
    colors = ["#1b5e20", "#0d47a1", "#b71c1c", "#6a1b9a"]
    plots, agent_kb = [], set()
    for i, m in enumerate(order):
        md = meta[m]
        agent_kb.add(md["agent"])
        for wl, dash in (("seq1", 1), ("seq8", 2)):
            pts = [(kb, runs[(m, wl, kb)]["mib_per_s"]) for kb in SWEEP
                   if (m, wl, kb) in runs and runs[(m, wl, kb)]["mib_per_s"] > 0]
            if not pts:
                continue
            path = os.path.join(args.workdir, f"plot-{m}-{wl}.dat")
            with open(path, "w") as f:
                for kb, v in pts:
                    f.write(f"{kb} {v}\n")
            plots.append(f"'{path}' using 1:2 with linespoints lw 2 pt 7 ps 0.6 dt {dash} lc rgb "
                         f"'{colors[i % len(colors)]}' title '{m} {WORKLOADS[wl][0]}'")
        k = md["kernel"]
        if (m, "seq1", k) in runs:
            path = os.path.join(args.workdir, f"plot-{m}-kernel.dat")
            with open(path, "w") as f:
                f.write(f"{k} {runs[(m, 'seq1', k)]['mib_per_s']}\n")
            plots.append(f"'{path}' using 1:2 with points pt 6 ps 2 lw 2 lc rgb '{colors[i % len(colors)]}' "
                         f"title '{m} kernel default ({size(k)})'")
    arrows = "\n".join(f"set arrow from {kb},graph 0 to {kb},graph 1 nohead dt 3 lw 2 lc rgb 'black'\n"
                       f"set label 'agent {size(kb)}' at {kb},graph 0.04 offset 0.5,0"
                       for kb in sorted(agent_kb))
    script = f"""
set terminal pngcairo size 960,600 font 'DejaVu Sans,10'
set output '{args.png}'
set title 'Sequential read throughput against read\\_ahead\\_kb (emulated devices, 4 KiB reads)'
set logscale x 2
set logscale y 2
set xrange [12:22000]
set xtics ("16K" 16, "64K" 64, "256K" 256, "1M" 1024, "4M" 4096, "16M" 16384)
set xlabel 'read\\_ahead\\_kb'
set ylabel 'MiB/s consumed'
set grid
set key outside right top
{arrows}
plot {", ".join(plots)}
"""
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"gnuplot failed: {r.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--elapsed", type=int, required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--cpus", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--png")
    ap.add_argument("--out")
    args = ap.parse_args()
    meta, order, runs = load(args.results, args.meta)
    text = report(args, meta, order, runs)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.png:
        plot(args, meta, order, runs)


if __name__ == "__main__":
    main()
