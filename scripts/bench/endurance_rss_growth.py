#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The originals' RSS growth of each blocking job in session_endurance.py's JSON reports,
one line per job: the report, the heap trim setting (n/a: a report from before the trim), the
refresh (RESIZE_REFRESH_AFTER; 0: none, or a report from before it), the job, the resize
counts compared, and for each original its RSS at the baseline and at the end (kB) and the
growth in %, then the largest growth, and where the report has it the largest RSS seen in
between (the peak) as growth over the baseline. Meant for runs side by side (e.g.
--heap-trim off and on, --refresh 32 and none).

Usage: endurance_rss_growth.py REPORT.json [REPORT.json ...]
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    for path in sys.argv[1:]:
        with open(path) as f:
            rep = json.load(f)
        trim = rep.get("heap_trim", "n/a")  # reports from before --heap-trim: no trim
        refresh = rep.get("refresh_after", 0)
        for k, job in enumerate(rep.get("jobs", [])):
            fp = job.get("footprint")
            if not fp or "baseline" not in fp:
                continue
            b, e = fp["baseline"]["rss_kb"], fp["end"]["rss_kb"]
            growth = [100.0 * (y - x) / x for x, y in zip(b, e)]
            per = ", ".join(f"original {i} {x} -> {y} kB {g:+.1f} %" for i, (x, y, g) in enumerate(zip(b, e, growth)))
            peak = ""
            if "rss_peak_kb" in fp:
                peak = f"; peak in between {max(100.0 * (p - x) / x for x, p in zip(b, fp['rss_peak_kb'])):+.1f} %"
            print(f"{os.path.basename(path)} trim {trim} refresh {refresh} job {k}: after {fp['baseline_after_resizes']} -> "
                  f"{fp['last_resizes']} resizes: {per}; largest {max(growth):+.1f} %{peak}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
