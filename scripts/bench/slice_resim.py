#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The emulated slices' runs simulated again, as workload_validate.sh --runs simulates them
(each run as it was submitted: its measured run times and submissions, its sbatch limits,
run_flags.py's flags, the costs measured over the slice's runs), once with the flags it
has and once with EXTRA added (e.g. --range-start slurm), to see what a simulator rule
changes; and, for the jobs named, the real run against both simulations job by job.

    slice_resim.py --bin BUILD/sim/malleable-clustersim [--archive TAR.xz | --runs DIR]
                   [--slices ctc-sp2-8860 kth-sp2-2380] [--extra "--range-start slurm"]
                   [--jobs j8868 j8891 ...] [--arms malleable malleable_rule]

--archive: a packed study (default: docs/data/slice_arms/runs.tar.xz as HEAD has it, read
with git show; nothing in the working tree is written); --runs: its runs unpacked
(DIR/<slice>/seed<k>/<arm>/). EXTRA is added to the runs whose kind is not rigid (a rigid
run has no node range: the simulator refuses the range's options there).

Prints one table: each run's emulated mean turnaround, the simulated one without and with
EXTRA, and their errors; with --jobs, per run of --arms, each named job's real start, end,
nodes and state (jobs.json, Slurm's job completion log) and its simulated start, end, start nodes and
whether it was ended at its limit, without and with EXTRA; and each node a TIMEOUT job of
those held: the last poll it was in use and the next poll any job used it (timeline.tsv).
"""
import argparse
import csv
import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "workload"))
import run_flags  # noqa: E402  (the flags workload_validate.sh gives each run)

METRICS = ("mean_turnaround_s", "mean_wait_s", "makespan_s")


def unpack(archive, into):
    """The archive's members under `into` (bounded: regular files and folders inside it)."""
    if archive is None:
        blob = subprocess.run(["git", "-C", ROOT, "show", "HEAD:docs/data/slice_arms/runs.tar.xz"],
                              capture_output=True, check=True).stdout
        archive = os.path.join(into, "runs.tar.xz")
        with open(archive, "wb") as f:
            f.write(blob)
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            dest = os.path.realpath(os.path.join(into, m.name))
            if not dest.startswith(os.path.realpath(into) + os.sep) or not (m.isfile() or m.isdir()):
                continue
            t.extract(m, into)
    return into


def runs_of(root, slices, arms=None):
    """(slice, seed, arm, dir, costs) of every run with metrics.json, in order."""
    out = []
    for sl in slices:
        seeds = sorted((s for s in os.listdir(os.path.join(root, sl)) if s.startswith("seed")),
                       key=lambda s: int(s[4:]))
        costs = next((os.path.join(root, sl, s, "costs_validation.json") for s in seeds
                      if os.path.exists(os.path.join(root, sl, s, "costs_validation.json"))), None)
        for s in seeds:
            for arm in sorted(os.listdir(os.path.join(root, sl, s))):
                d = os.path.join(root, sl, s, arm)
                if os.path.exists(os.path.join(d, "metrics.json")) and (arms is None or arm in arms):
                    out.append((sl, s, arm, d, costs))
    return out


def simulate(binary, d, costs, extra, tmp, tag):
    """The run simulated as submitted, EXTRA added unless it is rigid: (metrics, records by id)."""
    w = os.path.join(tmp, f"{tag}.w.json")
    subprocess.run([sys.executable, os.path.join(HERE, "workload", "measured_runtimes.py"), os.path.join(d, "workload.json"),
                    os.path.join(d, "jobs.json"), "-o", w, "--as-run", os.path.join(d, "stream.json")],
                   check=True, capture_output=True)
    flags = run_flags.sim_flags(d) + (extra if run_flags.kind(d) != "rigid" else [])
    out, rec = os.path.join(tmp, f"{tag}.json"), os.path.join(tmp, f"{tag}.csv")
    subprocess.run([binary, "--workload", w, "--costs", costs, "--out", out, "--records", rec, *flags],
                   check=True, capture_output=True)
    return json.load(open(out)), {r["id"]: r for r in csv.DictReader(open(rec))}


def completion(d):
    """Per job: its start and end as the run measured them (jobs.json, run seconds) and its
    state, time limit (minutes) and nodes from the last record of Slurm's job completion log."""
    recs = {}
    for line in open(os.path.join(d, "jobcomp.txt"), errors="replace"):
        f = dict(re.findall(r"(\w+)=(\S*)", line[:4000]))
        if "Name" in f:
            recs[f["Name"]] = f
    out = {}
    for j in json.load(open(os.path.join(d, "jobs.json"))):
        f = recs.get(j["id"], {})
        if j.get("start_s") is not None and j.get("end_s") is not None:
            out[j["id"]] = {"state": f.get("JobState", "?"), "limit_min": f.get("TimeLimit", "?"),
                            "nodes": f.get("NodeList", "?"), "start": float(j["start_s"]), "end": float(j["end_s"])}
    return out


def expand(nodelist):
    """node[1-3,7] -> {1, 2, 3, 7}."""
    out = set()
    for m in re.finditer(r"node(\[[^\]]*\]|\d+)", nodelist):
        g = m.group(1)
        if g[0] != "[":
            out.add(int(g))
            continue
        for part in g[1:-1].split(","):
            a, _, b = part.partition("-")
            out.update(range(int(a), int(b or a) + 1))
    return out


def node_gaps(d, job):
    """Each node `job` held: (node, the last poll it held it, the next poll any job used that node)."""
    polls = {}
    for line in open(os.path.join(d, "timeline.tsv")):
        f = line.rstrip("\n").split("\t")
        if f[0] == "t" or len(f) < 6 or f[3] not in ("RUNNING", "COMPLETING"):
            continue
        polls.setdefault(float(f[0]), []).append((f[2], expand(f[5])))
    held = {}
    for t in sorted(polls):
        for name, nodes in polls[t]:
            if name == job:
                for n in nodes:
                    held[n] = t
    out = []
    for n, last in sorted(held.items()):
        nxt = next((t for t in sorted(polls) if t > last and any(n in ns for _, ns in polls[t])), None)
        out.append((n, last, nxt))
    return out


def table(rows):
    print("| slice | seed | arm | emulated turnaround s | simulated | error | simulated with EXTRA | error |")
    print("|---|---|---|---|---|---|---|---|")
    for sl, seed, arm, emu, before, after in rows:
        e = emu["mean_turnaround_s"]
        b, a = before["mean_turnaround_s"], after["mean_turnaround_s"]
        print(f"| {sl} | {seed[4:]} | {arm} | {e:.1f} | {b:.1f} | {(b - e) / e:+.1%} | {a:.1f} | {(a - e) / e:+.1%} |")


def jobs_table(label, d, jobs, before, after):
    real = completion(d)
    if not any(j in real and j in before for j in jobs):
        return
    print(f"\n{label}: real (jobs.json; Slurm's jobcomp.txt) against simulated without / with EXTRA")
    print("| job | real start-end s | real nodes at its end | state, limit min | sim start-end s (nodes, killed) | "
          "with EXTRA |")
    print("|---|---|---|---|---|---|")
    for j in jobs:
        r = real.get(j)
        if r is None or j not in before:
            continue

        def sim(rec):
            return (f"{float(rec[j]['start_s']):.1f}-{float(rec[j]['end_s']):.1f} "
                    f"({rec[j]['start_nodes']}, {rec[j]['killed']})")
        print(f"| {j} | {r['start']:.1f}-{r['end']:.1f} | {r['nodes']} | {r['state']}, {r['limit_min']} | "
              f"{sim(before)} | {sim(after)} |")
    for j in jobs:
        if real.get(j, {}).get("state") == "TIMEOUT":
            for n, last, nxt in node_gaps(d, j):
                print(f"{j} (TIMEOUT) node{n}: last held at poll {last:.1f} s, next used by any job at "
                      + (f"{nxt:.1f} s" if nxt is not None else "no later poll"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="malleable-clustersim")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--archive", help="a packed study (default: HEAD's docs/data/slice_arms/runs.tar.xz)")
    src.add_argument("--runs", help="the study's runs, unpacked")
    ap.add_argument("--slices", nargs="+", default=["ctc-sp2-8860", "kth-sp2-2380"])
    ap.add_argument("--extra", default="--range-start slurm", help="flags added to every run but the rigid ones")
    ap.add_argument("--jobs", nargs="*", default=[], help="jobs compared one by one")
    ap.add_argument("--arms", nargs="+", default=["malleable", "malleable_rule"], help="the runs --jobs are shown for")
    a = ap.parse_args(argv)
    extra = shlex.split(a.extra)
    with tempfile.TemporaryDirectory() as tmp:
        root = a.runs or unpack(a.archive, tmp)
        rows, detail = [], []
        for k, (sl, seed, arm, d, costs) in enumerate(runs_of(root, a.slices)):
            if costs is None:
                sys.exit(f"slice_resim: no costs_validation.json for {sl}")
            before, rb = simulate(a.bin, d, costs, [], tmp, f"r{k}b")
            after, ra = simulate(a.bin, d, costs, extra, tmp, f"r{k}a")
            rows.append((sl, seed, arm, json.load(open(os.path.join(d, "metrics.json"))), before, after))
            if a.jobs and arm in a.arms:
                detail.append((f"{sl} {seed} {arm}", d, rb, ra))
        print(f"EXTRA: {' '.join(extra)}\n")
        table(rows)
        for label, d, rb, ra in detail:
            jobs_table(label, d, a.jobs, rb, ra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
