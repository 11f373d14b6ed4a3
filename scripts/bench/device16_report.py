#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The 16-core run's table (scripts/bench/device16.sh): reads its records (a folder, or
docs/data/device16 whose raw/ is packed in runs.tar.xz), writes summary.csv beside them
and prints the targets.

    device16_report.py [DIR]      (default docs/data/device16)

growth rows: per round, the median wall time of the iterations on 4x4 after the first one
there (the first pays for the newcomers' warm-up), for the grown job and for the job started
on 4x4 (its first iteration left out too); the ratio is the median over the rounds of the
grown job's over the median of the fresh job's. redist rows: per case, COSTA's time over
redist's (both the fastest of the repetitions, one run)."""
import csv
import json
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data_archive  # noqa: E402


def growth(raw, driver):
    per = {"grow": [], "fresh": []}
    r = 1
    while os.path.exists(os.path.join(raw, "node_%s_grow.%d.json" % (driver, r))):
        for arm in per:
            with open(os.path.join(raw, "node_%s_%s.%d.json" % (driver, arm, r))) as f:
                its = [i["wall_s"] for i in json.load(f)["iterations"] if i["procs"] == 16]
            per[arm].append(st.median(its[1:]))
        r += 1
    return per


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "docs/data/device16"
    with data_archive.unpacked(d) as u:
        raw = os.path.join(u, "raw") if os.path.isdir(os.path.join(u, "raw")) else u
        rows = []
        for driver, n in (("pdgemm", 6000), ("pdgetrf", 8000)):
            per = growth(raw, driver)
            g, f = st.median(per["grow"]), st.median(per["fresh"])
            rows.append(dict(kind="growth", case="%s N=%d 2x2->4x4" % (driver, n), ranks=16,
                             ours_s="%.3f" % g, other_s="%.3f" % f, ratio="%.2f" % (g / f),
                             rounds=len(per["grow"]),
                             spread="%.2f-%.2f" % (min(a / b for a, b in zip(per["grow"], per["fresh"])),
                                                   max(a / b for a, b in zip(per["grow"], per["fresh"]))),
                             target="<= 1.05 (grown / fresh)", met="met" if g / f <= 1.05 else "missed"))
        with open(os.path.join(raw, "redist.json")) as fh:
            cases = json.load(fh)
        for c in cases:
            ratio = c["costa_s"] / c["redist_s"]
            ok = c["redist_identical_to_pdgemr2d"] and c["costa_identical_to_pdgemr2d"]
            rows.append(dict(kind="redist", case=c["shape"], ranks=c["ranks"], ours_s="%.4f" % c["redist_s"],
                             other_s="%.4f" % c["costa_s"], ratio="%.2f" % ratio, rounds=1,
                             spread="-", target=">= 1.50 (COSTA / redist)",
                             met=("met" if ratio >= 1.5 else "missed") + ("" if ok else " (result differs)")))
    keys = ["kind", "case", "ranks", "ours_s", "other_s", "ratio", "rounds", "spread", "target", "met"]
    with open(os.path.join(d, "summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, keys)
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print("%-7s %-40s %3s %8s %8s %6sx %-10s %s" % (r["kind"], r["case"], r["ranks"], r["ours_s"], r["other_s"],
                                                     r["ratio"], r["spread"], r["met"]))
    red = [float(r["ratio"]) for r in rows if r["kind"] == "redist"]
    print("redist / COSTA: %.2fx to %.2fx over %d cases, %d below 1.5x" %
          (min(red), max(red), len(red), sum(x < 1.5 for x in red)))


if __name__ == "__main__":
    main()
