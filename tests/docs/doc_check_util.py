# SPDX-License-Identifier: BSD-3-Clause
"""What the documentation checkers and their tests share: a Markdown file's lines, each
with whether it stands in a fenced code block; a scratch file written with its folders;
and the verdict over a checker's findings on the project."""
import os
import stat
import sys


def md_lines(path):
    """(line number, line, inside a fenced block) of each line of the Markdown file `path`,
    the fences' own lines (```) left out."""
    fence = False
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            yield no, line, fence


def write(path, text, exe=False):
    """Writes `text` to `path`, making its folders; `exe`: with the owner's run bit."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if exe:
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def each_failed(found, passed):
    """Prints "FAILED: <problem>" for each problem of `found` and returns 1, or prints
    "PASS: <passed>" and returns 0 (a checker's exit status)."""
    for p in found:
        print(f"FAILED: {p}")
    if found:
        return 1
    print(f"PASS: {passed}")
    return 0


def verdict(bad, failed, passed):
    """Prints each finding of `bad`, then "FAILED: <failed>" and exits 1 if there is one;
    otherwise prints "PASS: <passed>"."""
    for b in bad:
        print(b)
    if bad:
        print(f"FAILED: {failed}")
        sys.exit(1)
    print(f"PASS: {passed}")
