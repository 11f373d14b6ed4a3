#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One source for every setting: docs/guide/configuration.md's table of environment
variables is, row for row, what `malleable-run --settings` prints from the code's table
(launcher/src/settings.cpp; a row's trailing <!-- ... --> marker aside); every variable
name the libraries and the launcher read (a string "RESIZE_...", "BLACS_DYN_...",
"MALLEABLE_..." or "REDIST_..." in their sources, benches aside) is in it; no line of the
page is over 400 characters. The checker first proves it catches a changed default, a name
missing from the table and a long line.
Usage: check_settings.py <source dir> <malleable-run>"""
import os
import re
import subprocess
import sys
import tempfile

from doc_check_util import each_failed

PAGE = os.path.join("docs", "guide", "configuration.md")
PARTS = ("blacs-dyn", "redist", "resize", "cluster", "launcher", "common")
NAME = re.compile(r'"((?:RESIZE|BLACS_DYN|MALLEABLE|REDIST)_[A-Z0-9_]+)"')
MOST = 400


def page_table(text):
    lines = text.split("\n")
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("| variable | part |"))
    except StopIteration:
        return []
    out = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        out.append(re.sub(r"\s*<!--.*?-->\s*$", "", line))
    return out


def code_names(root):
    names = set()
    for part in PARTS:
        for d, dirs, files in os.walk(os.path.join(root, part)):
            dirs[:] = [x for x in dirs if x != "bench"]
            for f in files:
                if f.endswith((".cpp", ".hpp", ".c", ".h", ".f90", ".F90")):
                    names.update(NAME.findall(open(os.path.join(d, f), encoding="utf-8", errors="replace").read()))
    return names


def problems(text, printed, names):
    table = page_table(text)
    if table != printed:
        for k, (a, b) in enumerate(zip(table + [""] * len(printed), printed + [""] * len(table))):
            if a != b:
                yield f"{PAGE}: table line {k + 1} differs from `malleable-run --settings`:\n  page: {a[:200]}\n  code: {b[:200]}"
                break
    listed = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", "\n".join(printed)))
    for n in sorted(names - listed):
        yield f"{n}: read by the sources, not in the settings table (launcher/src/settings.cpp)"
    for no, line in enumerate(text.split("\n"), 1):
        if len(line) > MOST:
            yield f"{PAGE}:{no}: {len(line)} characters, more than {MOST}"


def self_test():
    printed = ["| variable | part |", "|---|---|", "| `RESIZE_A` | 1 |"]
    page = "x\n\n" + "\n".join(printed) + " <!-- setting: 1 s in f at a -->\n\ny\n"
    ok = list(problems(page, printed, {"RESIZE_A"})) == []
    changed = list(problems(page.replace("| 1 |", "| 2 |"), printed, {"RESIZE_A"}))
    missing = list(problems(page, printed, {"RESIZE_A", "RESIZE_B"}))
    long = list(problems(page + "z" * (MOST + 1), printed, {"RESIZE_A"}))
    return ok and len(changed) == 1 and "differs" in changed[0] and missing == [
        "RESIZE_B: read by the sources, not in the settings table (launcher/src/settings.cpp)"] and \
        len(long) == 1 and "more than" in long[0]


def main():
    root, run = sys.argv[1], sys.argv[2]
    if not self_test():
        print("FAILED: the checker does not catch a changed row, a missing name or a long line")
        return 1
    printed = subprocess.run([run, "--settings"], check=True, capture_output=True, text=True).stdout.rstrip("\n").split("\n")
    found = list(problems(open(os.path.join(root, PAGE), encoding="utf-8").read(), printed, code_names(root)))
    return each_failed(found, f"{PAGE}'s table is malleable-run --settings ({len(printed) - 2} rows), every name the sources "
                              "read in it")


if __name__ == "__main__":
    sys.exit(main())
