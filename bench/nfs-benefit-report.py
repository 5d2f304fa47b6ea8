#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The TSV, the plot (gnuplot) and the markdown tables of bench/nfs-benefit.

Reads the guest's logs (tests/vm/guest/nfs-benefit.sh: a "header" line, then
one "row" line a run; a second log is a second pass, averaged); writes the TSV as measured, a PNG, and the tables into
the markdown file between the two marker lines (the prose around them is
kept; a new file gets the markers only).
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


def load(logs):
    header, rows = None, []
    for log in logs:
        with open(log) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("header\t"):
                    header = line.split("\t")[1:]
                elif line.startswith("row\t"):
                    rows.append(dict(zip(header, line.split("\t")[1:])))
    if not header or not rows:
        sys.exit(f"nfs-benefit-report: no rows in {' '.join(logs)}")
    return header, rows


def index(rows):
    """Runs of the same cell (a second pass of the sweep) are averaged."""
    runs = {}
    for r in rows:
        runs.setdefault((r["group"], int(r["rtt_ms"]), int(r["read_ahead_kb"])), []).append(r)
    cell = {}
    for key, rs in runs.items():
        c = dict(rs[0])
        for f in ("mib_per_s", "amplification", "rtt_ms_per_read"):
            c[f] = str(sum(float(r[f]) for r in rs) / len(rs))
        c["runs"] = len(rs)
        cell[key] = c
    return cell


def axes(rows, group):
    rtts = sorted({int(r["rtt_ms"]) for r in rows if r["group"] == group})
    kbs = sorted({int(r["read_ahead_kb"]) for r in rows if r["group"] == group})
    return rtts, kbs


def group_table(rows, cell, group):
    rtts, kbs = axes(rows, group)
    product = product_kb(rows, group)
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
        vals = [(float(cell[(group, t, k)]["mib_per_s"]), k) for k in kbs if (group, t, k) in cell]
        best[t] = max(vals) if vals else (0, 0)
    for k in kbs:
        who = [OTHERS[k]] if k in OTHERS else []
        if k == product:
            who.append("**this product**")
        line = [size(k), ", ".join(who)]
        for t in rtts:
            r = cell.get((group, t, k))
            if not r:
                line.append("")
                continue
            v = float(r["mib_per_s"])
            line.append(f"**{v:.1f}**" if best[t][1] == k else f"{v:.1f}")
        if small:
            for t in rtts:
                r = cell.get((group, t, k))
                line.append(f"{float(r['amplification']):.2f}" if r else "")
        if seed:
            line.append(f"{SEED_512K_10MS[k]}" if k in SEED_512K_10MS else "")
        out.append("| " + " | ".join(line) + " |")
    out.append("")
    return out, product, best


def summary(rows, cell):
    out = [
        "| group | RTT | best (MiB/s) | this product | % of best | 128K (kernel) | % of best "
        "| 15360K (AWS, AKS) | % of best |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for g in GROUPS:
        if not any(r["group"] == g for r in rows):
            continue
        rtts, kbs = axes(rows, g)
        product = product_kb(rows, g)
        for t in rtts:
            vals = [(float(cell[(g, t, k)]["mib_per_s"]), k) for k in kbs if (g, t, k) in cell]
            b, bk = max(vals)

            def at(k):
                r = cell.get((g, t, k))
                if not r:
                    return "", ""
                v = float(r["mib_per_s"])
                return f"{v:.1f}", f"{100 * v / b:.0f}%"

            p, pp = at(product)
            k128, p128 = at(128)
            k15, p15 = at(15360)
            out.append(f"| {g} | {t} ms | {b:.1f} at {size(bk)} | {p} at {size(product)} | {pp} "
                       f"| {k128} | {p128} | {k15} | {p15} |")
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
            if any(k[0] == g and k[1] == t for k in cell)]
    out = ["| rule | " + " | ".join(f"{g} {t} ms" for g, t in cols) + " | worst |",
           "|---|" + "---|" * (len(cols) + 1)]
    for name, rule in RULES:
        line, worst = [name], 100.0
        for g, t in cols:
            rsize = int(next(r["rsize_kb"] for r in rows if r["group"] == g))
            kb = rule(rsize)
            vals = {k[2]: float(c["mib_per_s"]) for k, c in cell.items() if k[0] == g and k[1] == t}
            if kb not in vals:
                line.append("")
                continue
            share = 100 * vals[kb] / max(vals.values())
            worst = min(worst, share)
            line.append(f"{share:.0f}% ({size(kb)})")
        out.append("| " + " | ".join(line) + f" | {worst:.0f}% |")
    out.append("")
    return out


def plot(rows, cell, png):
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
        f"set multiplot layout {nrows},{cols} title 'bench/nfs-benefit: MiB/s by read\\_ahead\\_kb, "
        "4 KiB sequential reads (QEMU TCG lab; dashed: 128K kernel, 4 x rsize product, 15360K AWS)'",
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


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: nfs-benefit-report.py TSV PNG MARKDOWN LOG...")
    tsv, png, md = sys.argv[1:4]
    header, rows = load(sys.argv[4:])
    with open(tsv, "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(r.get(h, "") for h in header) + "\n")
    cell = index(rows)
    plot(rows, cell, png)

    tables = ["### Summary: each setting against the best measured value", ""]
    tables += summary(rows, cell)
    tables += ["### Rules against the best measured value (one reader, 2-20 ms added RTT)", ""]
    tables += rules(rows, cell)
    n = sorted({c["runs"] for c in cell.values()})
    tables += ["### MiB/s by read_ahead_kb and added RTT (the best of each column in bold)", "",
               f"Each cell is the mean of {' or '.join(map(str, n))} run(s) of the TSV.", ""]
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
    print(f"wrote {tsv} ({len(rows)} runs), {png}, {md}", file=sys.stderr)


if __name__ == "__main__":
    main()
