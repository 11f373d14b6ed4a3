#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Simulated against emulated ("checked against §2"): the relative error of
each metric of one simulated run of a workload file against the emulated run of the same
file, and whether it is within the target (15%).

    compare.py --sim sim.json --emulated emulated.json [--target 0.15] [--md]
    compare.py --sim sim.json --csv docs/data/workload/summary.csv --nodes 8 --share 0.5 [--range grow]

--sim: malleable-clustersim's metrics JSON. The emulated side is a JSON object with the
same keys, or the latest `emulated` row of the summary CSV with that node count and
malleable share (and, with --range, that node range: rows of different policies share a
node count and a share). Error = (simulated - emulated) / emulated; metrics the emulated side
lacks, or with an emulated value of 0, are listed as not compared. Exit status 0 when
every compared metric is within the target, 1 otherwise, 2 on bad input.
"""
import argparse
import csv
import json
import sys

METRICS = ["makespan_s", "mean_wait_s", "median_wait_s", "mean_turnaround_s", "bounded_slowdown",
           "utilisation", "resizes_per_job", "resize_time_s_per_job"]


def emulated_from_csv(path, nodes, share, node_range=None):
    row = None
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if node_range is not None and r.get("range", "") != node_range:
                continue
            if r["setting"] == "emulated" and int(r["nodes"]) == nodes and abs(float(r["malleable_share"]) - share) < 1e-9:
                row = r
    if row is None:
        which = f", range={node_range}" if node_range is not None else ""
        raise ValueError(f"{path}: no emulated row with nodes={nodes}, malleable_share={share}{which}")
    return {k: float(v) for k, v in row.items() if k in METRICS and v != ""}


def compare(sim, emu, target):
    out = []
    for m in METRICS:
        if m not in sim or m not in emu or float(emu[m]) == 0:
            out.append((m, sim.get(m), emu.get(m), None, None))
            continue
        err = (float(sim[m]) - float(emu[m])) / float(emu[m])
        out.append((m, float(sim[m]), float(emu[m]), err, abs(err) <= target))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--emulated")
    ap.add_argument("--csv")
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--share", type=float)
    ap.add_argument("--range", dest="node_range", help="only rows of this node range (summary.csv's `range`)")
    ap.add_argument("--target", type=float, default=0.15)
    ap.add_argument("--md", action="store_true", help="a markdown table instead of plain text")
    a = ap.parse_args(argv)
    try:
        with open(a.sim) as f:
            sim = json.load(f)
        if a.emulated:
            with open(a.emulated) as f:
                emu = json.load(f)
        elif a.csv and a.nodes is not None and a.share is not None:
            emu = emulated_from_csv(a.csv, a.nodes, a.share, a.node_range)
        else:
            raise ValueError("give --emulated FILE, or --csv with --nodes and --share")
    except (OSError, ValueError, KeyError) as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    rows = compare(sim, emu, a.target)
    if a.md:
        print("| metric | simulated | emulated | error | within ±%d%% |" % round(a.target * 100))
        print("|---|---|---|---|---|")
    for m, s, e, err, ok in rows:
        if err is None:
            line = (m, "" if s is None else f"{s:.4g}", "" if e is None else f"{float(e):.4g}", "not compared", "")
        else:
            line = (m, f"{s:.4g}", f"{e:.4g}", f"{err:+.1%}", "yes" if ok else "NO")
        print(("| " + " | ".join(line) + " |") if a.md else "  ".join(f"{x:>22}" for x in line))
    compared = [ok for *_, ok in rows if ok is not None]
    if not compared:
        print("compare.py: no metric in common", file=sys.stderr)
        return 2
    return 0 if all(compared) else 1


if __name__ == "__main__":
    sys.exit(main())
