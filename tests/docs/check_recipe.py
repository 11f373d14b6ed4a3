#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The recipe under Slurm is one text: docs/guide/slurm.md's first sh block (the one
cluster.slurm_recipe_text runs) carries the node range once (an #SBATCH -N line, no
export of RESIZE_SLURM_MIN_NODES / MAX_NODES or RESIZE_POLICY: malleable-run reads the
range from Slurm and sets the policy) and no `-p slurm` (the bundled drivers' flag, which
a user's program takes for an argument of its own). Every other fenced block of README.md
and docs/ that holds a job script running `malleable-run --job-dir` under an #SBATCH -N
line is that text; README.md and docs/guide/README.md show it; no line abbreviates it
("sbatch -N ... malleable-run --job-dir ..."). The checker first proves it catches a copy
that differs, an abbreviation and a recipe with an export line.
Usage: check_recipe.py <source dir>"""
import os
import re
import sys
import tempfile

from doc_check_util import each_failed

MUST_SHOW = ("README.md", os.path.join("docs", "guide", "README.md"))
HOME = os.path.join("docs", "guide", "slurm.md")


def blocks(text):
    """The fenced blocks of a page: (first line number, [lines without the common indent])."""
    out, cur, start, indent = [], None, 0, ""
    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if stripped.startswith("```"):
            if cur is None:
                cur, start, indent = [], n, line[: len(line) - len(stripped)]
            else:
                out.append((start, cur))
                cur = None
            continue
        if cur is not None:
            cur.append(line[len(indent):] if line.startswith(indent) else line)
    return out


def recipe_of(root):
    text = open(os.path.join(root, HOME), encoding="utf-8").read()
    m = re.search(r"```sh\n(.*?)\n```", text, re.S)
    return m.group(1).split("\n") if m else None


def recipe_problems(recipe):
    if recipe is None:
        yield f"{HOME}: no sh block (the recipe)"
        return
    body = "\n".join(recipe)
    if not re.search(r"^#SBATCH .*-N \d+-\d+", body, re.M):
        yield f"{HOME}: the recipe has no '#SBATCH ... -N MIN-MAX' line"
    if "exec malleable-run --job-dir" not in body:
        yield f"{HOME}: the recipe does not run 'exec malleable-run --job-dir'"
    if re.search(r"\bexport\b.*\b(RESIZE_SLURM_MIN_NODES|RESIZE_SLURM_MAX_NODES|RESIZE_POLICY)=", body):
        yield f"{HOME}: the recipe exports the range or the policy (malleable-run reads them from Slurm)"
    if re.search(r"(^|\s)-p slurm\b", body):
        yield f"{HOME}: the recipe passes '-p slurm' (the drivers' flag; a user's program fails on it)"


def pages(root):
    yield "README.md"
    for d, _, files in os.walk(os.path.join(root, "docs")):
        if os.sep + "data" in d[len(root):]:
            continue
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.relpath(os.path.join(d, f), root)


def problems(root):
    recipe = recipe_of(root)
    yield from recipe_problems(recipe)
    if recipe is None:
        return
    for page in pages(root):
        path = os.path.join(root, page)
        if not os.path.isfile(path):
            continue
        text = open(path, encoding="utf-8").read()
        copies = [(n, b) for n, b in blocks(text)
                  if any(l.startswith("#SBATCH") and " -N " in l for l in b)
                  and any("malleable-run --job-dir" in l for l in b)]
        for n, b in copies:
            if b != recipe:
                yield f"{page}:{n}: a copy of the recipe that is not {HOME}'s text"
        if page in MUST_SHOW and not copies:
            yield f"{page}: does not show the recipe"
        for n, line in enumerate(text.split("\n"), 1):
            if re.search(r"sbatch -N \S+ \.\.\. .*malleable-run --job-dir", line):
                yield f"{page}:{n}: an abbreviated recipe (show {HOME}'s block or link it)"


def plant(tmp, recipe, readme, guide_readme):
    for rel, body in ((HOME, recipe), ("README.md", readme), (MUST_SHOW[1], guide_readme)):
        os.makedirs(os.path.dirname(os.path.join(tmp, rel)) or tmp, exist_ok=True)
        with open(os.path.join(tmp, rel), "w", encoding="utf-8") as f:
            f.write(body)


def self_test():
    good = "#!/bin/bash\n#SBATCH -N 2-4 --time=1\nexec malleable-run --job-dir D -- ./p A"
    block = f"```sh\n{good}\n```\n"
    caught = 0
    with tempfile.TemporaryDirectory() as tmp:
        plant(tmp, block, "  " + block.replace("\n", "\n  "), block)
        caught += list(problems(tmp)) == []
        plant(tmp, block, block.replace("./p A", "./p A -p slurm"), "`sbatch -N 2-4 ... malleable-run --job-dir D`\n")
        got = list(problems(tmp))
        caught += any("README.md:1: a copy" in p for p in got) and any("abbreviated" in p for p in got) and \
            any("guide/README.md: does not show" in p for p in got)
        plant(tmp, block.replace("exec", "export RESIZE_SLURM_MAX_NODES=4\nexec"), block, block)
        caught += any("exports the range" in p for p in problems(tmp))
    return caught == 3


def main():
    if not self_test():
        print("FAILED: the checker does not catch a differing copy, an abbreviation or an export line")
        return 1
    return each_failed(list(problems(sys.argv[1])), f"the recipe is one text ({HOME}), shown in {', '.join(MUST_SHOW)}")


if __name__ == "__main__":
    sys.exit(main())
