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


if __name__ == "__main__":
    main()
