#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where an emulated run's nodes stood idle while jobs waited (docs/measurements/workload.md,
"What the real mechanism earns where jobs wait"): for each run folder of slice_arms.sh
(RUN/timeline.tsv, Slurm's queue every poll; RUN/submitted.tsv, the submission times), the
polls, those with idle nodes beside a waiting job, how many of those had a waiting job that
would have fit the idle nodes (its node count, or the low end of its range), and the jobs
most often at the queue's head then, with their waits (first poll seen running minus
submission). Runs packed in their study's runs.tar.xz are read from it.

    slice_idle.py [--nodes 16] [--jobs j1,j2] RUN...     (--jobs: also these jobs' waits)
"""
import argparse
import collections
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import data_archive  # noqa: E402


def low_end(nodes):
    """The fewest nodes of squeue's %D (a count or a range "a-b"); None if unreadable."""
    head = nodes.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def idle_polls(timeline_rows, machine):
    """(polls, polls with idle nodes and a waiting job, of those with a waiting job that fits,
    Counter of the queue's head job then)."""
    by = collections.defaultdict(list)
    for r in timeline_rows:
        by[r["t"]].append(r)
    polls = idle = fits = 0
    heads = collections.Counter()
    for _, rows in sorted(by.items(), key=lambda kv: float(kv[0])):
        polls += 1
        busy = sum(low_end(r["nodes"]) or 0 for r in rows if r["state"] in ("RUNNING", "COMPLETING"))
        waiting = sorted((r for r in rows if r["state"] == "PENDING"), key=lambda r: int(r["job"]))
        free = machine - busy
        if not waiting or free <= 0:
            continue
        idle += 1
        heads[waiting[0]["name"]] += 1
        if any((low_end(r["nodes"]) or machine + 1) <= free for r in waiting):
            fits += 1
    return polls, idle, fits, heads


def waits(timeline_rows, submitted_rows):
    sub = {r["id"]: float(r["t"]) for r in submitted_rows}
    first = {}
    for r in timeline_rows:
        if r["state"] == "RUNNING" and r["name"] not in first:
            first[r["name"]] = float(r["t"])
    return {j: first[j] - sub[j] for j in first if j in sub}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=16)
    ap.add_argument("--jobs", default="", help="comma-separated job names whose waits are printed too")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args(argv)
    for run in a.runs:
        with data_archive.readable(run) as d:
            tl = list(csv.DictReader(open(os.path.join(d, "timeline.tsv")), delimiter="\t"))
            sub = list(csv.DictReader(open(os.path.join(d, "submitted.tsv")), delimiter="\t"))
        polls, idle, fits, heads = idle_polls(tl, a.nodes)
        w = waits(tl, sub)
        top = ", ".join(f"{j} ({n} polls, waited {w.get(j, float('nan')):.0f} s)" for j, n in heads.most_common(2))
        print(f"{run}: {polls} polls, {idle} with idle nodes beside a waiting job, {fits} of them with a waiting "
              f"job that fits; at the head then: {top or '-'}")
        for j in filter(None, a.jobs.split(",")):
            print(f"  {j} waited {w[j]:.0f} s" if j in w else f"  {j}: not seen running")


if __name__ == "__main__":
    main()
