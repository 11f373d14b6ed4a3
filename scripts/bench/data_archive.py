#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The raw runs of a study under docs/data/SUB, packed as one compressed archive
docs/data/SUB/runs.tar.xz; the study's summaries (section.md, summary files, what the docs
cite) stay beside it unpacked.

    data_archive.py pack DIR     pack DIR's raw runs (the patterns of STUDIES, merged with the
                                 archive's members: a loose file replaces its member, a
                                 loose folder the packed folder of that name)
    data_archive.py unpack DIR   extract every member into DIR and remove the archive
    data_archive.py list DIR     the archive's members
    data_archive.py cat PATH     a file's text, from the disk or from its study's archive
                                 (docs/data/SUB/x/y.json reads member x/y.json)
    data_archive.py extract FOLDER DEST   copy a folder inside a packed study (its members,
                                 loose files over them) to DEST, for a script that reads it
    data_archive.py retire DIR FOLDER...   drop the packed folders FOLDER (members FOLDER/...)
                                 from DIR's archive, which git history keeps: the docs that
                                 cited them name the commit that still has them
    data_archive.py study PATH   the packed study PATH lies in (a folder with an archive or
                                 named in STUDIES), or nothing: a script that works on a
                                 study's raw runs unpacks it first and packs it at its end

A bench script that writes into a packed study writes its files as before and runs
`data_archive.py pack DIR` at its end; a reader calls `unpacked(DIR)` (a scratch copy with
the members extracted and the loose files over them), `readable(FOLDER)` (the same for one
folder inside a study) or `read_text(PATH)`. The archive is
deterministic (members sorted, owner 0, mtime 0), so packing the same files twice gives the
same bytes."""
import contextlib
import fnmatch
import io
import os
import shutil
import sys
import tarfile
import tempfile

ARCHIVE = "runs.tar.xz"
# What is packed in each study (paths relative to docs/data/SUB; "x/" a whole subdirectory;
# a pattern with "/" matches the whole relative path, its "*" across folders too).
# What is not matched stays unpacked: section.md, READMEs, summaries, files the docs cite.
STUDIES = {
    "resize_phases": ["*/"],
    "hugepages": ["*/"],
    "levels_recover": ["*/"],
    "scale_sim": ["raw/"],
    "redist_ab": ["smpi_old/", "smpi_new/", "costa_ab/"],
    "redist_node_window": ["run2/", "*.case*.txt"],
    "redist_shapes": ["case*.json", "case*.log"],
    "redist_shapes_cluster": ["case*.json", "case*.log"],
    "redist_types_dropin": ["case*.txt"],
    "background_cluster": ["*.log", "*.json"],
    "background_cluster_life": ["*.log", "*.json"],
    "adaptive": ["*.json", "*.log"],
    "device16": ["raw/", "ab/", "ucx/"],
    # the emulated runs, one folder per command (share_<s>/ with jobs/, shared/log/, Slurm's
    # files); summary.csv, costs_emulated.json, seeds/, sim/, trace/ stay unpacked
    # and the simulated arms' per-seed metrics (workload.sh arms: arms/NAME/<arm>_<share>_s<seed>.json;
    # arms.md, runs.tsv, replay.json and rigid.json stay unpacked; limit_extensions.py reads
    # the folder after `data_archive.py extract docs/data/workload/arms/NAME DEST`)
    "workload": ["emulated*/", "arms/*/*_s[0-9]*.json", "arms/*/rigid.json", "arms/*/replay.json"],
    # the endurance runs' reports (session_endurance.py --json) and the heap-trim runs' logs;
    # the summaries (run_*.txt, heap_trim_ab*.txt, rank0_*) stay unpacked
    "endurance": ["*.json", "heap_trim_100_*.txt"],
    # redist.sh cost-model-error's runs (every case's times, the fits); cases*.csv, runs*.csv stay
    "cost_model": ["run*.json", "cost_model_run*.json", "run*.log"],
    # spawn.sh hang's rows, also of its runs in subfolders (it unpacks the study to append
    # and packs it at its end) and its logs;
    # summary.csv, summary.md, walks_needed.txt, cause_test.txt stay
    "spawn_hang": ["spawns.csv", "*/spawns.csv", "run.log", "suite_walks_ctest.log"],
    # the emulated cluster's redistributions (slurm.sh cluster) and the Slurm scenario's two
    # runs (slurm.sh slurm); their reports read them through unpacked()
    "cluster": ["redist_*.json"],
    # levels.sh checkpoint's overhead runs (levels_report.py checkpoint reads them through unpacked())
    "checkpoint": ["overhead_*.json", "overhead_*.log"],
    "slurm": ["malleable/", "rigid/"],
    # one real-trace slice's arms (slice_arms.sh): the runs of a slice, seed by seed; the
    # slice's table (NAME.md) and summary (NAME.csv) stay beside them unpacked
    "slice_arms": ["*/"],
}
_members = {}


def study_of(d):
    return os.path.basename(os.path.normpath(d))


def packed(rel, patterns):
    """True when the path rel (relative to the study) is one a pattern packs."""
    for p in patterns:
        if p.endswith("/"):
            top = rel.split("/", 1)[0]
            if "/" in rel and fnmatch.fnmatchcase(top, p[:-1]):
                return True
        elif "/" in p and fnmatch.fnmatchcase(rel, p):  # a path pattern: arms/*/*_s[0-9]*.json
            return True
        elif "/" not in rel and fnmatch.fnmatchcase(rel, p):
            return True
    return False


def members(archive):
    """{member name: bytes} of an archive (cached by path and modification time)."""
    key = (archive, os.path.getmtime(archive))
    if key not in _members:
        with tarfile.open(archive, "r:xz") as t:
            _members[key] = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
    return _members[key]


def locate(path):
    """(archive, member) holding path (a file or a folder inside a packed study), or None."""
    path = os.path.normpath(path)
    d = os.path.dirname(path)
    while d and d != os.path.dirname(d):
        a = os.path.join(d, ARCHIVE)
        if os.path.isfile(a):
            rel = os.path.relpath(path, d)
            m = members(a)
            if rel in m or any(n.startswith(rel + "/") for n in m):
                return a, rel
            return None
        d = os.path.dirname(d)
    return None


def exists(path):
    return os.path.exists(path) or locate(path) is not None


def read_text(path):
    """A file's text from the disk, else from the archive of its study."""
    if os.path.isfile(path):
        return open(path, encoding="utf-8", errors="ignore").read()
    got = locate(path)
    if not got or got[1] not in members(got[0]):
        raise FileNotFoundError(path)
    return members(got[0])[got[1]].decode("utf-8", errors="ignore")


