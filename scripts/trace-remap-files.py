#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which source files of resize/src a remap point enters, seen on world rank 0 of a run.

Runs an application of the build tree (default: a blocking expansion 2x2 -> 3x3 with the
Local2 placement, the scripted policy, the Redist mover, the defaults otherwise) with
world rank 0 under gdb. A breakpoint sits on every function the library's object files
define (global functions by their object file, file-local ones by the symbol table's FILE
entries); they are armed at the first `Session::remap_point()` and each is taken off once
hit, and the trace ends at the next `Session::begin_iteration()`. Prints every file
entered, in the order first entered, with the functions hit in it, and the count.

Functions defined in headers (inline, templates) are not counted: they belong to no file
of resize/src. The newcomers' side (`Session::join()`) is not traced: they are started by
the spawn, not under gdb.

--all-parts: every part's library (redist, blacs-dyn, gridmap, cluster beside resize),
files named <part>/src/...; --report: then, from Session::summary() until the Session
ends, the files the run's report enters (the application must call summary(), as
apps/examples/porting/malleable.cpp does). Functions of the standard library's templates
instantiated in a file are left out.

Usage: scripts/trace-remap-files.py BUILD_DIR [--all-parts] [--report] [-- APP ARGS...]
Needs gdb, nm, readelf, c++filt and mpiexec; a Release build will do (no debug info used).
"""
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = "_ZN6resize7Session11remap_pointEv"
STOP = "_ZN6resize7Session15begin_iterationEv"
START2 = "_ZNK6resize7Session7summaryB5cxx11Ev"
STOP2 = "_ZN6resize7SessionD2Ev"

GDB_SCRIPT = r"""
import gdb, json
gdb.execute('set pagination off'); gdb.execute('set confirm off')
gdb.execute('set breakpoint pending on')
gdb.execute('handle all nostop noprint pass', to_string=True)
syms = json.load(open(SYMS))
gdb.execute('break ' + START)
gdb.execute('run')
bases = {}
for s_ in syms:  # each library's load address, from one global function of it
    if s_[3] not in bases:
        bases[s_[3]] = int(gdb.parse_and_eval("(long)&'" + s_[3] + "'")) - s_[4]
last = []
gdb.events.stop.connect(lambda ev: last.extend(getattr(ev, 'breakpoints', [])))
hits = []


def trace(stop):
    gdb.execute('delete')
    bps = {}
    for val, f, name, anchor, _ in syms:
        if not name.startswith('_GLOBAL__sub_I'):
            bps[gdb.Breakpoint('*0x%x' % (bases[anchor] + val), internal=True).number] = (f, name)
    del last[:]
    while True:
        try:
            gdb.execute('continue', to_string=True)
        except gdb.error:
            return False
        if not last:
            return False
        done = False
        for b in last:
            if b.number in bps:
                hits.append(bps[b.number])
                done = done or bps[b.number][1] == stop
            b.enabled = False
        del last[:]
        if done:
            return True


alive = trace(STOP)
if alive and REPORT:  # the report: from Session::summary() until the Session ends
    for b in gdb.breakpoints() or []:
        b.enabled = False
    gdb.execute('break ' + START2)
    try:
        gdb.execute('continue', to_string=True)
        hits.append(('--', 'REPORT'))
        trace(STOP2)
    except gdb.error:
        pass
json.dump(hits, open(HITS, 'w'))
try:
    gdb.execute('kill')
except gdb.error:
    pass
