#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The time limit that follows the size (malleable-clustersim --limit-follows-size), per arm
of workload.sh arms's output folders: over the seeds, the range of the limits extended a run,
of the mean extension (seconds an extension), of the extensions the cap cut, and of the share
of the would-be extended seconds the cap cut (a job that grew and gave back), and the jobs
ended at their limit (docs/measurements/workload.md, "The policy that earns more").

    limit_extensions.py DIR [DIR ...]

DIR: docs/data/workload/arms/<name>, holding <arm>_<share>_s<seed>.json metrics."""
import glob
import json
import os
import re
import sys


def rows(folder):
    """(arm and share, [metrics of each seed]) for the runs of `folder` that extended a limit."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*_s*.json"))):
        m = re.fullmatch(r"(.+)_s(\d+)\.json", os.path.basename(path))
        metrics = json.load(open(path))
        if m and metrics.get("limit_extensions", 0) > 0:
            runs.setdefault(m.group(1), []).append(metrics)
    return sorted(runs.items())


def summary(runs):
    """The ranges over the seeds: extensions, mean extension s, capped, cut share, killed."""
    ext = [m["limit_extensions"] for m in runs]
    mean = [m["limit_extension_s"] / m["limit_extensions"] if m["limit_extensions"] else 0.0 for m in runs]
    capped = [m.get("limit_extensions_capped", 0) for m in runs]
    cut = [m.get("limit_extension_capped_s", 0.0) for m in runs]
    share = [c / (c + m["limit_extension_s"]) if c + m["limit_extension_s"] > 0 else 0.0 for c, m in zip(cut, runs)]
    killed = sum(m.get("killed", 0) for m in runs)
    return (min(ext), max(ext)), (min(mean), max(mean)), (min(capped), max(capped)), (min(share), max(share)), killed


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    print("| folder | arm, share | seeds | limits extended a run | mean extension s | capped a run | "
          "cut share of the extended seconds | killed |")
    print("|---|---|---|---|---|---|---|---|")
    for folder in argv[1:]:
        for arm, runs in rows(folder):
            (e0, e1), (m0, m1), (c0, c1), (s0, s1), killed = summary(runs)
            print(f"| {os.path.basename(os.path.normpath(folder))} | {arm} | {len(runs)} | {e0:,}-{e1:,} | "
                  f"{m0:,.0f}-{m1:,.0f} | {c0:,}-{c1:,} | {s0:.0%}-{s1:.0%} | {killed} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