def glob_members(pattern):
    """Archive members (as paths) a glob matches, for a pattern inside a packed study."""
    d = os.path.dirname(os.path.normpath(pattern))
    while d and d != os.path.dirname(d):
        a = os.path.join(d, ARCHIVE)
        if os.path.isfile(a):
            rel = os.path.relpath(os.path.normpath(pattern), d)
            return sorted(os.path.join(d, n) for n in members(a) if fnmatch.fnmatchcase(n, rel))
        d = os.path.dirname(d)
    return []


def expand(pattern):
    """The paths a glob matches on the disk and inside a packed study (files and folders at
    the pattern's depth: docs/data/workload/emulated_16n/share_* names the packed runs)."""
    import glob
    got = set(glob.glob(pattern))
    root = study_root(os.path.dirname(os.path.normpath(pattern)) or ".")
    a = os.path.join(root, ARCHIVE) if root else None
    if a and os.path.isfile(a):
        rel = os.path.relpath(os.path.abspath(pattern), root)
        depth = rel.count("/") + 1
        for n in members(a):
            prefix = "/".join(n.split("/")[:depth])
            if n.count("/") + 1 >= depth and fnmatch.fnmatchcase(prefix, rel):
                head = os.path.normpath(pattern)
                for _ in range(depth):
                    head = os.path.dirname(head)
                got.add(os.path.join(head, prefix))
    return sorted(got)


