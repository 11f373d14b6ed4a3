#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Does the emulated slice's time compression decide its result? (docs/measurements/
workload.md, "Targets"). A slice's jobs run 10-120 s on the emulated cluster (their
recorded run times mapped log-linearly into [lo, hi], arrivals scaled to keep the offered
load: cluster_stream.py prepare), while a resize costs what it costs in seconds: the
shorter the jobs, the larger a resize's share. This simulates each run of a slice as it was
submitted (its workload.json, the flags run_flags.py reads off the run, the costs measured
over the slice's runs: costs_validation.json) at the compression it ran with and at
FACTORS times less compression (every submission, work and limit times F, each job's
iterations times F so that a remap point stays as far apart; the resize costs unchanged),
and prints per seed the malleable arm over rigid and over moldable at each.

    compression_check.py SLICE_DIR [--sim BIN] [--factors 1 2 4]

SLICE_DIR: docs/data/slice_arms/<name> with seed<k>/{rigid,moldable,malleable}/ (unpacked:
scripts/bench/data_archive.py unpack docs/data/slice_arms)."""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_flags  # noqa: E402


def stretched(workload, f):
    w = json.loads(json.dumps(workload))
    for j in w["jobs"]:
        for k in ("submit_s", "work_node_s", "limit_s", "run_limit_s"):
            if k in j and j[k]:
                j[k] = j[k] * f
        j["iterations"] = max(1, round(j.get("iterations", 1) * f))
    return w


def simulate(sim, run_dir, costs, f):
    """The run's mean turnaround simulated with its times stretched by f."""
    w = stretched(json.load(open(os.path.join(run_dir, "workload.json"))), f)
    # only the flags that act in this run (a rigid run none of the malleable jobs', a
    # moldable one no policy queries: the simulator refuses the others)
    flags = run_flags.sim_flags(run_dir, interval="2")
    # the run's own planning-block origin belongs to its wall clock, not to a stretched one
    if "--bf-origin" in flags:
        k = flags.index("--bf-origin")
        del flags[k:k + 2]
    with tempfile.TemporaryDirectory() as tmp:
        wp, out = os.path.join(tmp, "w.json"), os.path.join(tmp, "m.json")
        json.dump(w, open(wp, "w"))
        args = [sim, "--workload", wp, "--costs", costs, *flags, "--out", out]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"compression_check: {run_dir}: {r.stderr.strip()}")
        return json.load(open(out))["mean_turnaround_s"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("slice_dir")
    p.add_argument("--sim", default=os.path.join(HERE, "build/sim/malleable-clustersim"))
    p.add_argument("--factors", nargs="+", type=float, default=[1, 2, 4])
    a = p.parse_args(argv)
    d = os.path.abspath(a.slice_dir)
    costs = os.path.join(d, "seed1", "costs_validation.json")
    if not os.path.exists(costs):
        costs = os.path.join(HERE, "sim/costs/emulated.json")
    seeds = sorted(glob.glob(os.path.join(d, "seed*")))
    rigid_dir = os.path.join(seeds[0], "rigid") if seeds else ""
    if not os.path.exists(os.path.join(rigid_dir, "workload.json")):
        sys.exit(f"compression_check: no rigid run under {d} (unpack the archive first)")
    head = "| seed | " + " | ".join(f"x{f:g}: malleable vs rigid | vs moldable" for f in a.factors) + " |"
    print(f"{os.path.basename(d)}: the simulated arms with the slice's times stretched (costs: "
          f"{os.path.relpath(costs, HERE)})\n")
    print(head)
    print("|" + "---|" * (1 + 2 * len(a.factors)))
    rigid = {f: simulate(a.sim, rigid_dir, costs, f) for f in a.factors}
    for s in seeds:
        arms = {arm: os.path.join(s, arm) for arm in ("moldable", "malleable")}
        if not all(os.path.exists(os.path.join(x, "workload.json")) for x in arms.values()):
            continue
        cells = []
        for f in a.factors:
            mal = simulate(a.sim, arms["malleable"], costs, f)
            mol = simulate(a.sim, arms["moldable"], costs, f)
            cells += [f"{rigid[f] / mal:.3f}x", f"{mol / mal:.3f}x"]
        print(f"| {os.path.basename(s)[4:]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
