#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The workload page stays a page of targets, not a lab notebook: docs/measurements/workload.md
at most 400 lines, opening with its targets table (the page's first table is the emulated
slices' table, each of its rows a line of the docs/data/slice_arms/ file its marker names),
and linking its history (docs/data/workload/notes/history.md, which must exist), where the
dated sections it no longer holds are kept. The checker first proves it passes a good page
and catches a page one line too long, a page without the link to its history, a page whose
first table is not the slices' one and a slices' row changed from its source.
Usage: check_workload_page.py <source dir>"""
import os
import re
import sys
import tempfile

PAGE = os.path.join("docs", "measurements", "workload.md")
HISTORY = os.path.join("docs", "data", "workload", "notes", "history.md")
LINK = "](../data/workload/notes/history.md"
SLICES = "docs/data/slice_arms/"
MARK = re.compile(r"<!--\s*(?:figure|table):\s*(docs/data/\S+)")
MOST = 400


def first_table(lines):
    """(rows of the page's first table, the first figure/table marker after its start)."""
    rows, mark, fence = [], None, False
    for line in lines:
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence:
            continue
        if line.startswith("|") and (not rows or rows[-1] is not None):
            rows.append(line.rstrip())
        elif rows and rows[-1] is not None:
            rows.append(None)  # the first table ended
        m = MARK.search(line)
        if rows and m:
            mark = m.group(1)
            break
    return [r for r in rows if r is not None], mark


def problems(root):
    path = os.path.join(root, PAGE)
    if not os.path.isfile(path):
        yield f"{PAGE}: missing"
        return
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if count > MOST:
        yield f"{PAGE}: {count} lines, more than {MOST}: move dated sections to {HISTORY}"
    if LINK not in text:
        yield f"{PAGE}: no link to its history ({HISTORY})"
    elif not os.path.isfile(os.path.join(root, HISTORY)):
        yield f"{HISTORY}: missing"
    rows, mark = first_table(lines)
    if not rows:
        yield f"{PAGE}: no table"
    elif not mark or not mark.startswith(SLICES):
        yield f"{PAGE}: the first table is not the emulated slices' (its marker names {mark}, not {SLICES}...)"
    else:
        src = os.path.join(root, mark)
        have = set(open(src, encoding="utf-8").read().split("\n")) if os.path.isfile(src) else set()
        if not have:
            yield f"{PAGE}: the first table's source {mark} is missing"
        elif any(r not in have for r in rows):
            yield f"{PAGE}: the first table's rows are not lines of {mark}"


def plant(tmp, page, history=True, source=True):
    os.makedirs(os.path.join(tmp, os.path.dirname(PAGE)), exist_ok=True)
    os.makedirs(os.path.join(tmp, os.path.dirname(HISTORY)), exist_ok=True)
    os.makedirs(os.path.join(tmp, SLICES), exist_ok=True)
    with open(os.path.join(tmp, PAGE), "w") as f:
        f.write(page)
    if history:
        open(os.path.join(tmp, HISTORY), "w").write("# history\n")
    if source:
        open(os.path.join(tmp, SLICES, "w.md"), "w").write("| arm | s |\n|---|---|\n| rigid | 1.0 |\n")


def self_test():
    table = "| arm | s |\n|---|---|\n| rigid | 1.0 |\n<!-- figure: docs/data/slice_arms/w.md -->\n"
    good = f"# W\n\n{table}\n[h]({LINK[2:]})\n"
    caught = 0
    with tempfile.TemporaryDirectory() as tmp:
        plant(tmp, good)
        clean = list(problems(tmp)) == []
        plant(tmp, good + "line\n" * (MOST - good.count("\n") + 1))
        caught += list(problems(tmp)) == [f"{PAGE}: {MOST + 1} lines, more than {MOST}: move dated sections to {HISTORY}"]
        plant(tmp, good.replace(LINK[2:], "elsewhere.md"))
        caught += list(problems(tmp)) == [f"{PAGE}: no link to its history ({HISTORY})"]
        other = "| target | x |\n|---|---|\n| a | 2 |\n<!-- table: docs/data/workload/t.md -->\n\n"
        plant(tmp, good.replace("# W\n\n", "# W\n\n" + other))
        caught += any("the first table is not the emulated slices'" in p for p in problems(tmp))
        plant(tmp, good.replace("| rigid | 1.0 |", "| rigid | 1.1 |"))
        caught += any("rows are not lines of" in p for p in problems(tmp))
    return clean, caught


def main():
    clean, caught = self_test()
    if not clean or caught != 4:
        print(f"FAILED: the checker passed a good page: {clean}; caught {caught} of 4 planted faults")
        return 1
    found = list(problems(sys.argv[1]))
    for p in found:
        print(p)
    if found:
        print(f"FAILED: {len(found)} problem(s) in the workload page")
        return 1
    n = sum(1 for _ in open(os.path.join(sys.argv[1], PAGE), encoding="utf-8"))
    print(f"PASS: {PAGE} {n} lines (at most {MOST}), opening with the slices' table, linking its history; "
          "the checker caught 4 of 4 planted faults")
    return 0


if __name__ == "__main__":
    sys.exit(main())
