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

Usage: scripts/trace-remap-files.py BUILD_DIR [-- APP ARGS...]
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

GDB_SCRIPT = r"""
import gdb, json
gdb.execute('set pagination off'); gdb.execute('set confirm off')
gdb.execute('set breakpoint pending on')
gdb.execute('handle all nostop noprint pass', to_string=True)
syms = json.load(open(SYMS))
start = [s for s in syms if s[2] == START][0][0]
gdb.execute('break ' + START)
gdb.execute('run')
base = int(gdb.parse_and_eval('(long)&' + START)) - start
gdb.execute('delete')
bps = {}
for val, f, name in syms:
    if not name.startswith('_GLOBAL__sub_I'):
        bps[gdb.Breakpoint('*0x%x' % (base + val), internal=True).number] = (f, name)
last = []
gdb.events.stop.connect(lambda ev: last.extend(getattr(ev, 'breakpoints', [])))
hits = []
while True:
    try:
        gdb.execute('continue', to_string=True)
    except gdb.error:
        break
    if not last:
        break
    done = False
    for b in last:
        if b.number in bps:
            hits.append(bps[b.number])
            done = done or bps[b.number][1] == STOP
        b.enabled = False
    del last[:]
    if done:
        break
json.dump(hits, open(HITS, 'w'))
gdb.execute('kill')
"""


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def symbols(build):
    """(address in the library, file under resize/src, symbol) of every function it defines."""
    src = os.path.join(ROOT, "resize", "src")
    files = [os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "**", "*.cpp"), recursive=True)]
    by_base = {os.path.basename(f): f for f in files}
    # the shell's objects, and the pure core's (resize_core), whose objects the library holds
    dirs = [os.path.join(build, "resize", "CMakeFiles", d, "src") for d in ("resize.dir", "resize_core.dir")]
    owner = {}
    for f in files:
        for obj in (os.path.join(d, f + ".o") for d in dirs):
            if not os.path.exists(obj):
                continue
            for line in run(["nm", "--defined-only", obj]).splitlines():
                w = line.split()
                if len(w) == 3 and w[1] == "T":
                    owner[w[2]] = f
    lib = sorted(glob.glob(os.path.join(build, "resize", "libmalleable_resize.so.*.*")))[-1]
    out, current, table = [], None, False
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
                out.append((int(w[1], 16), f, name))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    app = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [
        os.path.join(build, "apps", "pdgemm_resizable"), "-g", "2x2", "-p", "scripted", "-s",
        "1:expand:3x3:local2", "-i", "2", "-n", "600", "-q"]
    with tempfile.TemporaryDirectory(prefix="trace-remap-") as tmp:
        syms, hits, script = (os.path.join(tmp, n) for n in ("syms.json", "hits.json", "trace.py"))
        json.dump(symbols(build), open(syms, "w"))
        with open(script, "w") as s:
            s.write(f"SYMS, HITS, START, STOP = {syms!r}, {hits!r}, {START!r}, {STOP!r}\n" + GDB_SCRIPT)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        subprocess.run(["mpiexec", "--oversubscribe", "-n", "1", "gdb", "-q", "-batch", "-x", script, "--args"] +
                       app + [":", "-n", "3"] + app, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=600)
        if not os.path.exists(hits):
            sys.exit("trace-remap-files: the run ended before the trace did (no remap point reached?)")
        entered = collections.OrderedDict()
        for f, name in json.load(open(hits)):
            if name != STOP:
                entered.setdefault(f, []).append(name)
    for f, names in entered.items():
        shown = run(["c++filt"] + names[:4]).split("\n")
        print(f"{f:34s} {len(names):3d}  " + "; ".join(n.replace("(anonymous namespace)", "{anon}").split("(")[0] for n in shown if n))
    print(f"{len(entered)} files of resize/src entered")


if __name__ == "__main__":
    main()
