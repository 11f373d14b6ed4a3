#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A slice of a real trace for the emulated cluster (docs/measurements/workload.md,
"A real trace on the emulated cluster"): the jobs the simulator reads from a Standard
Workload Format log (malleable-clustersim --swf ... --write-workload: the same parser,
the same cleaning, the same seeded malleable share and Amdahl serial fractions as the
simulated replay), a window of consecutive jobs, their sizes mapped onto the emulated
machine, written as generate.py's workload JSON (cluster_stream.py prepare then
compresses the times as for the synthetic stream).

    trace_slice.py list   --sim BIN --swf T.swf [--nodes 16] [--jobs 40] [--skip 1000]
                          [--queue [--lo 10] [--hi 120]]
    trace_slice.py write  --sim BIN --swf T.swf --first K [--nodes 16] [--jobs 40]
                          [--seed 1] [--malleable-share 0.5] -o generated.json

Sizes: a job of n of the log's M nodes runs on n' = ceil(n * nodes / M) emulated nodes
(the size mix and the offered load kept, up to the rounding up); a malleable job's range
is [ceil(n'/2), min(nodes, 2 n')], the simulator's "grow" range. Its work is set so that it
runs its recorded time on n' nodes, with its serial fraction from the simulator.
list: every window of --jobs consecutive kept jobs starting at a multiple of --jobs after
--skip, with its offered load on the emulated machine, sum(n' * run) / (nodes * span of its
submissions), the span of its submissions and its malleable jobs; with --queue also the
window's rigid arm simulated at the emulated runs' compression (its mean wait and run
time: the offered load above is the log's, which the log-linear compression of run times
changes) and whether it has a queue (mean wait at least half the mean run time). The
slices' rule (docs/measurements/workload.md): the first window after the log's first 1,000
kept jobs with a queue."""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile


def read_jobs(sim, swf, seed, share):
    """The trace's kept jobs as the simulator models them (its workload JSON)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "w.json")
        r = subprocess.run([sim, "--swf", swf, "--seed", str(seed), "--malleable-share", str(share),
                            "--write-workload", path], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"trace_slice: {sim} could not read {swf}: {r.stderr.strip()}")
        return json.load(open(path)), r.stderr.strip()


def runtime(j, n):
    sf = j["serial_fraction"]
    return j["work_node_s"] * (sf + (1.0 - sf) / n)


def scale(j, machine, nodes):
    """One job mapped onto `nodes` nodes: its recorded run time on its new size."""
    run = runtime(j, j["nodes"])
    n = max(1, math.ceil(j["nodes"] * nodes / machine))
    sf = j["serial_fraction"]
    j2 = dict(j)
    j2["nodes"] = n
    j2["min_nodes"] = (n + 1) // 2 if j["malleable"] else n
    j2["max_nodes"] = min(nodes, 2 * n) if j["malleable"] else n
    j2["work_node_s"] = round(run / (sf + (1.0 - sf) / n), 3)
    j2["recorded_nodes"] = j["nodes"]
    j2["recorded_run_s"] = round(run, 3)
    return j2


def window(w, first, count, nodes):
    jobs = w["jobs"][first:first + count]
    if len(jobs) < count:
        sys.exit(f"trace_slice: the trace keeps {len(w['jobs'])} jobs; no window of {count} at {first}")
    out = [scale(j, w["nodes"], nodes) for j in jobs]
    t0 = out[0]["submit_s"]
    for j in out:
        j["submit_s"] = round(j["submit_s"] - t0, 3)
    return out


