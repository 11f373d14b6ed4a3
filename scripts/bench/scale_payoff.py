#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Payoff points of an expansion 1,024 -> 4,096 processes (32x32 -> 64x64) for the PDGEMM
and PDGETRF drivers (docs/measurements/scale.md, "Payoff at 1,024 -> 4,096").

The project's own rule (resize::predict_payoff, the thesis §5.3, DRMS eq. 4):
    payoff = ceil((t_spawn + t_redist + t_other) / (t_iter_now - t_iter_new))
fed with
  - t_redist: the simulated redistribution (SimGrid, docs/data/scale_sim/results.tsv,
    case exp4096, default schedule, non-blocking fat tree), scaled from its N to each N by
    the node-link bound (bytes through the busiest node link grow as N^2) at the simulated
    ratio time / bound; one matrix for PDGETRF (A; b is N elements), two for PDGEMM (A, B).
  - t_spawn: growing onto nodes with one spawn group per node, measured on the emulated
    cluster (docs/data/cluster/nodes.txt: 1, 2, 3 nodes). 3,072 new processes are 192 nodes
    of 16: an EXTRAPOLATION far beyond the measured 3 nodes, given two ways: "linear" (the
    least-squares line in nodes through the 3 measurements, as if each node's group added
    its measured increment; pessimistic) and "flat" (the 1-node time: the groups spawn at
    the same time and nothing grows with their number; optimistic).
  - t_other: the "other" phase of an expansion by spawn measured in docs/guide/checkpoint.md
    (2x2 -> 3x3: 301.9 ms; BLACS grid and bookkeeping).
  - t_iter: the session's predictor's own model (resize::compute_time: work / speed, no
    communication term): PDGEMM 2 N^3 flops, PDGETRF 2/3 N^3 flops per iteration, spread
    evenly over P processes at one core's DGEMM / DGETRF rate measured here by
    core_rate in scripts/bench/probes.c (OpenBLAS, one thread, CPU time). Leaving communication out
    makes the iteration on 4,096 processes look faster than it is, so the payoff points
    are a lower bound for a real code.

  scripts/bench/scale_payoff.py [--rates GEMM,GETRF] [--variant notest] [--out docs/data/scale_sim]
Writes payoff.tsv and payoff.md in --out and prints the table.

Subcommands: payoff-plot [--results MD] [--img PNG] (the payoff plot of Tables 5.3-5.12) and
plan-scale-table [docs/data/plan-scale.txt] (scale.md's plan tables); their notes in
DOC_PAYOFF_PLOT and DOC_PLAN_SCALE_TABLE below.
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIZES = [4096, 8192, 16384, 32768, 65536, 100000, 131072, 200000]
P_OLD, P_NEW, PER_NODE = 1024, 4096, 16
T_OTHER = 0.3019  # docs/guide/checkpoint.md: 2x2 -> 3x3 by spawn, "other" 301.9 ms


def core_rates():
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "core_rate")
        subprocess.run(["cc", "-O2", "-DPROBE_CORE_RATE", os.path.join(HERE, "probes.c"), "-o", exe, "-lopenblas", "-llapacke"],
                       check=True)
        out = subprocess.run([exe, "1500", "3"], check=True, capture_output=True, text=True,
                             env=dict(os.environ, OPENBLAS_NUM_THREADS="1")).stdout
    kv = dict(f.split("=") for f in out.split())
    return float(kv["dgemm_gflops"]), float(kv["dgetrf_gflops"])


