#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How much of a log's recorded wait passed while the log's own schedule had enough nodes
free for the waiting job (docs/measurements/workload.md, "Real traces"): a rigid FCFS +
EASY replay would have started the job then, so that part of the wait is the site's own
(priorities, reservations, down time), not the queue.

    trace_idle_wait.py TRACE.swf [--nodes N]

The log's schedule: each kept job (run time > 0, processors > 0; allocated, else requested
processors; one processor a node) on its processors from submit + wait to submit + wait +
run. N: the machine (default the header's MaxNodes, else MaxProcs). Prints the mean wait,
the mean seconds of it during which at least the job's count stood free, their share, and
the most processors the schedule holds at once."""
import argparse
import bisect
import itertools
import sys


def load(path):
    jobs, nodes = [], None
    for line in open(path):
        if line.startswith(";"):
            key, _, value = line[1:].partition(":")
            if key.strip() in ("MaxNodes", "MaxProcs") and nodes is None and value.strip().lstrip("-").isdigit():
                nodes = int(value) if int(value) > 0 else None
            continue
        f = line.split()
        if len(f) < 18:
            continue
        submit, wait, run, procs = float(f[1]), float(f[2]), float(f[3]), int(f[4])
        if procs <= 0:
            procs = int(f[7])
        if run > 0 and procs > 0:
            jobs.append((submit, max(wait, 0.0), run, procs))
    return jobs, nodes


def idle_wait(jobs, machine):
    change = {}
    for s, w, r, p in jobs:
        change[s + w] = change.get(s + w, 0) + p
        change[s + w + r] = change.get(s + w + r, 0) - p
    t = sorted(change)
    busy = list(itertools.accumulate(change[x] for x in t))
    total = free_wait = 0.0
    for s, w, r, p in jobs:
        if w <= 0:
            continue
        total += w
        end = s + w
        k = max(bisect.bisect_right(t, s) - 1, 0)
        while k < len(t) and t[k] < end:  # the schedule's steps over [s, s + w)
            a, b = max(t[k], s), min(t[k + 1] if k + 1 < len(t) else end, end)
            if machine - busy[k] >= p and b > a:
                free_wait += b - a
            k += 1
    return total, free_wait, max(busy)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--nodes", type=int)
    a = ap.parse_args(argv)
    jobs, header_nodes = load(a.trace)
    machine = a.nodes or header_nodes
    if not machine or not jobs:
        sys.exit(f"trace_idle_wait: {a.trace}: no machine size (give --nodes) or no job")
    total, free_wait, peak = idle_wait(jobs, machine)
    n = len(jobs)
    print(f"{a.trace}: {n} jobs on {machine} nodes, {sum(1 for j in jobs if j[1] > 0)} waited; mean wait "
          f"{total / n:.0f} s, of which {free_wait / n:.0f} s ({free_wait / total if total else 0:.1%}) while the "
          f"log's schedule had the job's node count free; most processors held at once {peak}")


if __name__ == "__main__":
    main()