def offered_load(jobs, nodes):
    span = max(max(j["submit_s"] for j in jobs) - min(j["submit_s"] for j in jobs), 1e-9)
    return sum(j["nodes"] * j["recorded_run_s"] for j in jobs) / (nodes * span)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("list", "write"):
        p = sub.add_parser(name)
        p.add_argument("--sim", required=True, help="malleable-clustersim")
        p.add_argument("--swf", required=True)
        p.add_argument("--nodes", type=int, default=16, help="nodes of the emulated machine")
        p.add_argument("--jobs", type=int, default=40)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--malleable-share", type=float, default=0.5)
        if name == "list":
            p.add_argument("--skip", type=int, default=1000, help="kept jobs skipped at the log's start")
            p.add_argument("--queue", action="store_true", help="add each window's rigid arm simulated at the "
                           "emulated compression: its mean wait and run, s (a queue: wait >= run / 2)")
            p.add_argument("--lo", type=float, default=10.0)
            p.add_argument("--hi", type=float, default=120.0)
        else:
            p.add_argument("--first", type=int, required=True, help="the window's first kept job (0-based)")
            p.add_argument("-o", "--out", required=True)
    a = ap.parse_args(argv)
    if a.nodes < 1 or a.jobs < 1:
        sys.exit("trace_slice: --nodes and --jobs must be at least 1")
    w, cleaning = read_jobs(a.sim, a.swf, a.seed, a.malleable_share)
    if a.cmd == "list":
        print("first\tload\tspan_s\tmalleable" + ("\twait_s\trun_s\tqueue" if a.queue else ""))
        for first in range(a.skip, len(w["jobs"]) - a.jobs + 1, a.jobs):
            jobs = window(w, first, a.jobs, a.nodes)
            extra = ""
            if a.queue:
                wait, run = queue(a, w, cleaning, first)
                extra = f"\t{wait:.1f}\t{run:.1f}\t{'yes' if wait >= run / 2 else 'no'}"
            print(f"{first}\t{offered_load(jobs, a.nodes):.3f}\t{jobs[-1]['submit_s']:.0f}\t"
                  f"{sum(j['malleable'] for j in jobs)}{extra}")
        return 0
    doc = slice_doc(a, w, cleaning, a.first)
    jobs = doc["jobs"]
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"trace_slice: {a.jobs} jobs from kept job {a.first} of {os.path.basename(a.swf)}, "
          f"{sum(j['malleable'] for j in jobs)} malleable, offered load {doc['trace']['offered_load']:.3f} "
          f"on {a.nodes} nodes")
    return 0


def slice_doc(a, w, cleaning, first):
    """The window from `first` as generate.py's workload JSON."""
    jobs = window(w, first, a.jobs, a.nodes)
    return {"model": f"trace {os.path.basename(a.swf)}, kept jobs {first}-{first + a.jobs - 1} "
                    f"({cleaning.splitlines()[-1] if cleaning else ''}); sizes ceil(n * {a.nodes} / {w['nodes']})",
           "seed": a.seed, "nodes": a.nodes, "malleable_share": a.malleable_share, "node_range": "grow",
           "time_scale": 1.0, "trace": {"file": os.path.basename(a.swf), "first": first, "jobs": a.jobs,
                                        "machine_nodes": w["nodes"],
                                        "offered_load": round(offered_load(jobs, a.nodes), 4)},
           "jobs": jobs}


def queue(a, w, cleaning, first):
    """The window's rigid arm simulated at the emulated runs' compression (cluster_stream.py
    prepare --lo --hi, conservative backfilling as Slurm's): (mean wait, mean run) s."""
    here = os.path.dirname(os.path.abspath(__file__))
    costs = os.path.join(here, "..", "..", "..", "sim", "costs", "emulated.json")
    with tempfile.TemporaryDirectory() as tmp:
        g, wl, m = (os.path.join(tmp, x) for x in ("g.json", "w.json", "m.json"))
        json.dump(slice_doc(a, w, cleaning, first), open(g, "w"))
        for cmd in ([sys.executable, os.path.join(here, "cluster_stream.py"), "prepare", "--workload", g, "--lo",
                     str(a.lo), "--hi", str(a.hi), "-o", wl],
                    [a.sim, "--workload", wl, "--costs", costs, "--rigid", "--backfill", "conservative", "--out", m]):
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"trace_slice: window {first}: {r.stderr.strip()}")
        out = json.load(open(m))
        return out["mean_wait_s"], out["mean_turnaround_s"] - out["mean_wait_s"]


if __name__ == "__main__":
    sys.exit(main())
