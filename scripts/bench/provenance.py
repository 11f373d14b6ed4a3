#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The line every section of docs/measurements/ starts with (tests/docs/check_names.py checks it):

    Measured: YYYY-MM-DD, commit <hash>, `<command>`, data: `<docs/data path>`

The date is git's: the last commit that recorded the section's data files (rendered
markdown, plots and plot scripts left out); data not yet committed is dated today at HEAD.
The commit is the source the data was measured at where the data says so (a single data
folder whose meta.json has "commit", as the emulated-cluster benches write), else that
recording commit.
"""
import json
import os
import re
import subprocess
from datetime import datetime, timezone

LINE = re.compile(r"^(Measured|Not measured): ")


def _git(root, *args):
    r = subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def _measured_at(root, data):
    """The short commit the data's own meta.json names (known to git), or None."""
    if len(data) != 1:
        return None
    try:
        with open(os.path.join(root, data[0], "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    c = meta.get("commit") if isinstance(meta, dict) else None
    if not isinstance(c, str) or not re.fullmatch(r"[0-9a-f]{7,40}", c):
        return None
    return _git(root, "rev-parse", "--short", c + "^{commit}") or None


def measured_line(root, data, command):
    """The block for data (paths relative to root, e.g. docs/data/cluster) measured by command."""
    spec = list(data) + [":!*.md", ":!*.png", ":!*.gp"]
    dirty = _git(root, "status", "--porcelain", "--", *spec)
    when = "" if dirty else _git(root, "log", "-1", "--diff-filter=AM", "--format=%cs %h", "--", *spec)
    if not when:
        head = _git(root, "rev-parse", "--short", "HEAD") or "0000000"
        when = datetime.now(timezone.utc).strftime("%Y-%m-%d") + " " + head
    date, commit = when.split()
    commit = _measured_at(root, data) or commit
    paths = ", ".join(f"`{d.rstrip('/')}/`" if os.path.isdir(os.path.join(root, d)) else f"`{d}`" for d in data)
    return f"Measured: {date}, commit {commit}, `{command}`, data: {paths}"


def with_line(text, line):
    """text (a section: its heading first) with line as its first line of text, unless it
    already has one."""
    lines = text.split("\n")
    body = next((i for i in range(1, len(lines)) if lines[i].strip()), None)
    if body is not None and LINE.match(lines[body]):
        return text
    return "\n".join(lines[:1] + ["", line] + lines[1:])


def with_sections(lines, line):
    """Markdown lines with line as the first text of every level-2 section that has none."""
    out, i = [], 0
    while i < len(lines):
        out.append(lines[i])
        if lines[i].startswith("## "):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j >= len(lines) or not LINE.match(lines[j]):
                out.extend(["", line])
        i += 1
    return out
