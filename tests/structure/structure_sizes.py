# SPDX-License-Identifier: BSD-3-Clause
"""The sizes rule of tests/structure/check-structure.py (--sizes, --sizes-mutation): the tree's
folders that grow with every measurement stay within their limits.

  scripts/bench  at most 60 files (its workload/ helpers included): one bench command per
                 part, the cases as its first argument, as the parts' bench programs are; a
                 file named in sizes-allow.txt (with its reason, e.g. a path a page held by a
                 running measurement still names) is not counted;
  docs/data      at most 500 files and 5,000,000 bytes (the figures' sources; raw runs packed
                 in their study's runs.tar.xz, scripts/bench/data_archive.py).

The files counted are the tracked files present in the working tree (`git ls-files`; every
file of the folder outside a git checkout), so that a run of the check sees the tree as it
would be committed; sizes are the files' bytes on disk.

Usage (through check-structure.py): --sizes [source-dir], --sizes-mutation [source-dir].
"""
import os
import shutil
import subprocess
import tempfile

PASS_MESSAGE = "scripts/bench and docs/data within their limits of files and bytes"
# folder -> (most files, most bytes or None)
LIMITS = {os.path.join("scripts", "bench"): (60, None), os.path.join("docs", "data"): (500, 5_000_000)}
ALLOW = os.path.join("tests", "structure", "sizes-allow.txt")


def allowed(root):
    """The files sizes-allow.txt leaves out of the counts: `file PATH  # reason` lines."""
    out = set()
    path = os.path.join(root, ALLOW)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                words = line.split("#", 1)[0].split()
                if not words:
                    continue
                if len(words) != 2 or words[0] != "file" or "#" not in line:
                    raise SystemExit(f"{ALLOW}:{no}: want `file PATH  # reason`, got {line.strip()!r}")
                out.add(os.path.normpath(words[1]))
    return out


def files_under(root, folder):
    """The folder's files, relative to root: tracked and present in a git checkout, else all."""
    if os.path.exists(os.path.join(root, ".git")):
        r = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", folder], capture_output=True)
        if r.returncode == 0:
            names = [n.decode() for n in r.stdout.split(b"\0") if n]
            return sorted(n for n in names if os.path.isfile(os.path.join(root, n)))
    out = []
    for dirpath, dirnames, names in os.walk(os.path.join(root, folder)):
        dirnames.sort()
        out += [os.path.relpath(os.path.join(dirpath, n), root) for n in names]
    return sorted(out)


def problems(root):
    out = []
    skip = allowed(root)
    for folder, (most_files, most_bytes) in LIMITS.items():
        names = [n for n in files_under(root, folder) if os.path.normpath(n) not in skip]
        size = sum(os.path.getsize(os.path.join(root, n)) for n in names)
        if len(names) > most_files:
            out.append(f"{folder}: {len(names)} files (limit {most_files}): merge a part's scripts into its "
                       f"command's cases, or pack raw runs (scripts/bench/data_archive.py)")
        if most_bytes is not None and size > most_bytes:
            out.append(f"{folder}: {size:,} bytes (limit {most_bytes:,}): pack or trim raw runs")
    return out


def _git(root, *args):
    subprocess.run(["git", "-C", root, *args], check=True, capture_output=True)


def mutation(root):
    """On a scratch git tree shaped like the limits: one file over scripts/bench's count, an
    allow-listed file not counted, one file over docs/data's count and one byte over its
    size must each be caught, and the tree at the limits passes."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        bench, data = os.path.join(tmp, "scripts", "bench"), os.path.join(tmp, "docs", "data")
        os.makedirs(bench)
        os.makedirs(data)
        os.makedirs(os.path.join(tmp, "tests", "structure"))
        for i in range(60):
            with open(os.path.join(bench, f"s{i}.sh"), "w") as f:
                f.write("#!/bin/sh\n")
        for i in range(499):
            with open(os.path.join(data, f"d{i}.txt"), "w") as f:
                f.write("x\n")
        with open(os.path.join(data, "big.bin"), "wb") as f:
            f.write(b"\0" * (5_000_000 - 499 * 2))
        _git(tmp, "init", "-q")
        _git(tmp, "add", "-A")
        if problems(tmp):
            print("sizes mutation: the tree at the limits fails:", problems(tmp))
            return False

        def planted(what, path, data_bytes, expect):
            with open(os.path.join(tmp, path), "wb") as f:
                f.write(data_bytes)
            _git(tmp, "add", "-A")
            hit = any(expect in p for p in problems(tmp))
            print(f"sizes mutation: {what}: " + ("caught" if hit else "MISSED"))
            return hit
        ok &= planted("a 61st file in scripts/bench", os.path.join("scripts", "bench", "extra.sh"), b"#!/bin/sh\n",
                      "scripts/bench: 61 files")
        with open(os.path.join(tmp, ALLOW), "w") as f:
            f.write("file scripts/bench/extra.sh  # planted: left out of the count\n")
        _git(tmp, "add", "-A")
        allowed_ok = not problems(tmp)
        print("sizes mutation: the 61st file allow-listed: " + ("not counted" if allowed_ok else "COUNTED"))
        ok &= allowed_ok
        ok &= planted("a 501st file in docs/data", os.path.join("docs", "data", "a.txt"), b"",
                      "docs/data: 501 files")
        os.remove(os.path.join(tmp, "docs", "data", "a.txt"))
        ok &= planted("docs/data one byte over", os.path.join("docs", "data", "big.bin"), b"\0" * (5_000_001 - 499 * 2),
                      "docs/data: 5,000,001 bytes")
        with open(os.path.join(tmp, ALLOW), "w") as f:
            f.write("file scripts/bench/extra.sh\n")
        try:
            problems(tmp)
            print("sizes mutation: an allow line without its reason: ACCEPTED")
            ok = False
        except SystemExit:
            print("sizes mutation: an allow line without its reason: refused")
        shutil.rmtree(os.path.join(tmp, ".git"))
        os.remove(os.path.join(tmp, ALLOW))
        outside = any("scripts/bench: 61 files" in p for p in problems(tmp))
        print("sizes mutation: outside git, every file counted: " + ("caught" if outside else "MISSED"))
        ok &= outside
    print("check-structure --sizes-mutation:", "PASS" if ok else "FAILED")
    return ok
