#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The payoff plot of docs/measurements/results.md ("Tables 5.3-5.12"), drawn again from the
payoff column of the committed tables, without rerunning reproduce.sh (report.py draws the
same plot from a run's raw data, with the same colours).

    payoff_plot.py [--results docs/measurements/results.md] [--img docs/img/payoff.png]

One colour per (program, N), Global dashed and Local2 solid: gnuplot's own cycle repeats
after 8 series, and the plot has 9.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"]
HEADER = 'set terminal pngcairo size 900,560 font "Sans,10" noenhanced\nset output "{out}"\nset format y "%g"\nset grid\n'


def plot_lines(plot_rows, path_of):
    """gnuplot plot clauses: plot_rows {(app, n): [(k, change, payoff_global, payoff_local2)]};
    path_of(app, n) is the data file of that series (columns: index, Global, Local2)."""
    lines = []
    for k, (app, n) in enumerate(sorted(plot_rows)):
        colour = PALETTE[k % len(PALETTE)]
        path = path_of(app, n)
        lines.append(f'"{path}" using 1:2 with linespoints lc rgb "{colour}" dt 2 lw 2 title "{app} N={n} Global"')
        lines.append(f'"{path}" using 1:3 with linespoints lc rgb "{colour}" dt 1 lw 2 title "{app} N={n} Local2"')
    return lines


def script(plot_rows, changes, path_of):
    labels = " ".join(f'"{ch}" {i + 1},' for i, ch in enumerate(changes)).rstrip(",")
    return ("set title 'Payoff point (iterations, dedicated-core t_p) per expansion'\n"
            f"set xtics ({labels})\nset xlabel 'expansion'\nset ylabel 'payoff point'\nset logscale y\n"
            "set key outside right\nplot " + ", ".join(plot_lines(plot_rows, path_of)) + "\n")


def rows_from_results(text):
    """{(app, n): [(k, change, G, L)]} and the changes, from the section's tables."""
    sec = text.split("## Tables 5.3-5.12", 1)[1].split("\n## ", 1)[0]
    rows, changes, app = {}, [], None
    for line in sec.split("\n"):
        m = re.match(r"^\*\*(\w+)\*\*$", line.strip())
        if m:
            app = m.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if app and len(cells) > 8 and cells[0].isdigit():
            g, l_ = (None if v == "never" else float(v) for v in cells[7].split(" / "))
            if cells[1] not in changes:
                changes.append(cells[1])
            rows.setdefault((app, int(cells[0])), []).append((changes.index(cells[1]), cells[1], g, l_))
    return rows, changes


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(root, "docs", "measurements", "results.md"))
    ap.add_argument("--img", default=os.path.join(root, "docs", "img", "payoff.png"))
    a = ap.parse_args()
    rows, changes = rows_from_results(open(a.results).read())
    if not rows:
        sys.exit(f"payoff_plot.py: no payoff table in {a.results}")
    with tempfile.TemporaryDirectory() as t:
        for (app, n), pts in rows.items():
            with open(os.path.join(t, f"payoff_{app}_{n}.dat"), "w") as f:
                for k, _, g, l_ in pts:
                    f.write(f"{k + 1} {'NaN' if g is None else g} {'NaN' if l_ is None else l_}\n")
        gp = os.path.join(t, "payoff.gp")
        with open(gp, "w") as f:
            f.write(HEADER.format(out=a.img) + script(rows, changes, lambda app, n: os.path.join(t, f"payoff_{app}_{n}.dat")))
        subprocess.run(["gnuplot", gp], check=True)
    print(f"payoff_plot.py: {a.img} drawn from {len(rows)} series of {a.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
