#!/usr/bin/env python3
"""Refresh the emulated-cluster and Slurm sections of docs/results.md from docs/data.

reproduce.sh renders every section in one full run (about 20 min); the cluster and Slurm
measurements run apart (scripts/bench/cluster_bench.sh, slurm_bench.sh, which call this
at their end), so this replaces just those two sections in an existing results.md, or
inserts them before "## Checks made on the data" (or at the end) when they are missing.

    splice_sections.py [--results docs/results.md] [--data docs/data]
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_report  # noqa: E402
import slurm_report  # noqa: E402

SECTIONS = (("cluster", cluster_report, "## On the emulated cluster"), ("slurm", slurm_report, "## Under Slurm"))


def splice(text, heading, new):
    """Replace the level-2 section starting with `heading` (up to the next level-2 heading)."""
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith(heading)), None)
    if start is None:
        anchor = next((i for i, l in enumerate(lines) if l.startswith("## Checks made on the data")), len(lines))
        return "\n".join(lines[:anchor] + new.rstrip("\n").split("\n") + [""] + lines[anchor:])
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"## ", lines[i])), len(lines))
    return "\n".join(lines[:start] + new.rstrip("\n").split("\n") + [""] + lines[end:])


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(root, "docs", "results.md"))
    ap.add_argument("--data", default=os.path.join(root, "docs", "data"))
    a = ap.parse_args()
    text = open(a.results).read()
    done = []
    for sub, mod, heading in SECTIONS:
        new = mod.render(os.path.join(a.data, sub))
        if new:
            text = splice(text, heading, new)
            done.append(sub)
    with open(a.results, "w") as f:
        f.write(text)
    print(f"splice_sections.py: {a.results}: refreshed {', '.join(done) or 'nothing (no data)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
