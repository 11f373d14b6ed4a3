#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every row of docs/data/workload/summary.csv as one markdown table (one line per run,
in the order of their dates within each setting), written between the markers
<!-- runs-table --> and <!-- /runs-table --> of a document, or printed.

    summary_table.py --csv docs/data/workload/summary.csv [--doc docs/data/workload/notes/history.md]

"vs rigid" is the all-rigid row's mean turnaround (and makespan) over this row's, taking the
all-rigid row of the same setting, node count, job count and seed (the same workload)
nearest in time (the rigid run of the same session or invocation).
"""
import argparse
import csv
import datetime
import sys

BEGIN, END = "<!-- runs-table -->", "<!-- /runs-table -->"


def _t(r):
    return datetime.datetime.strptime(r["date"], "%Y-%m-%dT%H:%M:%SZ")


def _f(x, digits=0, pct=False):
    if x in ("", None):
        return ""
    v = float(x)
    return f"{100 * v:.0f}%" if pct else f"{v:,.{digits}f}"


def table(rows):
    out = ["| setting | nodes | malleable | range | start | jobs | makespan s | mean wait s | median wait s "
           "| mean turnaround s | turnaround vs rigid | makespan vs rigid | bounded slowdown | utilisation "
           "| resizes/job | resize s/job | slurmctld RPCs/job/min | commit | date |",
           "|" + "---|" * 19]
    for setting in ("emulated", "simulated"):
        mine = sorted((r for r in rows if r["setting"] == setting), key=_t)
        rigid = [r for r in mine if float(r["malleable_share"]) == 0]
        for r in mine:
            base = [b for b in rigid if all(b.get(k, "") == r.get(k, "") for k in ("nodes", "jobs", "seed"))]
            base = min(base, key=lambda b: abs((_t(b) - _t(r)).total_seconds())) if base else None
            rt = rm = ""
            if base and float(r["malleable_share"]) > 0:
                rt = f"{float(base['mean_turnaround_s']) / float(r['mean_turnaround_s']):.2f}x"
                rm = f"{float(base['makespan_s']) / float(r['makespan_s']):.2f}x"
            digits = 1 if int(r["nodes"]) < 100 else 0
            out.append(
                f"| {setting} | {int(r['nodes']):,} | {float(r['malleable_share']):.0%} | {r['range']} | {r['start']} "
                f"| {r['jobs']} | {_f(r['makespan_s'])} | {_f(r['mean_wait_s'], digits)} "
                f"| {_f(r['median_wait_s'], digits)} | {_f(r['mean_turnaround_s'], digits)} | {rt} | {rm} "
                f"| {_f(r['bounded_slowdown'], 2)} | {_f(r['utilisation'], pct=True)} | {_f(r['resizes_per_job'], 2)} "
                f"| {_f(r['resize_time_s_per_job'], 2)} | {_f(r['slurm_rpcs_per_job_minute'], 1)} | {r['commit']} "
                f"| {r['date'][:16].replace('T', ' ')} |")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--doc")
    a = ap.parse_args(argv)
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    lines = table(rows)
    if not a.doc:
        print("\n".join(lines))
        return 0
    text = open(a.doc).read()
    if BEGIN not in text or END not in text:
        print(f"summary_table.py: {a.doc} has no {BEGIN} ... {END}", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(a.doc, "w") as f:
        f.write(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
