#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every script a docs page names can be run as written: README.md and every .md under
docs/ (docs/data included) are read whole; each path under scripts/ or tests/ ending in
.sh, .py or .pl is a script named, and it must be in HEAD's tree, with its run bit (mode
100755) when it starts with "#!" (a program; a file without one is a module or a sourced
library, named for its contents, not run). A script that is gone may be named only as retired, on its own line: the word
"retired" and "commit <hash>" on that line, and that commit must hold the script (so a
figure it made can still be reproduced from there).

Outside a git checkout (a tarball) the working files stand in for HEAD: the file must
exist and be executable; a retired script's commit cannot be asked and is not checked.

Usage: check_scripts.py <source dir>   (prints FILE:LINE: what, exits 1 on any)
"""
import os
import re
import subprocess
import sys

SCRIPT = re.compile(r"(?<![\w./-])((?:scripts|tests)/[\w./+-]*[\w+-]\.(?:sh|py|pl))(?![\w/-])")
RETIRED = re.compile(r"\bretired\b", re.I)
COMMIT = re.compile(r"\bcommit ([0-9a-f]{7,40})\b")


def pages(root):
    out = [os.path.join(root, "README.md")] if os.path.exists(os.path.join(root, "README.md")) else []
    for dp, dirs, fs in os.walk(os.path.join(root, "docs")):
        dirs.sort()
        out += sorted(os.path.join(dp, f) for f in fs if f.endswith(".md"))
    return out


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


def head_modes(root):
    """path -> mode of every file in HEAD's tree; None outside a git checkout."""
    if not os.path.exists(os.path.join(root, ".git")):
        return None
    r = git(root, "ls-tree", "-r", "--full-tree", "HEAD")
    if r.returncode != 0:
        sys.exit(f"check_scripts: git ls-tree HEAD failed in {root}: {r.stderr.strip()}")
    modes = {}
    for line in r.stdout.splitlines():
        meta, path = line.split("\t", 1)
        modes[path] = meta.split()[0]
    return modes


def shebang(root, path, in_git, cache={}):
    """Does the file (at HEAD, or on disk outside git) start with #!?"""
    key = (root, path, in_git)
    if key not in cache:
        if in_git:
            head = subprocess.run(["git", "-C", root, "cat-file", "blob", f"HEAD:{path}"], capture_output=True).stdout
        else:
            with open(os.path.join(root, path), "rb") as f:
                head = f.read(2)
        cache[key] = head.startswith(b"#!")
    return cache[key]


def held_at(root, commit, path, cache={}):
    key = (root, commit, path)
    if key not in cache:
        cache[key] = git(root, "cat-file", "-e", f"{commit}:{path}").returncode == 0
    return cache[key]


def check(root):
    modes = head_modes(root)
    bad = []
    for md in pages(root):
        rel = os.path.relpath(md, root)
        with open(md, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for no, line in enumerate(lines, 1):
            for path in SCRIPT.findall(line):
                if modes is None:
                    full = os.path.join(root, path)
                    present, runnable = os.path.isfile(full), os.access(full, os.X_OK)
                else:
                    present, runnable = path in modes, modes.get(path) == "100755"
                if present and (runnable or not shebang(root, path, modes is not None)):
                    continue
                if present:
                    bad.append(f"{rel}:{no}: {path} has no run bit (git update-index --chmod=+x {path})")
                    continue
                commits = COMMIT.findall(line)
                if not RETIRED.search(line) or not commits:
                    bad.append(f"{rel}:{no}: {path} is not in the tree at HEAD (name it as retired, with a "
                               "commit that holds it, on the same line)")
                elif modes is not None and not any(held_at(root, c, path) for c in commits):
                    bad.append(f"{rel}:{no}: {path} is named retired, but no commit on its line "
                               f"({', '.join(commits)}) holds it")
    return bad


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_scripts.py <source dir>")
    bad = check(sys.argv[1])
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
