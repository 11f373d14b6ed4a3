#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed statistics of the simulated arms (docs/measurements/workload.md, "Targets at a
glance"): every arm is run on several seeds (which jobs are malleable, their speedups);
a ratio of two arms is taken per seed (the same jobs in both) and reported as its mean
over the seeds with a 95% confidence interval (Student's t, n - 1 degrees of freedom).
An interval that holds 1.0 is reported as "no difference".

    seed_stats.py report RUNS.tsv [--out FILE.md]
    seed_stats.py sensitivity RUNS.tsv [--out FILE.tsv]   (workload.sh sensitivity's runs)

RUNS.tsv (scripts/bench/workload.sh arms writes it): one row per run with the columns
trace, share, arm, seed, mean_turnaround_s, mean_wait_s, median_wait_s, makespan_s,
killed, killed_malleable, time_limit_refusals, starts_narrowed, resizes_per_job. The arm
"rigid" is one run per trace (no job malleable: the seed changes nothing), compared with
every seed of the others.
"""
import argparse
import csv
import math
import statistics
import sys

# Two-sided 95% quantiles of Student's t (t_{0.975, df}), df 1-30, then a few beyond.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
_T975_FAR = [(40, 2.021), (60, 2.000), (120, 1.980)]


def t975(df):
    """The 97.5% quantile of Student's t with df degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError("a t quantile needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    for d, q in _T975_FAR:
        if df <= d:
            return q
    return 1.960


def mean_ci(values):
    """(mean, low, high): the mean of values and its 95% confidence interval (t, n - 1
    degrees of freedom). Needs at least two values."""
    xs = [float(v) for v in values]
    if len(xs) < 2:
        raise ValueError("a confidence interval needs at least two values (seeds)")
    m = statistics.fmean(xs)
    half = t975(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - half, m + half


def verdict(low, high):
    """A ratio's 95% interval read: 'better' (wholly above 1.0), 'worse' (wholly below)
    or 'no difference' (it holds 1.0)."""
    if low > 1.0:
        return "better"
    if high < 1.0:
        return "worse"
    return "no difference"


def paired_ratios(base, arm):
    """Per seed base / arm (seeds in both; base may be a single seed-free value: key None)."""
    out = []
    for seed, v in sorted(arm.items()):
        b = base.get(seed, base.get(None))
        if b is None or v <= 0:
            continue
        out.append(b / v)
    return out


def read_runs(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _by(rows, trace, share, arm, key):
    out = {}
    for r in rows:
        if r["trace"] == trace and r["arm"] == arm and (arm == "rigid" or r["share"] == share):
            out[None if arm == "rigid" else int(r["seed"])] = float(r[key])
    return out


def _fmt_ci(m, lo, hi, digits=3):
    return f"{m:.{digits}f}x [{lo:.{digits}f}, {hi:.{digits}f}]"


ARM_NAMES = {
    "rigid": "rigid",
    "moldable_requested": "moldable, start in [n/2, n] (the old arm)",
    "moldable": "moldable, start in [n/2, min(M, 2n)], as many as free",
    "moldable_efficient": "moldable, start in [n/2, min(M, 2n)] up to 0.5 efficiency",
    "growth": "growth only (no give-back)",
    "giveback": "give-back only (no growth)",
    "malleable": "both (malleable)",
}


MOLDABLE = ("moldable_requested", "moldable", "moldable_efficient")


def best_moldable(rows, trace, share):
    """The moldable arm with the lowest mean turnaround over its seeds (the strictest
    baseline for the malleable arms); None when none was run."""
    means = {}
    for arm in MOLDABLE:
        t = _by(rows, trace, share, arm, "mean_turnaround_s")
        if t:
            means[arm] = statistics.fmean(t.values())
    return min(means, key=means.get) if means else None


def report(rows):
    """Markdown tables: per trace and share, each arm's mean turnaround over the seeds and
    its ratios to rigid and to the fair moldable arm, with 95% intervals and verdicts."""
    lines = []
    traces = []
    for r in rows:
        if r["trace"] not in traces:
            traces.append(r["trace"])
    for trace in traces:
        shares = sorted({r["share"] for r in rows if r["trace"] == trace and r["arm"] != "rigid"}, key=float)
        rigid = _by(rows, trace, None, "rigid", "mean_turnaround_s")
        for share in shares:
            seeds = sorted({int(r["seed"]) for r in rows if r["trace"] == trace and r["share"] == share
                            and r["arm"] != "rigid"})
            lines.append(f"**{trace}, {float(share):.0%} malleable**, seeds {', '.join(map(str, seeds))} "
                         f"(ratio: the other arm's mean turnaround over this arm's, per seed; mean [95% interval])")
            lines.append("")
            best = best_moldable(rows, trace, share)
            lines.append(f"Moldable baseline: the best of the moldable arms on this trace and share, "
                         f"{ARM_NAMES[best] if best else 'none run'}.")
            lines.append("")
            lines.append("| arm | seeds | mean turnaround s | vs rigid | | vs best moldable | | mean wait s "
                         "| median wait s | killed (malleable) | give-backs refused by the limit | starts narrowed |")
            lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
            mold = _by(rows, trace, share, best, "mean_turnaround_s") if best else {}
            for arm in ARM_NAMES:
                t = _by(rows, trace, share, arm, "mean_turnaround_s")
                if not t:
                    continue
                killed = _by(rows, trace, share, arm, "killed")
                killed_m = _by(rows, trace, share, arm, "killed_malleable")
                refused = _by(rows, trace, share, arm, "time_limit_refusals")
                narrowed = _by(rows, trace, share, arm, "starts_narrowed")
                cells = [ARM_NAMES[arm], "-" if arm == "rigid" else str(len(t)), f"{statistics.fmean(t.values()):,.0f}"]
                for name, base in (("rigid", rigid), (best, mold)):
                    ratios = paired_ratios(base, t) if arm not in ("rigid", name) else []
                    if len(ratios) >= 2:
                        m, lo, hi = mean_ci(ratios)
                        cells += [_fmt_ci(m, lo, hi), verdict(lo, hi)]
                    else:
                        cells += ["-", ""]
                cells.append(f"{statistics.fmean(_by(rows, trace, share, arm, 'mean_wait_s').values()):,.0f}")
                cells.append(f"{statistics.fmean(_by(rows, trace, share, arm, 'median_wait_s').values()):,.0f}")
                cells.append(f"{statistics.fmean(killed.values()):.1f} ({statistics.fmean(killed_m.values()):.1f})")
                cells.append(f"{statistics.fmean(refused.values()):.0f}" if refused else "-")
                cells.append(f"{statistics.fmean(narrowed.values()):.0f}" if narrowed else "-")
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines) + "\n"


def sensitivity(rows):
    """gnuplot blocks, one per resize-cost scale: 'serial mean low high' of the per-seed
    ratio best moldable / malleable (the best moldable arm at that serial fraction: the
    lowest mean turnaround over the seeds), each block headed by its title."""
    out = []
    scales = sorted({float(r["scale"]) for r in rows if r["arm"] == "malleable"})
    serials = sorted({float(r["serial"]) for r in rows})

    def arm_at(arm, serial, scale=None):
        return {int(r["seed"]): float(r["mean_turnaround_s"]) for r in rows if r["arm"] == arm
                and float(r["serial"]) == serial and (scale is None or float(r["scale"]) == scale)}

    for scale in scales:
        out.append(f'"resize costs x{scale:g}" mean low high verdict')
        for serial in serials:
            molds = {a: arm_at(a, serial) for a in MOLDABLE}
            molds = {a: v for a, v in molds.items() if v}
            if not molds:
                continue
            best = min(molds, key=lambda a: statistics.fmean(molds[a].values()))
            ratios = paired_ratios(molds[best], arm_at("malleable", serial, scale))
            if len(ratios) < 2:
                continue
            m, lo, hi = mean_ci(ratios)
            out.append(f"{serial:g} {m:.4f} {lo:.4f} {hi:.4f} {verdict(lo, hi).replace(' ', '_')}")
        out.append("\n")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rp = sub.add_parser("report", help="markdown tables of a runs TSV")
    rp.add_argument("runs")
    rp.add_argument("--out")
    sp = sub.add_parser("sensitivity", help="gnuplot blocks of a sensitivity runs TSV")
    sp.add_argument("runs")
    sp.add_argument("--out")
    a = ap.parse_args(argv)
    rows = read_runs(a.runs)
    text = report(rows) if a.cmd == "report" else sensitivity(rows)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
