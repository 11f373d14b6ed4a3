#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Refresh the sections that benchmarks measure apart: the Slurm section of
docs/measurements/results.md and the sections of the topic pages (TOPIC: the emulated
cluster in cluster.md, the cost model and the shapes in redist.md, adaptation in
adaptive.md, the checkpoint's bandwidth in checkpoint.md, a resize's limits in resize.md).

reproduce.sh renders every section in one full run (about 20 min); these measurements run
apart (scripts/bench/slurm.sh cluster, slurm.sh slurm, redist.sh cost-model-error,
slurm.sh adaptive, ...), so this replaces just those sections in the page that holds them,
or inserts them before "## Checks made on the data" (or at the end) when they are missing.

    splice_sections.py [--results docs/measurements/results.md] [--data docs/data] [--only SUB]

Hand-written text below a line `<!-- kept by splice_sections.py -->` at the end of a
section (a reading of the figures) is kept when the section is replaced; the rest of the
section is the benchmark's rendering. Each benchmark script passes --only its own section.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_report  # noqa: E402
import provenance  # noqa: E402
import slurm_report  # noqa: E402

SECTIONS = (("cluster", cluster_report, "## On the emulated cluster"), ("slurm", slurm_report, "## Under Slurm"))
# Sections their own benchmark scripts render as markdown: docs/data/SUB/section.md,
# whose first line is its level-2 heading. In this order, after the cluster and Slurm ones.
STATIC = ("cost_model", "adaptive", "redist_shapes", "redist_shapes_cluster", "checkpoint", "resize_phases")
KEPT = "<!-- kept by splice_sections.py -->"
# The page of docs/measurements/ that holds each section (results.md keeps the others).
TOPIC = {"cluster": "cluster.md", "cost_model": "redist.md", "adaptive": "adaptive.md",
         "redist_shapes": "redist.md", "redist_shapes_cluster": "redist.md",
         "checkpoint": "checkpoint.md", "resize_phases": "resize.md"}
# The script that measures each docs/data/SUB (the section's "Measured:" line names it).
COMMANDS = {"cluster": "scripts/bench/slurm.sh cluster", "slurm": "scripts/bench/slurm.sh slurm",
            "cost_model": "scripts/bench/redist.sh cost-model-error", "adaptive": "scripts/bench/slurm.sh adaptive",
            "redist_shapes": "scripts/bench/redist.sh shapes",
            "redist_shapes_cluster": "scripts/bench/redist.sh shapes --cluster",
            "checkpoint": "scripts/bench/levels.sh checkpoint",
            "resize_phases": "scripts/bench/resize.sh phases"}


