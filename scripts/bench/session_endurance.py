#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Session endurance: resident memory of a resizable driver's original
processes over many resizes. Runs `pdgemm_resizable` on 4 processes with CYCLES
expand 2x2 -> 3x2 / shrink 3x2 -> 2x2 pairs, samples VmRSS of the 4 original processes
(found by their pids at the start) every 0.2 s together with the number of resizes done
so far (progress lines), and prints the growth per resize (least-squares slope of the
largest original RSS over the resizes after the first fifth).

Usage: session_endurance.py BUILD_DIR [CYCLES]   (OMPI_ALLOW_RUN_AS_ROOT etc. as for
any manual run; see docs/reference/blacs-dyn.md, "Memory over many resizes").
"""
import os
import re
import subprocess
import sys
import time


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def children(ppid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == ppid:
                out.append(int(d))
        except (OSError, IndexError, ValueError):
            pass
    return out


def slope(xs, ys):
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    sxx = sum(x * x for x in xs)
    sxy = sum(x * y for x, y in zip(xs, ys))
    d = n * sxx - sx * sx
    return (n * sxy - sx * sy) / d if d else 0.0


def main():
    build = sys.argv[1]
    cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    steps = []
    for c in range(cycles):
        steps.append(f"{2 * c + 1}:expand:3x2:local2")
        steps.append(f"{2 * c + 2}:shrink:2x2")
    exe = os.path.join(build, "apps", "pdgemm_resizable")
    cmd = ["mpiexec", "--oversubscribe", "--bind-to", "none", "-n", "4", exe, "-n", "160", "--nb", "16",
           "-i", str(2 * cycles + 1), "-p", "scripted", "-s", ",".join(steps), "--resize-timeout", "600"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_mpi_yield_when_idle="1")
    log = open("/tmp/session_endurance.out", "w+")
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    originals = []
    while len(originals) < 4 and p.poll() is None:
        originals = sorted(children(p.pid))[:4]
        time.sleep(0.05)
    samples = []  # (resizes done, max RSS of the originals)
    while p.poll() is None:
        log.flush()
        with open("/tmp/session_endurance.out") as f:
            done = len(re.findall(r"remap after iter", f.read()))
        r = [rss_mb(q) for q in originals]
        r = [x for x in r if x is not None]
        if r:
            samples.append((done, max(r)))
        time.sleep(0.2)
    with open("/tmp/session_endurance.out") as f:
        text = f.read()
    ok = "result check" in text and ": OK" in text
    # One point per resize count: the last sample taken at that count.
    last = {}
    for d, r in samples:
        last[d] = r
    xs = sorted(x for x in last if x >= (2 * cycles) // 5)
    ys = [last[x] for x in xs]
    s = slope(xs, ys) if len(xs) > 2 else float("nan")
    first = last.get(min(last), float("nan")) if last else float("nan")
    print(f"session endurance: {2 * cycles} resizes (2x2 <-> 3x2, pdgemm_resizable), originals' max RSS "
          f"{first:.1f} -> {ys[-1] if ys else float('nan'):.1f} MB; growth {s:.4f} MB per resize "
          f"(slope after resize {xs[0] if xs else '-'}); result check {'OK' if ok else 'FAILED'}")
    return 0 if ok and p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
