#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The "Targets at a glance" rows of docs/measurements/workload.md from the arms' runs
(workload.sh arms's runs.tsv, one per trace): per trace, 50% malleable over the best
moldable arm and 100% malleable over rigid (mean over the seeds, 95% interval, verdict,
met or missed against the target), the malleable jobs killed at their limits, and the
levers (growth only, give-back only, both) over the best moldable arm at 50%.

    targets_table.py ARMS_DIR/TRACE/runs.tsv ... [--levers]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_stats  # noqa: E402


def ratio(rows, trace, share, base_arm, arm):
    base = seed_stats._by(rows, trace, share, base_arm, "mean_turnaround_s")
    t = seed_stats._by(rows, trace, share, arm, "mean_turnaround_s")
    r = seed_stats.paired_ratios(base, t)
    if len(r) < 2:
        return None
    return seed_stats.mean_ci(r), len(r)


def fmt(res):
    (m, lo, hi), n = res
    return f"{m:.3f}x [{lo:.3f}, {hi:.3f}], {n} seeds"


def met(res, target):
    (m, lo, hi), _ = res
    if m >= target and lo > 1.0:
        return "met"
    if lo > 1.0:
        return "missed (better, below the target)"
    return "missed (" + seed_stats.verdict(lo, hi) + ")"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--levers", action="store_true", help="the levers' table instead of the targets'")
    a = ap.parse_args(argv)
    if a.levers:
        print("| trace | best moldable | growth only | give-back only | both |")
        print("|---|---|---|---|---|")
    else:
        print("| target | trace | measured: mean [95% interval], seeds | met or missed |")
        print("|---|---|---|---|")
    for path in a.runs:
        rows = seed_stats.read_runs(path)
        trace = rows[0]["trace"]
        best = seed_stats.best_moldable(rows, trace, "0.5")
        if a.levers:
            cells = [trace, seed_stats.ARM_NAMES[best].replace("moldable, ", "")]
            for arm in ("growth", "giveback", "malleable"):
                res = ratio(rows, trace, "0.5", best, arm)
                cells.append(f"{fmt(res)} ({seed_stats.verdict(*res[0][1:])})" if res else "-")
            print("| " + " | ".join(cells) + " |")
            continue
        res = ratio(rows, trace, "0.5", best, "malleable")
        if res:
            print(f"| 50% malleable: >= 1.15x over the best moldable arm, interval above 1.0 | {trace} | {fmt(res)} "
                  f"(over {seed_stats.ARM_NAMES[best]}) | {met(res, 1.15)} |")
        rig = seed_stats._by(rows, trace, None, "rigid", "mean_turnaround_s")
        t = seed_stats._by(rows, trace, "1.0", "malleable", "mean_turnaround_s")
        r = seed_stats.paired_ratios(rig, t)
        if len(r) >= 2:
            res = (seed_stats.mean_ci(r), len(r))
            print(f"| 100% malleable: >= 1.5x over rigid | {trace} | {fmt(res)} | {met(res, 1.5)} |")
        killed = [int(float(x["killed_malleable"])) for x in rows if x["arm"] not in ("rigid",)
                  and x["arm"] in ("growth", "giveback", "malleable")]
        runs = len(killed)
        print(f"| 0 malleable jobs killed at their time limit (malleable arms) | {trace} | {sum(killed)} in {runs} runs "
              f"(most in one run: {max(killed) if killed else 0}) | {'met' if sum(killed) == 0 else 'missed'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
