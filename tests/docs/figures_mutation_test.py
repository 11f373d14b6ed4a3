#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Mutation test of check_figures.py on the project's own docs: for every figure the check
covers in README.md and docs/guide/*.md (in prose and tied tables against their data, and
settings against the code that sets them), every digit in turn is changed (d -> d+1 mod 10)
in a scratch copy of that file's text, and the check must then fail. A
mutant the check lets through is a figure whose data cannot tell it from its neighbours.
Usage: figures_mutation_test.py <source dir>"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_figures  # noqa: E402

root = sys.argv[1]
covered, skipped, bad = check_figures.check(root)
if bad:
    print("\n".join(bad))
    print("FAILED: the unmutated docs do not pass check_figures.py")
    sys.exit(1)
if not covered:
    print("FAILED: the check covers no figure")
    sys.exit(1)
texts = {md: open(os.path.join(root, md), encoding="utf-8").read() for md in {c[0] for c in covered}}
mutants, survivors = 0, []
for md, no, col, num, _ in covered:
    lines = texts[md].split("\n")
    line = lines[no - 1]
    if line[col:col + len(num)] != num:
        print(f"FAILED: {md}:{no}: figure {num} not at column {col} ({line[col:col + len(num)]!r})")
        sys.exit(1)
    for i, ch in enumerate(num):
        if not ch.isdigit():
            continue
        mutated = num[:i] + str((int(ch) + 1) % 10) + num[i + 1:]
        lines2 = list(lines)
        lines2[no - 1] = line[:col] + mutated + line[col + len(num):]
        mutants += 1
        _, _, bad = check_figures.check(root, {md: "\n".join(lines2)})
        if not bad:  # the unmutated docs pass, so any error is the mutant's
            survivors.append(f"{md}:{no}: {num} -> {mutated}")
if survivors:
    print("\n".join(survivors))
    print(f"FAILED: {len(survivors)} of {mutants} mutants of {len(covered)} checked figures passed the check")
    sys.exit(1)
print(f"PASS: {mutants} of {mutants} one-digit mutants of the {len(covered)} checked figures fail the check "
      f"({check_figures.summary(covered, skipped)})")