@contextlib.contextmanager
def unpacked(d):
    """A directory with d's files as they were before packing: d itself when it holds no
    archive, else a scratch copy (the members, then d's loose files over them)."""
    a = os.path.join(d, ARCHIVE)
    if not os.path.isfile(a):
        yield d
        return
    tmp = tempfile.mkdtemp(prefix="data_archive.")
    try:
        with tarfile.open(a, "r:xz") as t:
            t.extractall(tmp)
        for top in replaced_folders(d):  # a rerun's folder replaces its packed copy
            shutil.rmtree(os.path.join(tmp, top), ignore_errors=True)
        for base, _, files in os.walk(d):
            for f in files:
                src = os.path.join(base, f)
                if os.path.samefile(src, a):
                    continue
                dst = os.path.join(tmp, os.path.relpath(src, d))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def study_root(path):
    """The packed study that path lies in: the nearest folder above it (or path itself)
    that holds an archive or is data/SUB with SUB named in STUDIES; None when there is none."""
    d = os.path.abspath(path)
    while d != os.path.dirname(d):
        if os.path.isfile(os.path.join(d, ARCHIVE)) or (
                study_of(d) in STUDIES and os.path.isdir(d) and study_of(os.path.dirname(d)) == "data"):
            return d
        d = os.path.dirname(d)
    return None


@contextlib.contextmanager
def readable(path):
    """A folder inside a packed study as a real folder: path itself when no archive holds any
    of it, else a scratch copy of its members with path's loose files over them (a loose
    run folder that a folder pattern packs replaces its packed copy)."""
    root = study_root(path)
    a = os.path.join(root, ARCHIVE) if root else None
    rel = os.path.relpath(os.path.abspath(path), root) if root else "."
    inside = [n for n in members(a) if n.startswith(rel + "/")] if a and os.path.isfile(a) and rel != "." else []
    if not inside:
        yield path
        return
    scratch = tempfile.mkdtemp(prefix="data_archive.")
    tmp = os.path.join(scratch, os.path.basename(os.path.normpath(path)))  # the folder's own name
    try:
        top = rel.split("/", 1)[0]
        if top not in replaced_folders(root):
            for n in inside:
                dst = os.path.join(tmp, os.path.relpath(n, rel))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "wb") as f:
                    f.write(members(a)[n])
        if os.path.isdir(path):
            for base, _, files in os.walk(path):
                for f in files:
                    src = os.path.join(base, f)
                    dst = os.path.join(tmp, os.path.relpath(src, path))
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copy2(src, dst)
        yield tmp
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def replaced_folders(d):
    """The loose subfolders of d that a folder pattern ("x/") packs: a rerun wrote them anew,
    so each replaces its packed copy as a whole."""
    patterns = [p for p in STUDIES.get(study_of(d), []) if p.endswith("/")]
    return [n for n in sorted(os.listdir(d)) if os.path.isdir(os.path.join(d, n))
            and any(fnmatch.fnmatchcase(n, p[:-1]) for p in patterns)]


def pack(d):
    """Pack d's loose raw runs (STUDIES[SUB]) into d/runs.tar.xz, merged with the members it
    holds; returns (members, loose files removed)."""
    patterns = STUDIES.get(study_of(d))
    if patterns is None:
        return None, 0  # not a packed study: its files stay as they are
    a = os.path.join(d, ARCHIVE)
    content = dict(members(a)) if os.path.isfile(a) else {}
    for top in replaced_folders(d):
        content = {n: v for n, v in content.items() if not n.startswith(top + "/")}
    loose = []
    for base, _, files in os.walk(d):
        for f in files:
            p = os.path.join(base, f)
            rel = os.path.relpath(p, d)
            if rel != ARCHIVE and packed(rel, patterns):
                content[rel] = open(p, "rb").read()
                loose.append(p)
    if not loose and os.path.isfile(a):
        return len(content), 0
    _write(a, content)
    for p in loose:
        os.remove(p)
    for base, dirs, files in os.walk(d, topdown=False):  # children before their parents
        if base != d and not os.listdir(base):
            os.rmdir(base)
    return len(content), len(loose)