"""


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


LIBS = [("resize", ("resize.dir", "resize_core.dir"), "libmalleable_resize.so.*.*"),
        ("redist", ("redist.dir",), "libmalleable_redist.so.*.*"),
        ("redist", ("redist_plan.dir",), "libmalleable_redist_plan.so.*.*"),
        ("blacs-dyn", ("blacs_dyn.dir", "blacs_dyn_pure.dir"), "libmalleable_blacs_dyn.so.*.*"),
        ("gridmap", ("gridmap.dir",), "libmalleable_gridmap.so.*.*"),
        ("cluster", ("cluster.dir", "cluster_slurm.dir"), "libmalleable_cluster.so.*.*")]


def symbols(build, parts):
    """(address in its library, file <part>/src/..., symbol, and a global function of the
    library with its address) of every function the parts' libraries define."""
    out = []
    for part, tdirs, libglob in LIBS:
        if part not in parts:
            continue
        src = os.path.join(ROOT, part, "src")
        files = [os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "**", "*.cpp"), recursive=True)]
        by_base = {os.path.basename(f): f for f in files}
        dirs = [os.path.join(build, part, "CMakeFiles", d, "src") for d in tdirs]
        owner = {}
        for f in files:
            for obj in (os.path.join(d, f + ".o") for d in dirs):
                if not os.path.exists(obj):
                    continue
                for line in run(["nm", "--defined-only", obj]).splitlines():
                    w = line.split()
                    if len(w) == 3 and w[1] == "T":
                        owner[w[2]] = f
        lib = sorted(glob.glob(os.path.join(build, part, libglob)))[-1]
        current, table, mine, anchor = None, False, [], None
        for line in run(["readelf", "-sW", lib]).splitlines():
            if "'.symtab'" in line:
                table = True
                continue
            w = line.split()
            if not table or len(w) < 8:
                continue
            kind, bind, ndx, name = w[3], w[4], w[6], w[7]
            if kind == "FILE":
                current = name
            elif kind == "FUNC" and ndx != "UND":
                f = by_base.get(current) if bind == "LOCAL" else owner.get(name)
                if f:
                    mine.append([int(w[1], 16), part + "/src/" + f, name])
                    if bind == "GLOBAL" and anchor is None:
                        anchor = (name, int(w[1], 16))
        for m in mine:
            out.append(m + [anchor[0], anchor[1]])
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    opts = sys.argv[2:sys.argv.index("--")] if "--" in sys.argv else sys.argv[2:]
    parts = [p for p, _, _ in LIBS] if "--all-parts" in opts else ["resize"]
    report = "--report" in opts
    app = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [
        os.path.join(build, "apps", "pdgemm_resizable"), "-g", "2x2", "-p", "scripted", "-s",
        "1:expand:3x3:local2", "-i", "2", "-n", "600", "-q"]
    with tempfile.TemporaryDirectory(prefix="trace-remap-") as tmp:
        syms, hits, script = (os.path.join(tmp, n) for n in ("syms.json", "hits.json", "trace.py"))
        json.dump(symbols(build, parts), open(syms, "w"))
        with open(script, "w") as s:
            s.write(f"SYMS, HITS, START, STOP, START2, STOP2, REPORT = {syms!r}, {hits!r}, {START!r}, {STOP!r}, "
                    f"{START2!r}, {STOP2!r}, {report!r}\n" + GDB_SCRIPT)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        subprocess.run(["mpiexec", "--oversubscribe", "-n", "1", "gdb", "-q", "-batch", "-x", script, "--args"] +
                       app + [":", "-n", "3"] + app, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=600)
        if not os.path.exists(hits):
            sys.exit("trace-remap-files: the run ended before the trace did (no remap point reached?)")
        hit = json.load(open(hits))
    # The standard library's templates instantiated in a file are not its code: left out.
    names = run(["c++filt"] + [n for _, n in hit]).split("\n")
    phases = [("the remap point", collections.OrderedDict())]
    for (f, name), shown in zip(hit, names):
        if name == "REPORT":
            phases.append(("the report", collections.OrderedDict()))
        elif name not in (STOP, STOP2) and not shown.startswith(("std::", "void std::", "__gnu_cxx::")):
            phases[-1][1].setdefault(f, []).append(shown.replace("(anonymous namespace)", "{anon}").split("(")[0])
    where = "resize/src" if parts == ["resize"] else "the parts' src/"
    for title, entered in phases:
        if report:
            print(f"== {title}")
        for f, fns in entered.items():
            print(f"{f:44s} {len(fns):3d}  " + "; ".join(fns[:4]))
        print(f"{len(entered)} files of {where} entered")


if __name__ == "__main__":
    main()
