#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The TSV, the plot (gnuplot) and the markdown tables of bench/nfs-benefit.

  nfs-benefit-report.py append TSV LOG...     the rows of guest logs
      (tests/vm/guest/nfs-benefit.sh: a "header" line, then one "row" line a
      run) added to the TSV; rows of an older header get the new columns
      (setting "sweep", read_kb 4: the 4 KiB dd reads the first passes used)
  nfs-benefit-report.py missing TSV GROUP RTT SWEEP REPS SETTINGS READ_KB
      exit 0 when that group x RTT still lacks runs (bench/nfs-benefit resumes)
  nfs-benefit-report.py report TSV PNG MARKDOWN [READ_KB]
      a PNG, and the tables into the markdown file between the two marker
      lines (the prose around them is kept), from the TSV's runs of one read
      size (default: the last row's)

A cell is every run of one group, RTT, setting and read_ahead_kb: its median
and interquartile range (spread: IQR over median) are reported, and a cell
whose spread exceeds 10% is flagged.
"""
import os
import subprocess
import sys

GROUPS = {
    "r1m": "NFSv4.2, rsize 1M, 1 reader",
    "r512": "NFSv4.2, rsize 512K, 1 reader",
    "r32": "NFSv4.2, rsize 32K, 1 reader",
    "v3": "NFSv3, rsize 1M, 1 reader",
    "s4": "NFSv4.2, rsize 1M, 4 readers",
    "small": "NFSv4.2, rsize 1M, 8 readers, 512 MiB client",
}
# What others choose (the survey): read_ahead_kb -> who.
OTHERS = {128: "kernel, nfsrahead", 15360: "amazon-ec2-utils (AKS: 15380)"}
# The seed (Wu 2010), rsize 512K, 5+5 ms netem: MB/s by read_ahead_kb.
SEED_512K_10MS = {128: 11.9, 512: 39.8, 2048: 84.1}
BEGIN = "<!-- tables: bench/nfs-benefit-report.py writes from here -->"
END = "<!-- tables: end -->"


def product_kb(rows, group):
    """The default profile's value now, max(1M, 4 x rsize), under the memory
    cap: the 4 GiB guest's 4M, or 512K for the 512 MiB client. The TSV's
    product_kb is what readahead-ctl status said when the run was made."""
    r = next(r for r in rows if r["group"] == group)
    cap = 512 if group == "small" else 4096
    return min(max(1024, 4 * int(r["rsize_kb"])), cap)


def size(kb):
    kb = int(kb)
    return f"{kb // 1024}M" if kb >= 1024 and kb % 1024 == 0 else f"{kb}K"


# Columns added after the first passes, and what those passes' rows mean by them.
DEFAULTS = {"setting": "sweep", "read_kb": "4"}
SPREAD_FLAG = 0.10  # a cell whose IQR exceeds this share of its median is flagged


def load_logs(logs):
    header, rows = None, []
    for log in logs:
        with open(log) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("header\t"):
                    header = line.split("\t")[1:]
                elif line.startswith("row\t"):
                    rows.append(dict(zip(header, line.split("\t")[1:])))
    return header, rows


def load_tsv(tsv):
    if not os.path.exists(tsv):
        return None, []
    with open(tsv) as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    for r in rows:
        for k, v in DEFAULTS.items():
            if not r.get(k):
                r[k] = v
    return header, rows


def write_tsv(tsv, header, rows):
    with open(tsv + ".new", "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(r.get(h, "") for h in header) + "\n")
    os.replace(tsv + ".new", tsv)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[(n - 1) // 2] + xs[n // 2]) / 2


def quartiles(xs):
    """Q1 and Q3 as medians of the lower and upper halves (Tukey's hinges)."""
    xs = sorted(xs)
    half = len(xs) // 2
    if len(xs) < 2:
        return xs[0], xs[0]
    return median(xs[:half] if len(xs) % 2 == 0 else xs[:half + 1]), median(xs[half:])


def index(rows, by_setting=True):
    """A cell per group, RTT, read_ahead_kb and setting (by_setting False:
    every setting's runs of that value together): the median of its runs."""
    runs = {}
    for r in rows:
        key = (r["group"], int(r["rtt_ms"]), int(r["read_ahead_kb"]))
        runs.setdefault(key + (r["setting"],) if by_setting else key, []).append(r)
    cell = {}
    for key, rs in runs.items():
        c = dict(rs[0])
        v = [float(r["mib_per_s"]) for r in rs]
        c["mib_per_s"] = median(v)
        q1, q3 = quartiles(v)
        c["spread"] = (q3 - q1) / c["mib_per_s"] if c["mib_per_s"] else 0.0
        c["q1"], c["q3"] = q1, q3
        for f in ("amplification", "rtt_ms_per_read"):
            c[f] = median([float(r[f]) for r in rs])
        cpu = [float(r["cpu_busy_pct"]) for r in rs if r.get("cpu_busy_pct")]
        c["cpu"] = median(cpu) if cpu else None
        c["runs"] = len(rs)
        c["values"] = v
        cell[key] = c
    return cell


def beats(a, b):
    """The chance that a run of cell a reads more than a run of cell b (ties
    half): 0.5 when the two cannot be told apart, whatever their spread."""
    wins = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a["values"] for y in b["values"])
    return wins / (len(a["values"]) * len(b["values"]))


def sweep(cell):
    """The sweep's cells keyed as the tables read them: (group, rtt, kb)."""
    return {k[:3]: c for k, c in cell.items() if k[3] == "sweep"}


def axes(rows, group):
    rtts = sorted({int(r["rtt_ms"]) for r in rows if r["group"] == group})
    kbs = sorted({int(r["read_ahead_kb"]) for r in rows if r["group"] == group})
    return rtts, kbs


def fmt(c):
    """A cell: its median, its spread in parentheses, flagged past SPREAD_FLAG."""
    flag = "†" if c["spread"] > SPREAD_FLAG else ""
    return f"{c['mib_per_s']:.1f} ({100 * c['spread']:.0f}%){flag}" if c["runs"] > 1 else f"{c['mib_per_s']:.1f}"


def group_table(rows, cell, group):
    rtts, kbs = axes(rows, group)
    product = product_kb(rows, group)
    cells = sweep(cell)
    small = group == "small"
    seed = group == "r512"
    out = [f"#### {GROUPS.get(group, group)}", ""]
    head = ["read_ahead_kb", "chosen by"] + [f"{t} ms" for t in rtts]
    if small:
        head += [f"amplification {t} ms" for t in rtts]
    if seed:
        head += ["seed, 5+5 ms (MB/s)"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    best = {}
    for t in rtts:
        vals = [(cells[(group, t, k)]["mib_per_s"], k) for k in kbs if (group, t, k) in cells]
        best[t] = max(vals) if vals else (0, 0)
    for k in kbs:
        who = [OTHERS[k]] if k in OTHERS else []
        if k == product:
            who.append("**this product**")
        line = [size(k), ", ".join(who)]
        for t in rtts:
            r = cells.get((group, t, k))
            if not r:
                line.append("")
                continue
            line.append(f"**{fmt(r)}**" if best[t][1] == k else fmt(r))
        if small:
            for t in rtts:
                r = cells.get((group, t, k))
                line.append(f"{r['amplification']:.2f}" if r else "")
        if seed:
            line.append(f"{SEED_512K_10MS[k]}" if k in SEED_512K_10MS else "")
        out.append("| " + " | ".join(line) + " |")
    busy = []
    for t in rtts:
        cpu = [c["cpu"] for key, c in cells.items() if key[0] == group and key[1] == t and c["cpu"] is not None]
        busy.append(f"{median(cpu):.0f}%" if cpu else "")
    if any(busy):
        out.append("| guest CPUs busy (median) | | " + " | ".join(busy) + " |" + " |" * (len(head) - 2 - len(rtts)))
    out.append("")
    return out, product, best


def summary(rows, cell):
    """Per group x RTT: the sweep's best median, the profile's value and the
    value advise ended at, each measured as a setting of its own, and every
    run at advise's value (all settings), against which the best is judged."""
    out = [
        "| group | RTT | best median (spread) | profile | % of best | advise: path | advise's value | % of best "
        "| every run at advise's value | % of best | 128K (kernel) | % of best | 15360K (AWS) | % of best "
        "| separable? | a run at the best beats one at advise's value |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    cells = sweep(cell)
    pooled = index(rows, by_setting=False)
    for g in GROUPS:
        if not any(r["group"] == g for r in rows):
            continue
        rtts, kbs = axes(rows, g)
        for t in rtts:
            vals = [(cells[(g, t, k)]["mib_per_s"], k) for k in kbs if (g, t, k) in cells]
            if not vals:
                continue
            b, bk = max(vals)
            bc = cells[(g, t, bk)]

            def setting(name):
                found = [(k, c) for k, c in cell.items() if k[0] == g and k[1] == t and k[3] == name]
                return found[0] if found else (None, None)

            def pct(c):
                return f"{100 * c['mib_per_s'] / b:.0f}%" if c else ""

            pk, pc = setting("profile")
            ak, ac = setting("advise")
            if pc is None:  # no profile runs: the sweep's cell at the profile's value
                pk, pc = (g, t, product_kb(rows, g), "sweep"), cells.get((g, t, product_kb(rows, g)))
            k128, k15 = cells.get((g, t, 128)), cells.get((g, t, 15360))
            final = ac or pc
            # The value the product ends at, measured by all its runs: the
            # sweep's, the profile's and advise's runs of one value differ
            # only by when they ran.
            fk = (ak or pk)[2] if final else None
            every = pooled.get((g, t, fk)) if final else None
            # The product's value cannot be told from the best when their
            # interquartile ranges overlap (every run at the value, else
            # the setting's).
            sep, judged, odds = "", every or final, ""
            if judged and fk != bk and judged["runs"] > 1 and bc["runs"] > 1:
                sep = "yes" if judged["q3"] < bc["q1"] else "no (within spread)"
                odds = f"{100 * beats(bc, judged):.0f}%"
            out.append(
                f"| {g} | {t} ms | {fmt(bc)} at {size(bk)} | {fmt(pc) + ' at ' + size(pk[2]) if pc else ''} | {pct(pc)} "
                f"| {ac['advise_path'] if ac else ''} | {fmt(ac) + ' at ' + size(ak[2]) if ac else ''} | {pct(ac)} "
                f"| {fmt(every) + ', ' + str(every['runs']) + ' runs' if every else ''} | {pct(every)} "
                f"| {fmt(k128) if k128 else ''} | {pct(k128)} | {fmt(k15) if k15 else ''} | {pct(k15)} | {sep} | {odds} |")
    out.append("")
    return out


# Rules a profile could encode for one reader, by rsize (KiB): the default
# profile's and floors above it.
RULES = [
    ("max(512K, 4 x rsize) (the default profile when measured)", lambda rsize: max(512, 4 * rsize)),
    ("max(1M, 4 x rsize) (the default profile now)", lambda rsize: max(1024, 4 * rsize)),
    ("max(2M, 4 x rsize)", lambda rsize: max(2048, 4 * rsize)),
    ("max(4M, 4 x rsize)", lambda rsize: max(4096, 4 * rsize)),
    ("8 x rsize, at least 512K", lambda rsize: max(512, 8 * rsize)),
    ("15360K (amazon-ec2-utils)", lambda rsize: 15360),
    ("128K (kernel, nfsrahead)", lambda rsize: 128),
]


def rules(rows, cell):
    """Each rule's MiB/s as a share of the best, one reader, delayed columns."""
    cols = [(g, t) for g in ("r1m", "r512", "r32", "v3") for t in (2, 10, 20)
            if any(k[0] == g and k[1] == t for k in sweep(cell))]
    out = ["| rule | " + " | ".join(f"{g} {t} ms" for g, t in cols) + " | worst |",
           "|---|" + "---|" * (len(cols) + 1)]
    for name, rule in RULES:
        line, worst = [name], 100.0
        for g, t in cols:
            rsize = int(next(r["rsize_kb"] for r in rows if r["group"] == g))
            kb = rule(rsize)
            vals = {k[2]: c["mib_per_s"] for k, c in sweep(cell).items() if k[0] == g and k[1] == t}
            if kb not in vals:
                line.append("")
                continue
            share = 100 * vals[kb] / max(vals.values())
            worst = min(worst, share)
            line.append(f"{share:.0f}% ({size(kb)})")
        out.append("| " + " | ".join(line) + f" | {worst:.0f}% |")
    out.append("")
    return out


def plot(rows, cell, png, read_kb):
    cell = sweep(cell)
    groups = [g for g in GROUPS if any(r["group"] == g for r in rows)]
    data = png + ".dat"
    blocks = []
    with open(data, "w") as f:
        for g in groups:
            rtts, kbs = axes(rows, g)
            for t in rtts:
                f.write(f"# {g} {t} ms\n")
                for k in kbs:
                    r = cell.get((g, t, k))
                    if r:
                        f.write(f"{k}\t{r['mib_per_s']}\n")
                f.write("\n\n")
                blocks.append((g, t))
    cols = 3
    nrows = (len(groups) + cols - 1) // cols
    script = [
        f"set terminal pngcairo size {420 * cols},{330 * nrows} font ',9'",
        f"set output '{png}'",
        f"set multiplot layout {nrows},{cols} title 'bench/nfs-benefit: median MiB/s by read\\_ahead\\_kb, "
        f"{read_kb} KiB sequential reads (QEMU TCG lab; dashed: 128K kernel, the profile, 15360K AWS)'",
        "set logscale x 2",
        "set xtics ('16K' 16, '64K' 64, '256K' 256, '1M' 1024, '4M' 4096, '16M' 16384)",
        "set key top left",
        "set grid",
        "set yrange [0:*]",
    ]
    for g in groups:
        product = product_kb(rows, g)
        script.append("unset arrow")
        for x in sorted({128, product, 15360}):
            script.append(f"set arrow from {x}, graph 0 to {x}, graph 1 nohead dt 2 lc rgb 'gray40'")
        script.append(f"set title '{GROUPS[g]}'")
        parts = []
        for i, (bg, t) in enumerate(blocks):
            if bg == g:
                parts.append(f"'{data}' index {i} using 1:2 with linespoints title '+{t} ms RTT'")
        script.append("plot " + ", ".join(parts))
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, check=True)
    os.unlink(data)


def append(tsv, logs):
    header, rows = load_tsv(tsv)
    log_header, new = load_logs(logs)
    if not new:
        print(f"nfs-benefit-report: no rows in {' '.join(logs)}", file=sys.stderr)
        return
    header = log_header if not header else header + [h for h in log_header if h not in header]
    write_tsv(tsv, header, rows + new)
    print(f"{tsv}: {len(new)} runs added ({len(rows) + len(new)} in all)", file=sys.stderr)


def missing(tsv, group, rtt, kbs, reps, settings, read_kb):
    """True when a setting of GROUP x RTT has fewer than REPS runs."""
    _, rows = load_tsv(tsv)
    have = {}
    for r in rows:
        if r["group"] == group and r["rtt_ms"] == rtt and r["read_kb"] == read_kb:
            key = (r["setting"], int(r["read_ahead_kb"])) if r["setting"] == "sweep" else (r["setting"], 0)
            have[key] = have.get(key, 0) + 1
    want = [("sweep", int(k)) for k in kbs.split(",")] if "sweep" in settings.split(",") else []
    want += [(s, 0) for s in settings.split(",") if s != "sweep"]
    return any(have.get(w, 0) < int(reps) for w in want)


def report(tsv, png, md, read_kb=None):
    _, rows = load_tsv(tsv)
    if not rows:
        sys.exit(f"nfs-benefit-report: no runs in {tsv}")
    read_kb = read_kb or rows[-1]["read_kb"]
    rows = [r for r in rows if r["read_kb"] == read_kb]
    cell = index(rows)
    plot(rows, cell, png, read_kb)

    n = sorted({c["runs"] for c in cell.values()})
    tables = [f"Runs with {read_kb} KiB reads: {len(rows)}; {' to '.join(map(str, (n[0], n[-1])))} per cell. "
              f"A cell is the median of its runs, with its spread (interquartile range over median) in "
              f"parentheses; † marks a spread over {100 * SPREAD_FLAG:.0f}%.", ""]
    tables += ["### Summary: each setting against the best median", ""]
    tables += summary(rows, cell)
    tables += ["### Rules against the best median (one reader, 2-20 ms added RTT)", ""]
    tables += rules(rows, cell)
    tables += ["### MiB/s by read_ahead_kb and added RTT (the best median of each column in bold)", ""]
    for g in GROUPS:
        if any(r["group"] == g for r in rows):
            tables += group_table(rows, cell, g)[0]
    text = open(md).read() if os.path.exists(md) else f"{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        sys.exit(f"nfs-benefit-report: {md} lacks the marker lines")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(md, "w") as f:
        f.write(head + BEGIN + "\n" + "\n".join(tables) + END + tail)
    print(f"wrote {png}, {md} ({len(rows)} runs of {read_kb} KiB reads)", file=sys.stderr)


def main():
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if cmd == "append" and len(args) >= 2:
        append(args[0], args[1:])
    elif cmd == "missing" and len(args) == 7:
        sys.exit(0 if missing(*args) else 1)
    elif cmd == "report" and len(args) in (3, 4):
        report(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