def _write(a, content):
    """The archive a holding `content` (name -> bytes), deterministic: sorted, mode 0644, mtime 0."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", preset=9) as t:
        for name in sorted(content):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content[name]), 0o644, 0
            t.addfile(info, io.BytesIO(content[name]))
    with open(a + ".tmp", "wb") as f:
        f.write(buf.getvalue())
    os.replace(a + ".tmp", a)


def retire(d, folders):
    """Drop the members under each of `folders` from d's archive; returns how many. A folder
    the archive does not hold, or one also lying loose in d, is refused (nothing written)."""
    a = os.path.join(d, ARCHIVE)
    if not os.path.isfile(a):
        sys.exit(f"data_archive: {a}: no archive")
    content = dict(members(a))
    gone = 0
    for f in folders:
        top = f.strip("/")
        if not top or ".." in top.split("/"):
            sys.exit(f"data_archive: {f}: not a folder of the archive")
        if os.path.exists(os.path.join(d, top)):
            sys.exit(f"data_archive: {os.path.join(d, top)} lies loose: pack it first")
        names = [n for n in content if n.startswith(top + "/")]
        if not names:
            sys.exit(f"data_archive: {a} holds no {top}/")
        gone += len(names)
        for n in names:
            del content[n]
    _write(a, content)
    return gone


def unpack(d):
    a = os.path.join(d, ARCHIVE)
    if not os.path.isfile(a):
        return 0
    with tarfile.open(a, "r:xz") as t:
        names = [m.name for m in t.getmembers()]
        for n in names:
            if n.startswith("/") or ".." in n.split("/"):
                raise SystemExit(f"data_archive: {a}: unsafe member {n}")
        t.extractall(d)
    os.remove(a)
    return len(names)


def main(argv):
    if len(argv) == 4 and argv[1] == "extract":
        if not exists(argv[2]):
            sys.exit(f"data_archive: {argv[2]}: no such folder, on the disk or in its study's {ARCHIVE}")
        with readable(argv[2]) as src:
            shutil.copytree(src, argv[3], dirs_exist_ok=True)
        return
    if len(argv) >= 4 and argv[1] == "retire":
        print(f"data_archive: {os.path.join(argv[2], ARCHIVE)}: {retire(argv[2], argv[3:])} members retired")
        return
    if len(argv) != 3 or argv[1] not in ("pack", "unpack", "list", "cat", "study"):
        sys.exit(__doc__)
    cmd, arg = argv[1], argv[2]
    if cmd == "study":
        root = study_root(arg)
        if root:
            print(root)
    elif cmd == "cat":
        try:
            sys.stdout.write(read_text(arg))
        except FileNotFoundError:
            sys.exit(f"data_archive: {arg}: no such file, on the disk or in its study's {ARCHIVE}")
    elif cmd == "list":
        a = os.path.join(arg, ARCHIVE)
        for n in sorted(members(a)) if os.path.isfile(a) else []:
            print(n)
    elif cmd == "pack":
        n, moved = pack(arg)
        if n is None:
            print(f"data_archive: {arg}: not a packed study (STUDIES), left as it is")
            return
        print(f"data_archive: {os.path.join(arg, ARCHIVE)}: {n} members ({moved} loose files packed)")
    else:
        print(f"data_archive: {arg}: {unpack(arg)} members extracted")


if __name__ == "__main__":
    main(sys.argv)
