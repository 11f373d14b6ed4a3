#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The bound sweep's table (scripts/bench/redist.sh bound, docs/measurements/redist.md,
"Against the machine's bound"): each row's fraction of the single-copy bound for redist,
PDGEMR2D and COSTA, best and median of the interleaved repetitions, with the row's load
and whether it ran quiet; a heading with the machine, the load and the commit.

  bound_report.py table DIR      DIR/bound.json (+ DIR/meta.txt) -> markdown on stdout
  bound_report.py load RANKS     one line: load1, runnable others, cores, quiet|LOADED
                                 (this machine now; exit 0 either way)

Quiet: no more other runnable processes than the cores leave free beside the ranks, and
a load average (1 min) not above the ranks. The runnable count is /proc/stat's
procs_running, the reading process itself left out. Pure functions below; the unit
tests are tests/scripts/test_bound_report.py."""
import json
import os
import sys


def median(xs):
    """The middle value, or the mean of the two middle ones; None when empty."""
    s = sorted(x for x in xs if x is not None)
    if not s:
        return None
    h = len(s) // 2
    return s[h] if len(s) % 2 else (s[h - 1] + s[h]) / 2


def parse_loadavg(text):
    """/proc/loadavg -> (load1, running, total): '1.96 2.98 3.37 3/412 999'."""
    f = text.split()
    running, total = f[3].split("/")
    return float(f[0]), int(running), int(total)


def parse_procs_running(text):
    """/proc/stat's procs_running line -> int; None when absent."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "procs_running":
            return int(parts[1])
    return None


def is_quiet(load1, others, ranks, cores):
    """Whether a run of `ranks` ranks on `cores` cores had the machine to itself: other
    runnable processes fit the cores the ranks leave free, and load1 <= ranks (when the
    load average is given: None skips it)."""
    if others is None:
        return False
    if others > max(0, cores - ranks):
        return False
    return load1 is None or load1 <= ranks


def fraction(bound_s, t):
    return None if not t or bound_s is None else bound_s / t


def fmt(x, digits=2):
    return "-" if x is None or isinstance(x, str) else f"{x:.{digits}f}"


COLUMNS = ["change", "MiB/rank", "kept MiB", "moved MiB", "copy GB/s", "single-copy bound s",
           "redist s best", "redist s median", "redist / bound best", "redist / bound median",
           "PDGEMR2D / bound best", "PDGEMR2D / bound median", "COSTA / bound best",
           "COSTA / bound median", "load1 before-after", "runnable others", "quiet"]


def row_cells(r):
    """One row of bound.json as the table's cells (fractions of the single-copy bound)."""
    b1 = r["single_copy_bound_s"]
    costa = r.get("costa_s")
    costa_best = costa if isinstance(costa, (int, float)) else None
    costa_med = r.get("costa_median_s") if costa_best is not None else None
    quiet = r.get("quiet")
    return [f"`{r['change']}`", f"{r['mib_per_rank']:g}",
            fmt(max(r["kept_bytes_by_rank"]) / 2**20), fmt(max(r["moved_bytes_by_rank"]) / 2**20),
            fmt(r["copy_Bps"] / 1e9), fmt(b1, 5), fmt(r["redist_s"], 5), fmt(r.get("redist_median_s"), 5),
            fmt(fraction(b1, r["redist_s"])), fmt(fraction(b1, r.get("redist_median_s"))),
            fmt(fraction(b1, r["pdgemr2d_s"])), fmt(fraction(b1, r.get("pdgemr2d_median_s"))),
            fmt(fraction(b1, costa_best)), fmt(fraction(b1, costa_med)),
            f"{fmt(r.get('load1_before'))}-{fmt(r.get('load1_after'))}", fmt(r.get("runnable_others"), 1),
            "-" if quiet is None else ("yes" if quiet else "**no**")]


def table(rows):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row_cells(r)) + " |" for r in rows]
    return "\n".join(lines)


def heading(meta_lines, rows):
    """Machine, commit and load of the run: meta.txt's lines, the rows' load range."""
    loads = [x for r in rows for x in (r.get("load1_before"), r.get("load1_after")) if x is not None]
    quiet = [r.get("quiet") for r in rows if r.get("quiet") is not None]
    out = [line.lstrip("# ").rstrip() for line in meta_lines if line.strip()]
    if loads:
        out.append(f"load1 {min(loads):.2f}-{max(loads):.2f} over the rows; "
                   f"{sum(1 for q in quiet if q)} of {len(quiet)} rows quiet")
    return "\n".join(f"{line}  " for line in out)


def sample_load(ranks):
    with open("/proc/loadavg") as f:
        load1, _, _ = parse_loadavg(f.read())
    with open("/proc/stat") as f:
        running = parse_procs_running(f.read())
    others = None if running is None else max(0, running - 1)  # this process is running
    cores = os.cpu_count() or 1
    return load1, others, cores, is_quiet(load1, others, ranks, cores)


def main(argv):
    if len(argv) == 3 and argv[1] == "table":
        with open(os.path.join(argv[2], "bound.json")) as f:
            rows = json.load(f)["rows"]
        meta = os.path.join(argv[2], "meta.txt")
        meta_lines = open(meta).read().splitlines() if os.path.exists(meta) else []
        print(heading(meta_lines, rows))
        print()
        print(table(rows))
        return 0
    if len(argv) == 3 and argv[1] == "load":
        load1, others, cores, quiet = sample_load(int(argv[2]))
        print(f"load1 {load1:.2f} runnable_others {others} cores {cores} {'quiet' if quiet else 'LOADED'}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
