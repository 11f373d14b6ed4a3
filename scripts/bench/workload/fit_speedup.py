#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Speedup curves fitted to the drivers' measured iteration times (docs/measurements/
workload.md, "Speedups from measurement"), for the cluster simulator's --speedup measured.

    fit_speedup.py RUNS_DIR --out sim/speedup/apps.json [--plot-data FILE]

RUNS_DIR holds one driver JSON per run (speedup_measure.sh writes them), named
APP_SIZE_PxQ.json (APP one of pdgemm pdgetrf pdgemv life, SIZE e.g. n2048). Each run's
iteration time is the median over its steady segment (the first iteration left out, as
the drivers' summary does) on two dedicated-core clocks (docs/reference/apps.md):
  cpu      max over ranks of the process CPU time per iteration: compute, communication
           and the CPU spent waiting in MPI (an upper estimate of a dedicated-core run)
  compute  max over ranks of the CPU time inside the compute kernels only (a lower one)
For each application, size and clock the relative times r(p) = T(p) / T(1) are fitted by
least squares (both parameters >= 0) to

    r(p) = s + (1 - s) / p + c * log2(p)

(Amdahl's serial fraction s plus a communication term c per doubling of the processes).
The file written: {"model": ..., "clock": CLOCK, "curves": [...CLOCK's fits],
"curves_cpu": [...], "curves_compute": [...], "points": [...every measured point]}; each
curve {"app", "size", "serial", "comm", "rms", "procs"}; the simulator reads "curves".
--clock (default compute) chooses which: on a shared host whose load makes ranks wait for
preempted peers, the cpu clock counts their polling and runs above the one-process time
at two processes (docs/measurements/workload.md), while the compute clock, kernels only,
leaves out communication and the work outside the metered kernels: an optimistic curve.
"""
import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

NAME = re.compile(r"^(?P<app>[a-z]+)_(?P<size>[a-z0-9]+)_(?P<p>\d+)x(?P<q>\d+)\.json$")


def steady_time(run, clock):
    """The median iteration time of the run's first segment on `clock` (wall, dedicated or
    compute), the segment's first iteration left out (a transient) when it has more."""
    segs = run.get("segments") or []
    if not segs:
        raise ValueError("no segment")
    key = {"wall": "median_wall_s", "cpu": "median_dedicated_s", "compute": "median_compute_s"}[clock]
    v = segs[0].get(key)
    if v is None or not v > 0:
        raise ValueError(f"no {clock} time")
    return float(v)


def fit(points):
    """Least squares of r(p) - 1/p = s (1 - 1/p) + c log2 p over points [(p, r)], s, c >= 0
    (the unconstrained solution, else the best with one of them 0). Returns (s, c, rms)."""
    rows = [(1 - 1 / p, math.log2(p), r - 1 / p) for p, r in points if p > 1]
    if not rows:
        raise ValueError("no point beyond one process")

    def sse(s, c):
        return sum((a * s + b * c - y) ** 2 for a, b, y in rows)

    saa = sum(a * a for a, _, _ in rows)
    sbb = sum(b * b for _, b, _ in rows)
    sab = sum(a * b for a, b, _ in rows)
    say = sum(a * y for a, _, y in rows)
    sby = sum(b * y for _, b, y in rows)
    cands = []
    det = saa * sbb - sab * sab
    if abs(det) > 1e-15:
        s, c = (say * sbb - sby * sab) / det, (sby * saa - say * sab) / det
        if s >= 0 and c >= 0:
            cands.append((s, c))
    cands.append((max(0.0, say / saa) if saa > 0 else 0.0, 0.0))
    cands.append((0.0, max(0.0, sby / sbb) if sbb > 0 else 0.0))
    cands.append((0.0, 0.0))
    s, c = min(cands, key=lambda sc: sse(*sc))
    s = min(s, 0.999)
    c = min(c, 0.999)
    n = len(points)
    rms = math.sqrt(sum((s + (1 - s) / p + c * math.log2(p) - r) ** 2 for p, r in points) / n)
    return s, c, rms


def load(runs_dir):
    """{(app, size): {procs: run JSON}}."""
    out = {}
    for path in sorted(glob.glob(os.path.join(runs_dir, "*.json"))):
        m = NAME.match(os.path.basename(path))
        if not m:
            continue
        with open(path) as f:
            run = json.load(f)
        p = int(m["p"]) * int(m["q"])
        out.setdefault((m["app"], m["size"]), {})[p] = run
    return out


def curves(runs, clock):
    result, points = [], []
    for (app, size), by_p in sorted(runs.items()):
        if 1 not in by_p:
            print(f"fit_speedup: {app} {size}: no run on one process, left out", file=sys.stderr)
            continue
        t1 = steady_time(by_p[1], clock)
        pts = []
        for p, run in sorted(by_p.items()):
            t = steady_time(run, clock)
            pts.append((p, t / t1))
            points.append({"app": app, "size": size, "clock": clock, "procs": p, "seconds": t, "relative": t / t1})
        s, c, rms = fit(pts)
        result.append({"app": app, "size": size, "serial": round(s, 6), "comm": round(c, 6), "rms": round(rms, 4),
                       "procs": sorted(by_p)})
    return result, points


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("--out", required=True)
    ap.add_argument("--plot-data", help="also write 'app size clock procs relative fitted' lines for gnuplot")
    ap.add_argument("--clock", choices=("compute", "cpu"), default="compute", help="the clock of the curves the "
                    "simulator reads (default compute)")
    a = ap.parse_args(argv)
    runs = load(a.runs)
    if not runs:
        sys.exit(f"fit_speedup: no APP_SIZE_PxQ.json in {a.runs}")
    cpu, pts_cpu = curves(runs, "cpu")
    comp, pts_comp = curves(runs, "compute")
    doc = {"model": "T(p)/T(1) = serial + (1 - serial)/p + comm*log2(p), fitted by scripts/bench/workload/"
                    "fit_speedup.py to the drivers' dedicated-core iteration times (speedup_measure.sh)",
           "clock": a.clock, "curves": comp if a.clock == "compute" else cpu, "curves_cpu": cpu,
           "curves_compute": comp, "points": pts_cpu + pts_comp}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for name, cs in (("cpu", cpu), ("compute", comp)):
        for c in cs:
            print(f"{c['app']:8s} {c['size']:8s} {name:8s} serial {c['serial']:.4f} comm {c['comm']:.4f} "
                  f"rms {c['rms']:.3f} over {len(c['procs'])} sizes")
    if a.plot_data:
        fits = {(c["app"], c["size"], clk): c for clk, cs in (("cpu", cpu), ("compute", comp)) for c in cs}
        with open(a.plot_data, "w") as f:
            f.write("# app size clock procs relative fitted\n")
            for pt in pts_cpu + pts_comp:
                c = fits.get((pt["app"], pt["size"], pt["clock"]))
                if not c:
                    continue
                p = pt["procs"]
                r = c["serial"] + (1 - c["serial"]) / p + c["comm"] * math.log2(p)
                f.write(f"{pt['app']} {pt['size']} {pt['clock']} {p} {pt['relative']:.5f} {r:.5f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