def measured(text, data, sub):
    """The section with its "Measured:" line (date and commit of docs/data/SUB in git)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(data)))
    rel = os.path.relpath(os.path.join(os.path.abspath(data), sub), root)
    return provenance.with_line(text, provenance.measured_line(root, [rel], COMMANDS[sub]))


def static_sections(data, only=None):
    """(SUB, heading, text) of every docs/data/SUB/section.md that exists, SUB in STATIC order;
    a section.md with prose lines over MOST characters is rewritten wrapped (wrap_long)."""
    out = []
    for sub in STATIC if not only else [s for s in STATIC if s == only]:
        f = os.path.join(data, sub, "section.md")
        if os.path.exists(f):
            raw = open(f).read()
            if wrap_long(raw) != raw:  # the bench's rendering, its long prose lines wrapped
                with open(f, "w") as out_f:
                    out_f.write(wrap_long(raw))
            text = measured(open(f).read(), data, sub)
            heading = text.split("\n", 1)[0].strip()
            if not heading.startswith("## "):
                raise SystemExit(f"{f}: the first line must be a level-2 heading, found {heading!r}")
            out.append((sub, heading, text))
    return out


MOST, WIDTH = 400, 96  # no docs line over MOST characters (tests/docs/check_line_length.py)


def _breaks(line):
    """Offsets of the spaces a line may break at: outside code spans, links and comments,
    not after a digit (a figure stays with its unit)."""
    ok, i, tick, bracket, url, comment = [], 0, 0, 0, 0, False
    while i < len(line):
        c = line[i]
        if comment:
            comment = not line.startswith("-->", i)
            i += 1 if comment else 3
            continue
        if c == "`":
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            tick = 0 if tick == j - i else (tick or j - i)
            i = j
            continue
        if tick:
            i += 1
            continue
        if line.startswith("<!--", i):
            comment, i = True, i + 4
            continue
        if c == "[":
            bracket += 1
        elif c == "]":
            bracket = max(0, bracket - 1)
            url += line.startswith("](", i)
        elif c == ")" and url:
            url -= 1
        elif c == " " and not bracket and not url and i and not line[i - 1].isdigit():
            ok.append(i)
        i += 1
    return ok


def wrap_long(text):
    """text with every prose line over MOST characters wrapped at WIDTH (a list item's
    continuation indented under its text); code blocks, table rows, headings, comment lines
    and the Measured line (read as one line) are left as they are."""
    out, fence = [], False
    for line in text.split("\n"):
        s = line.lstrip()
        if s.startswith("```"):
            fence = not fence
        if fence or len(line) <= MOST or s.startswith(("|", "#", "```", "Measured:", "<!--")):
            out.append(line)
            continue
        m = re.match(r"^(\s*(?:>\s*)*)((?:[-*+]|\d+\.)\s+)?", line)
        cont = m.group(1) + " " * len(m.group(2) or "")
        rest = line
        while len(rest) > WIDTH:
            ok = [o for o in _breaks(rest) if o > len(m.group(0)) + 10]
            ok = [o for o in ok if not re.match(r"(?:[-*+]|\d+[.)])\s|[#|>]", rest[o + 1:])]
            if not ok:
                break
            o = max([o for o in ok if o <= WIDTH] or [min(ok)])
            out.append(rest[:o].rstrip())
            rest = cont + rest[o + 1:].lstrip()
        out.append(rest)
    return "\n".join(out)


def relink(text, docs, md):
    """The renderers write links relative to the docs folder (img/x.png, data/x.csv), or, in
    a docs/data/SUB/section.md, relative to that file (../../img/x.png); the results file
    sits in docs/measurements/, so those links are made relative to it. Prose lines over
    MOST characters are wrapped (wrap_long)."""
    rel = os.path.relpath(os.path.abspath(docs), os.path.dirname(os.path.abspath(md)))
    text = wrap_long(text)  # the page's lines at most MOST characters
    return re.sub(r"\]\((?:\.\./\.\./)?(img|data)/",
                  lambda m: f"]({m.group(1)}/" if rel == "." else f"]({rel}/{m.group(1)}/", text)


def page(results, sub):
    """The file that holds docs/data/SUB's section: a topic page beside results.md, or results.md."""
    return os.path.join(os.path.dirname(os.path.abspath(results)), TOPIC[sub]) if sub in TOPIC else results


def splice_into(path, heading, new, data):
    """Splice the section into the page at path (made with a title if missing)."""
    text = open(path).read() if os.path.exists(path) else f"# {heading[3:]}\n"
    text = splice(text, heading, relink(new, os.path.dirname(os.path.abspath(data)), path))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)  # a fresh output folder
    with open(path, "w") as f:
        f.write(text)


def splice(text, heading, new):
    """Replace the level-2 section starting with `heading` (up to the next level-2 heading)."""
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith(heading)), None)
    if start is None:
        anchor = next((i for i, l in enumerate(lines) if l.startswith("## Checks made on the data")), len(lines))
        return "\n".join(lines[:anchor] + new.rstrip("\n").split("\n") + [""] + lines[anchor:])
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"## ", lines[i])), len(lines))
    kept = next((i for i in range(start, end) if lines[i].strip() == KEPT), None)
    tail = lines[kept:end] if kept is not None else []
    return "\n".join(lines[:start] + new.rstrip("\n").split("\n") + [""] + tail + lines[end:])


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(root, "docs", "measurements", "results.md"))
    ap.add_argument("--data", default=os.path.join(root, "docs", "data"))
    ap.add_argument("--only", help="refresh just this docs/data subdirectory's section (e.g. checkpoint)")
    a = ap.parse_args()
    done = []
    for sub, mod, heading in SECTIONS:
        if a.only and sub != a.only:
            continue
        new = mod.render(os.path.join(a.data, sub))
        if new:
            splice_into(page(a.results, sub), heading, measured(new, a.data, sub), a.data)
            done.append(sub)
    for sub, heading, new in static_sections(a.data, a.only):
        splice_into(page(a.results, sub), heading, new, a.data)
        done.append(heading[3:])
    print(f"splice_sections.py: {a.results}: refreshed {', '.join(done) or 'nothing (no data)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
