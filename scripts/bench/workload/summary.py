#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The one writer of docs/data/workload/summary.csv: simulated and emulated runs
append one row each, in one column order, through append_row() or this command line.

    summary.py --csv docs/data/workload/summary.csv setting=simulated nodes=1000 \\
               malleable_share=0.5 jobs=3000 makespan_s=... [key=value ...]
    summary.py --csv FILE --metrics run.json setting=emulated ...   # metrics from a JSON object

Columns (in this order): see COLUMNS. Unknown columns are an error, and so are values of
`range` and `start` other than RANGES and STARTS; missing ones stay empty; `commit` (git's short hash of the working tree's HEAD) and `date` (UTC, ISO 8601)
are filled in when not given. metrics() computes the job-level metrics from per-job
records, so that both settings compute them the same way.
"""
import argparse
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys

COLUMNS = ["setting", "nodes", "malleable_share", "jobs", "range", "start", "policy", "makespan_s", "mean_wait_s",
           "median_wait_s", "mean_turnaround_s", "bounded_slowdown", "utilisation",
           "resizes_per_job", "resize_time_s_per_job", "slurm_rpcs_per_job_minute", "seed",
           "commit", "date"]
SETTINGS = ("simulated", "emulated")
# A real trace replayed: "trace:<name>" simulated, "emulated-trace:<name>" on the
# emulated cluster.
TRACE_SETTINGS = ("trace:", "emulated-trace:")
# `policy`, the arm: rigid (every job rigid), moldable (malleable jobs start on a node range
# and are never resized; moldable_max and moldable_efficient: ranges with higher tops,
# workload_cluster.sh), malleable (a node range and resizes by the project's policy),
# malleable_rule (the same, the arbiter raising a giver's time limit: --extend-limits on),
# growth and giveback (the same with one lever off). Left out, it is rigid for a run with
# no malleable job and malleable otherwise (the meaning of every row written before the
# column existed).
POLICIES = ("rigid", "moldable", "moldable_max", "moldable_efficient", "malleable", "malleable_rule", "growth", "giveback")
# What tells rows of different policies apart: `range`, the malleable jobs' node range
# (generate.py --range: requested = [size/2, size], double = [size/2, 2 size]; grow =
# [size/2, 2 size] with Slurm asked for at most the size asked, workload_cluster.sh --range) and
# `start`, how a malleable job launches on the nodes Slurm gave it (workload_cluster.sh
# --start, the simulator's --start); "-" in both for a run with no malleable job.
RANGES = ("requested", "double", "grow", "-")
STARTS = ("full", "min", "one", "join", "recipe", "-")
TAU_S = 10.0   # bounded slowdown's threshold


def _commit():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def append_row(path, row):
    """Appends one run's row to path (the header first if the file is new or empty)."""
    unknown = sorted(set(row) - set(COLUMNS))
    if unknown:
        raise ValueError(f"unknown column(s): {', '.join(unknown)}; columns: {','.join(COLUMNS)}")
    setting = str(row.get("setting"))
    if setting not in SETTINGS and not any(setting.startswith(t) and len(setting) > len(t) for t in TRACE_SETTINGS):
        raise ValueError(f"setting must be one of {SETTINGS} or trace:<name>, emulated-trace:<name>, not {setting!r}")
    for key in ("nodes", "malleable_share", "jobs"):
        if row.get(key) in (None, ""):
            raise ValueError(f"column {key} is required")
    if row.get("policy") in (None, ""):
        row = dict(row, policy="rigid" if float(row["malleable_share"]) == 0 else "malleable")
    for key, allowed in (("range", RANGES), ("start", STARTS), ("policy", POLICIES)):
        if row.get(key) not in (None, "") and row[key] not in allowed:
            raise ValueError(f"column {key} must be one of {allowed}, not {row[key]!r}")
    full = {c: row.get(c) for c in COLUMNS}
    if not full["commit"]:
        full["commit"] = _commit()
    if not full["date"]:
        full["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, newline="") as f:
            header = next(csv.reader(f), [])
        if header != COLUMNS:
            raise ValueError(f"{path}: header {','.join(header)} is not {','.join(COLUMNS)}")
        new = False
    else:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        new = True
    with open(path, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(COLUMNS)
        w.writerow([_fmt(full[c]) for c in COLUMNS])


def metrics(records, nodes, tau=TAU_S):
    """Job-level metrics of one run. records: one dict per job with submit_s, start_s, end_s
    (seconds), node_s (node-seconds held, including resizes) and optionally resizes and
    resize_s (seconds the job spent resizing). The makespan runs from the first submission
    to the last end; utilisation is the node-seconds held over nodes * makespan."""
    if not records:
        raise ValueError("no job records")
    for r in records:
        if not r["submit_s"] <= r["start_s"] <= r["end_s"]:
            raise ValueError(f"job record out of order: {r}")
    first = min(r["submit_s"] for r in records)
    last = max(r["end_s"] for r in records)
    makespan = last - first
    waits = [r["start_s"] - r["submit_s"] for r in records]
    turns = [r["end_s"] - r["submit_s"] for r in records]
    bsld = [max(1.0, t / max(r["end_s"] - r["start_s"], tau)) for r, t in zip(records, turns)]
    n = len(records)
    return {
        "jobs": n,
        "makespan_s": makespan,
        "mean_wait_s": sum(waits) / n,
        "median_wait_s": statistics.median(waits),
        "mean_turnaround_s": sum(turns) / n,
        "bounded_slowdown": sum(bsld) / n,
        "utilisation": sum(r["node_s"] for r in records) / (nodes * makespan) if makespan > 0 else 0.0,
        "resizes_per_job": sum(r.get("resizes", 0) for r in records) / n,
        "resize_time_s_per_job": sum(r.get("resize_s", 0.0) for r in records) / n,
    }


def _parse_value(v):
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True, help="summary CSV to append to")
    ap.add_argument("--metrics", help="JSON file with an object of column values (others override)")
    ap.add_argument("values", nargs="*", help="column=value")
    a = ap.parse_args(argv)
    row = {}
    if a.metrics:
        with open(a.metrics) as f:
            row.update({k: v for k, v in json.load(f).items() if k in COLUMNS})
    for kv in a.values:
        if "=" not in kv:
            print(f"summary.py: expected column=value, got {kv!r}", file=sys.stderr)
            return 2
        k, v = kv.split("=", 1)
        row[k] = _parse_value(v)
    try:
        append_row(a.csv, row)
    except ValueError as e:
        print(f"summary.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
