#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tables of scripts/bench/redist.sh start-split: per variant the median over the rounds of the
job's first start (and of the warm median where there is one), each step's increment over
the step it adds to (the median of the per-round differences: both ran in the same round),
the ratio to the bare spawn's (or bare join's) first start and warm median; the resizes'
t_redist_s and t_total_s; the median of each traced phase.
  start_split_report.py OUT_DIR"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

# variant, what it adds, the variant it adds to
SPAWN = [("raw_plain", "bare spawn of 2 + merge (spawn_pingpong in probes.c)", None),
         ("raw_ext", "+ the driver's external libraries loaded", "raw_plain"),
         ("raw_libs", "+ the project's libraries (blacs-dyn's MPI_Init wrapper)", "raw_ext"),
         ("expand", "+ blacs-dyn's expansion (blacs_dyn_expand)", "raw_libs"),
         ("resize_nopf", "+ the driver and the resize library, RESIZE_PREFAULT=off", "expand"),
         ("resize", "+ the prefault thread: the driver's resize as it runs", "resize_nopf")]
JOIN = [("join_bare", "bare join of 2 (bare_join in probes.c)", None),
        ("join_libs", "+ all the driver's libraries", "join_bare"),
        ("join_nopf", "the driver's resize by a join, RESIZE_PREFAULT=off", "join_libs"),
        ("join_resize", "+ the prefault thread: the resize by a join as it runs", "join_nopf")]


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def fmt(x, f="{:.3f}"):
    return "-" if x is None else f.format(x)


def field(extra, key):
    for part in extra.split(", "):
        if part.startswith(key + " "):
            return num(part[len(key) + 1:])
    return None


def main(out):
    rows = list(csv.DictReader(open(out / "rounds.tsv"), delimiter="\t"))
    at = {(r["round"], r["variant"]): r for r in rows}
    rounds = sorted({r["round"] for r in rows}, key=int)
    first, warm, failed = defaultdict(list), defaultdict(list), defaultdict(int)
    load = [num(r["load1"]) for r in rows]
    for r in rows:
        if num(r["first_s"]) is None:
            failed[r["variant"]] += 1
            continue
        first[r["variant"]].append(num(r["first_s"]))
        warm[r["variant"]].append(num(r["warm_median_s"]))
    print(f"# {len(rounds)} rounds; load1 during the runs {min(load):.2f}-{max(load):.2f} (median {med(load):.2f})")
    for group in (SPAWN, JOIN):
        base = group[0][0]
        b_first, b_warm = med(first[base]), med(warm[base])
        print()
        print("| variant | what | n | first start s (median) | paired increment s | / bare first | "
              "/ bare warm median | warm median s |")
        print("|---|---|---|---|---|---|---|---|")
        for v, what, over in group:
            m = med(first[v])
            inc = None
            if over:
                inc = med([num(at[(k, v)]["first_s"]) - num(at[(k, over)]["first_s"]) for k in rounds
                           if (k, v) in at and (k, over) in at and num(at[(k, v)]["first_s"]) is not None
                           and num(at[(k, over)]["first_s"]) is not None])
            nf = f" ({failed[v]} failed)" if failed[v] else ""
            print(f"| {v} | {what} | {len(first[v])}{nf} | {fmt(m)} | {fmt(inc, '{:+.3f}')} | "
                  f"{fmt(m / b_first if m and b_first else None, '{:.2f}x')} | "
                  f"{fmt(m / b_warm if m and b_warm else None, '{:.2f}x')} | {fmt(med(warm[v]))} |")
    print()
    print("| resize | n | t_spawn_s | prefault_s | t_redist_s | t_total_s |")
    print("|---|---|---|---|---|---|")
    for v in ("resize", "resize_nopf", "join_resize", "join_nopf"):
        ex = [r["extra"] for r in rows if r["variant"] == v and num(r["first_s"]) is not None]
        print(f"| {v} | {len(ex)} | {fmt(med(first[v]))} | {fmt(med([field(e, 'prefault_s') for e in ex]))} | "
              f"{fmt(med([field(e, 't_redist_s') for e in ex]), '{:.4f}')} | "
              f"{fmt(med([field(e, 't_total_s') for e in ex]))} |")
    print()
    for v in ("join_bare", "join_libs"):
        rd = [field(r["extra"], "ready_s") for r in rows if r["variant"] == v]
        print(f"{v}: the first launch's port written {fmt(med(rd))} s after its mpiexec started (median); "
              f"connect + merge + barrier after it {fmt(med(first[v]) - med(rd) if med(rd) else None)} s")
    ph, order = defaultdict(list), defaultdict(list)
    for r in csv.DictReader(open(out / "phases.tsv"), delimiter="\t"):
        ph[(r["variant"], r["phase"])].append(num(r["ms"]))
        if r["phase"] not in order[r["variant"]]:
            order[r["variant"]].append(r["phase"])
    print()
    print("| variant | phase (BLACS_DYN_TRACE, world rank 0) | n | median ms |")
    print("|---|---|---|---|")
    for v in ("expand", "resize_nopf", "resize", "join_nopf", "join_resize"):
        for p in order[v]:
            print(f"| {v} | {p} | {len(ph[(v, p)])} | {fmt(med(ph[(v, p)]), '{:.1f}')} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