def spawn_fit(path):
    pts = []
    for line in open(path):
        if line.startswith("#") or line.strip().startswith("nodes"):
            continue
        f = line.split()
        pts.append((int(f[0]), float(f[3]) / 1e3))  # nodes, expand (per-node groups) s
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return pts, slope, my - slope * mx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rates", help="GEMM,GETRF Gflop/s of one core (default: measure with core_rate in probes.c)")
    ap.add_argument("--variant", default="notest", help="results.tsv variant of the simulated run")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/data/scale_sim"))
    a = ap.parse_args()
    r_mm, r_lu = map(float, a.rates.split(",")) if a.rates else core_rates()

    rows = list(csv.DictReader(open(os.path.join(ROOT, "docs/data/scale_sim/results.tsv")), delimiter="\t"))
    sim = [r for r in rows if r["case"] == "exp4096" and r["schedule"] == "default" and r["platform"] == "fattree"
           and r.get("variant") == a.variant]
    if not sim:
        sys.exit(f"scale_payoff: no exp4096/default/fattree run of variant {a.variant} in results.tsv")
    s = sim[-1]
    n_sim, t_sim, b_sim = int(s["N"]), float(s["sim_time_s"]), float(s["node_bound_s"])
    ratio = t_sim / b_sim

    pts, slope, icpt = spawn_fit(os.path.join(ROOT, "docs/data/cluster/nodes.txt"))
    nodes_new = (P_NEW - P_OLD) // PER_NODE
    spawn = {"linear": icpt + slope * nodes_new, "flat": pts[0][1]}

    out_rows = []
    for app, flops, rate, mats in (("PDGEMM", lambda n: 2.0 * n ** 3, r_mm, 2),
                                   ("PDGETRF", lambda n: 2.0 / 3.0 * n ** 3, r_lu, 1)):
        for n in SIZES:
            t_now = flops(n) / (P_OLD * rate * 1e9)
            t_new = flops(n) / (P_NEW * rate * 1e9)
            t_red = mats * ratio * b_sim * (n / n_sim) ** 2
            row = {"app": app, "N": n, "t_iter_1024_s": t_now, "t_iter_4096_s": t_new, "t_redist_s": t_red}
            for k, ts in spawn.items():
                t_r = ts + t_red + T_OTHER
                row[f"t_resize_{k}_s"] = t_r
                row[f"payoff_{k}"] = math.ceil(t_r / (t_now - t_new))
            out_rows.append(row)

    os.makedirs(a.out, exist_ok=True)
    keys = list(out_rows[0].keys())
    with open(os.path.join(a.out, "payoff.tsv"), "w") as f:
        f.write("\t".join(keys) + "\n")
        for r in out_rows:
            f.write("\t".join(f"{r[k]:.6g}" if isinstance(r[k], float) else str(r[k]) for k in keys) + "\n")

    md = []
    md.append(f"Inputs: one core {r_mm:.1f} Gflop/s DGEMM, {r_lu:.1f} Gflop/s DGETRF (core_rate in probes.c, OpenBLAS, one "
              f"thread, CPU time); redistribution {ratio:.2f}x the node-link bound (simulated exp4096, N = {n_sim}: "
              f"{t_sim * 1e3:.2f} ms, bound {b_sim * 1e3:.2f} ms, variant {a.variant}); spawn of {P_NEW - P_OLD} "
              f"processes on {nodes_new} nodes extrapolated from {len(pts)} measured points "
              f"({', '.join(str(x) + (' nodes ' if x > 1 else ' node ') + f'{y * 1e3:.0f} ms' for x, y in pts)}): linear "
              f"{spawn['linear']:.2f} s ({slope * 1e3:.1f} ms per node), flat {spawn['flat']:.2f} s; other "
              f"{T_OTHER:.2f} s.\n")
    md.append("| driver | N | iteration on 1,024 | on 4,096 | redistribution | resize (linear spawn) | payoff | "
              "resize (flat spawn) | payoff |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    fmt = lambda t: f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"
    for r in out_rows:
        md.append(f"| {r['app']} | {r['N']:,} | {fmt(r['t_iter_1024_s'])} | {fmt(r['t_iter_4096_s'])} | "
                  f"{fmt(r['t_redist_s'])} | {fmt(r['t_resize_linear_s'])} | {r['payoff_linear']} | "
                  f"{fmt(r['t_resize_flat_s'])} | {r['payoff_flat']} |")
    text = "\n".join(md) + "\n"
    open(os.path.join(a.out, "payoff.md"), "w").write(text)
    print(text)



# ---- payoff-plot (`scripts/bench/scale_payoff.py payoff-plot ARGS`, its arguments as when it was a script of its own)
DOC_PAYOFF_PLOT = """The payoff plot of docs/measurements/results.md ("Tables 5.3-5.12"), drawn again from the
payoff column of the committed tables, without rerunning reproduce.sh (report.py draws the
same plot from a run's raw data, with the same colours).

    scale_payoff.py payoff-plot [--results docs/measurements/results.md] [--img docs/img/payoff.png]

One colour per (program, N), Global dashed and Local2 solid: gnuplot's own cycle repeats
after 8 series, and the plot has 9.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"]
HEADER = 'set terminal pngcairo size 900,560 font "Sans,10" noenhanced\nset output "{out}"\nset format y "%g"\nset grid\n'


def plot_lines(plot_rows, path_of):
    """gnuplot plot clauses: plot_rows {(app, n): [(k, change, payoff_global, payoff_local2)]};
    path_of(app, n) is the data file of that series (columns: index, Global, Local2)."""
    lines = []
    for k, (app, n) in enumerate(sorted(plot_rows)):
        colour = PALETTE[k % len(PALETTE)]
        path = path_of(app, n)
        lines.append(f'"{path}" using 1:2 with linespoints lc rgb "{colour}" dt 2 lw 2 title "{app} N={n} Global"')
        lines.append(f'"{path}" using 1:3 with linespoints lc rgb "{colour}" dt 1 lw 2 title "{app} N={n} Local2"')
    return lines


def script(plot_rows, changes, path_of):
    labels = " ".join(f'"{ch}" {i + 1},' for i, ch in enumerate(changes)).rstrip(",")
    return ("set title 'Payoff point (iterations, dedicated-core t_p) per expansion'\n"
            f"set xtics ({labels})\nset xlabel 'expansion'\nset ylabel 'payoff point'\nset logscale y\n"
            "set key outside right\nplot " + ", ".join(plot_lines(plot_rows, path_of)) + "\n")


def rows_from_results(text):
    """{(app, n): [(k, change, G, L)]} and the changes, from the section's tables."""
    sec = text.split("## Tables 5.3-5.12", 1)[1].split("\n## ", 1)[0]
    rows, changes, app = {}, [], None
    for line in sec.split("\n"):
        m = re.match(r"^\*\*(\w+)\*\*$", line.strip())
        if m:
            app = m.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if app and len(cells) > 8 and cells[0].isdigit():
            g, l_ = (None if v == "never" else float(v) for v in cells[7].split(" / "))
            if cells[1] not in changes:
                changes.append(cells[1])
            rows.setdefault((app, int(cells[0])), []).append((changes.index(cells[1]), cells[1], g, l_))
    return rows, changes


def main_payoff_plot():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    ap = argparse.ArgumentParser(description=DOC_PAYOFF_PLOT, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(root, "docs", "measurements", "results.md"))
    ap.add_argument("--img", default=os.path.join(root, "docs", "img", "payoff.png"))
    a = ap.parse_args()
    rows, changes = rows_from_results(open(a.results).read())
    if not rows:
        sys.exit(f"scale_payoff.py payoff-plot: no payoff table in {a.results}")
    with tempfile.TemporaryDirectory() as t:
        for (app, n), pts in rows.items():
            with open(os.path.join(t, f"payoff_{app}_{n}.dat"), "w") as f:
                for k, _, g, l_ in pts:
                    f.write(f"{k + 1} {'NaN' if g is None else g} {'NaN' if l_ is None else l_}\n")
        gp = os.path.join(t, "payoff.gp")
        with open(gp, "w") as f:
            f.write(HEADER.format(out=a.img) + script(rows, changes, lambda app, n: os.path.join(t, f"payoff_{app}_{n}.dat")))
        subprocess.run(["gnuplot", gp], check=True)
    print(f"scale_payoff.py payoff-plot: {a.img} drawn from {len(rows)} series of {a.results}")
    return 0


# ---- plan-scale-table (`scripts/bench/scale_payoff.py plan-scale-table ARGS`, its arguments as when it was a script of its own)
DOC_PLAN_SCALE_TABLE = """docs/measurements/scale.md's plan tables from scripts/bench/redist.sh plan-scale's output (docs/data/plan-scale.txt):
one rank's make_plan time (ms) and heap (KiB) at P near 1,024 / 4,096 / 16,384 / 65,536 for
each grid family and block size, the slowest of the schedules beside the default one, the
default's first repetition, and the fitted growth exponents. Usage: scale_payoff.py plan-scale-table [docs/data/plan-scale.txt]"""


def main_plan_scale_table():
    path = sys.argv[1] if len(sys.argv) > 1 else "docs/data/plan-scale.txt"
    rows, fits, in_fit = [], [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("# growth exponent"):
            in_fit = True
            continue
        if line.startswith("#") or not line.strip() or line.startswith("family"):
            continue
        f = line.split()
        if in_fit:
            fits.append(f)
        elif f[0] in ("divisor", "coprime"):
            rows.append({"family": f[0], "grids": f[1], "P": int(f[2]), "nb": f[3], "schedule": f[4],
                         "ms": float(f[5]), "first_ms": float(f[6]), "kib": float(f[7]), "transfers": int(f[10])})

    sizes = [1024, 4096, 16384, 65536]
    kib = lambda v: f"{v:,.1f}" if v < 10 else f"{v:,.0f}"
    near = lambda p, q: abs(p - q) <= q // 8  # 1,089 ~ 1,024, 4,225 ~ 4,096, 66,049 ~ 65,536
    blocks = []
    for r in rows:
        if r["nb"] not in blocks:
            blocks.append(r["nb"])
    print("| family | grids | P | nb | default: ms / KiB | slowest schedule: ms / KiB | default, first call: ms | transfers held |")
    print("|---|---|---|---|---|---|---|---|")
    for fam in ("divisor", "coprime"):
        for nb in blocks:
            for grids in dict.fromkeys(r["grids"] for r in rows if r["family"] == fam and r["nb"] == nb):
                sel = [r for r in rows if r["family"] == fam and r["nb"] == nb and r["grids"] == grids]
                if not sel or not any(near(sel[0]["P"], q) for q in sizes):
                    continue
                d = next(r for r in sel if r["schedule"] == "default")
                w = max(sel, key=lambda r: r["ms"])
                print(f"| {fam} | {grids.replace('^2', '²')} | {d['P']:,} | {nb} | {d['ms']:.3f} / {kib(d['kib'])} | "
                      f"{w['ms']:.3f} / {kib(w['kib'])} ({w['schedule']}) | {d['first_ms']:.3f} | {d['transfers']:,} |")
    print()
    print("Growth exponent in P of the whole call (least squares on log-log, P ≥ 64):")
    print()
    print("| family | nb | schedule | time | heap |")
    print("|---|---|---|---|---|")
    for f in fits:
        print("| " + " | ".join(f) + " |")


# The subcommands: the scripts folded in above, each run as it was (scripts/bench/subcommands.py).
if __name__ == "__main__":
    import subcommands
    sys.exit(subcommands.run(main, {
        "payoff-plot": main_payoff_plot,
        "plan-scale-table": main_plan_scale_table,
    }))
