#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""README's suite figures are the latest suite row's: the newest row of
docs/data/suite_times.csv that ran the README's test command from a fresh clone and passed
(command `.ci/run`, notes `rc=0`) gives the minutes, the date and the Open MPI tests; README.md
must say "about M minutes with a warm compiler cache (D, N Open MPI tests" and
docs/guide/README.md "N tests in the default run". The checker first proves it catches a
planted stale figure of each kind.
Usage: check_suite_figures.py SOURCE_DIR
       check_suite_figures.py --latest SUITE_TIMES_CSV   print the latest row's figures
                                                         (README's figure marker computes them so)"""
import csv
import datetime
import os
import re
import sys


def latest(rows):
    """(minutes, 'D Mon', tests) of the newest passing fresh-clone row, or None."""
    best = None
    for r in rows:
        if len(r) < 6 or ".ci/run" not in r[2] or "rc=0" not in r[5]:
            continue
        m = re.search(r"Open MPI (\d+)/(\d+)", r[5])
        if not m or m.group(1) != m.group(2):
            continue
        d = datetime.date.fromisoformat(r[0])
        best = (int(r[4]), f"{d.day} {d.strftime('%b')}", int(m.group(2)))
    return best


def problems(readme, guide, rows):
    got = latest(rows)
    if got is None:
        return ["docs/data/suite_times.csv has no passing fresh-clone row (.ci/run, rc=0, Open MPI N/N)"]
    minutes, day, tests = got
    want_readme = f"about {minutes} minutes with a warm compiler cache ({day}, {tests:,} Open MPI tests"
    want_guide = f"{tests:,} tests in the default run"
    out = []
    if want_readme not in " ".join(readme.split()):
        out.append(f"README.md does not say the latest suite row: want \"{want_readme}\"")
    if want_guide not in " ".join(guide.split()):
        out.append(f"docs/guide/README.md does not say the latest suite row: want \"{want_guide}\"")
    return out


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--latest":
        got = latest(list(csv.reader(open(sys.argv[2]))))
        print(f"{got[0]} minutes, {got[1]}, {got[2]} tests" if got else "none")
        return 0
    src = sys.argv[1]
    readme = open(os.path.join(src, "README.md")).read()
    guide = open(os.path.join(src, "docs", "guide", "README.md")).read()
    rows = list(csv.reader(open(os.path.join(src, "docs", "data", "suite_times.csv"))))
    got = latest(rows)
    # planted faults first: a stale minute count, a stale test count in each page
    if got and not problems(readme, guide, rows):
        m, _, n = got
        planted = [(readme.replace(f"about {m} minutes", f"about {m + 1} minutes"), guide),
                   (readme.replace(f"{n:,} Open MPI tests", f"{n - 1:,} Open MPI tests"), guide),
                   (readme, guide.replace(f"{n:,} tests", f"{n + 1:,} tests"))]
        for i, (r, g) in enumerate(planted):
            if not problems(r, g, rows):
                print(f"FAILED: the checker missed planted fault {i + 1}")
                return 1
    found = problems(readme, guide, rows)
    for p in found:
        print(p)
    if found:
        print("FAILED: README's suite figures are not the latest suite row's")
        return 1
    print(f"PASS: README's suite figures are the latest row's ({got[0]} min, {got[1]}, {got[2]:,} tests); 3 planted faults caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
