#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Renders the simulated rows of docs/data/workload/summary.csv as the table
between the markers <!-- sim-table --> and <!-- /sim-table --> of docs/data/workload/notes/history.md (the
workload page's history, which holds the section "Simulated at 1,000 and 10,000 nodes"), and
plots mean turnaround and makespan against the malleable share at each scale (gnuplot).
The latest row of each (nodes, malleable_share) counts; ratios are against the rigid row
of the same run of scripts/bench/workload.sh sim (same seed and workload).

    sim_report.py --csv docs/data/workload/summary.csv --doc docs/data/workload/notes/history.md \\
                  --plot docs/img/workload_sim.png [--variants docs/data/workload/sim/variants.tsv]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

BEGIN, END = "<!-- sim-table -->", "<!-- /sim-table -->"


def latest_rows(path, setting="simulated"):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["setting"] == setting:
                rows[(int(r["nodes"]), float(r["malleable_share"]))] = r
    return rows


def f(x, digits=0):
    return f"{float(x):,.{digits}f}" if x not in ("", None) else ""


def table(rows):
    out = ["| nodes | malleable | jobs | makespan (s) | mean wait (s) | median wait (s) | mean turnaround (s) "
           "| turnaround vs rigid | makespan vs rigid | bounded slowdown | utilisation | resizes/job "
           "| resize s/job |", "|" + "---|" * 13]
    for (nodes, share), r in sorted(rows.items()):
        base = rows.get((nodes, 0.0))
        ratio_t = ratio_m = ""
        if base:
            ratio_t = f"{float(base['mean_turnaround_s']) / float(r['mean_turnaround_s']):.2f}x"
            ratio_m = f"{float(base['makespan_s']) / float(r['makespan_s']):.2f}x"
        out.append(f"| {nodes:,} | {share:.0%} | {r['jobs']} | {f(r['makespan_s'])} | {f(r['mean_wait_s'])} "
                   f"| {f(r['median_wait_s'])} | {f(r['mean_turnaround_s'])} | {ratio_t} | {ratio_m} "
                   f"| {f(r['bounded_slowdown'], 1)} | {f(r['utilisation'], 3)} | {f(r['resizes_per_job'], 2)} "
                   f"| {f(r['resize_time_s_per_job'], 2)} |")
    return out


def variants_table(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    out = ["", "Variants (same workloads, one run each; `variant`: what the malleable jobs may do):", "",
           "| nodes | malleable | variant | mean turnaround (s) | makespan (s) | mean wait (s) | resizes/job |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {int(r['nodes']):,} | {float(r['malleable_share']):.0%} | {r['variant']} "
                   f"| {f(r['mean_turnaround_s'])} | {f(r['makespan_s'])} | {f(r['mean_wait_s'])} "
                   f"| {f(r['resizes_per_job'], 2)} |")
    return out


def plot(rows, png):
    scales = sorted({n for n, _ in rows})
    with tempfile.TemporaryDirectory() as d:
        for n in scales:
            with open(os.path.join(d, f"{n}.dat"), "w") as fh:
                for (nodes, share), r in sorted(rows.items()):
                    if nodes == n:
                        fh.write(f"{share * 100} {float(r['mean_turnaround_s']) / 3600} "
                                 f"{float(r['makespan_s']) / 86400}\n")
        turn = ", ".join(f"'{d}/{n}.dat' u 1:2 w lp lw 2 pt 7 t '{n:,} nodes'" for n in scales)
        mk = ", ".join(f"'{d}/{n}.dat' u 1:3 w lp lw 2 pt 7 t '{n:,} nodes'" for n in scales)
        script = f"""set terminal pngcairo size 1000,420 font ',10'
set output '{png}'
set multiplot layout 1,2 title 'Simulated Lublin-Feitelson workloads, FCFS + EASY (malleable-clustersim)'
set xlabel 'malleable jobs (%)'
set grid
set key top right
set ylabel 'mean turnaround (h)'
set yrange [0:*]
plot {turn}
set ylabel 'makespan (days)'
plot {mk}
unset multiplot
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--plot")
    ap.add_argument("--variants")
    a = ap.parse_args(argv)
    rows = latest_rows(a.csv)
    if not rows:
        print("sim_report.py: no simulated rows in " + a.csv, file=sys.stderr)
        return 2
    with open(a.doc) as fh:
        doc = fh.read()
    if BEGIN not in doc or END not in doc:
        print(f"sim_report.py: {a.doc} has no {BEGIN} ... {END} markers", file=sys.stderr)
        return 2
    body = "\n".join(table(rows) + variants_table(a.variants))
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(a.doc, "w") as fh:
        fh.write(head + BEGIN + "\n" + body + "\n" + END + tail)
    if a.plot:
        plot(rows, a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
