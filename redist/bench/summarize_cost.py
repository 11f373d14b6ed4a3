#!/usr/bin/env python3
"""Markdown table of redist_cost_bench --json output: one row per (N, change, placement),
predicted / measured ms and the relative error per schedule, then the median |error|."""
import json
import statistics
import sys


def main(path):
    doc = json.load(open(path))
    cases = doc["cases"]
    schedules = list(dict.fromkeys(c["schedule"] for c in cases))
    rows = {}
    for c in cases:
        rows.setdefault((c["change"], c["n"], c["placement"]), {})[c["schedule"]] = c
    print("| N | change | placement | " + " | ".join(f"{s} pred / meas ms (err)" for s in schedules) + " |")
    print("|---|---|---|" + "---|" * len(schedules))
    for (change, n, place), by in rows.items():
        cells = []
        for s in schedules:
            c = by.get(s)
            cells.append("" if c is None else
                         f"{1e3 * c['predicted_s']:.1f} / {1e3 * c['measured_s']:.1f} ({100 * c['relative_error']:+.0f}%)")
        print(f"| {n} | {change.replace(':', ' -> ')} | {place} | " + " | ".join(cells) + " |")
    errs = [abs(c["relative_error"]) for c in cases]
    within = sum(e <= 0.15 for e in errs)
    print(f"\nmedian |error| {100 * statistics.median(errs):.1f}% over {len(errs)} cases; "
          f"{within} within 15%, {sum(e <= 0.30 for e in errs)} within 30%")
    for key, name in (("change", "change"), ("schedule", "schedule"), ("n", "N")):
        groups = {}
        for c in cases:
            groups.setdefault(c[key], []).append(c["relative_error"])
        print(f"by {name}: " + ", ".join(
            f"{k}: median {100 * statistics.median(map(abs, v)):.0f}% (signed {100 * statistics.median(v):+.0f}%)"
            for k, v in groups.items()))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cost_bench.json")
