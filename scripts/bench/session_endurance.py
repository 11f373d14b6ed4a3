#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Session endurance: the footprint of a resizable driver over many resizes with every
checkpoint location in use. Runs `pdgemm_resizable` on 4 processes (two
emulated nodes of 2, MALLEABLE_NODE_MAP=every=2) with CYCLES expand/shrink pairs, 2x2 ->
a seeded choice of 3x2, 2x3 or 4x2 and back, a global checkpoint every EVERY iterations,
a local level every LOCAL and a partner level every PARTNER iterations, `--keep KEEP`,
all of them in a temporary folder. It samples, every 0.05 s, the resident memory (VmRSS),
open descriptors and threads of the 4 original processes (the long-lived ones, found by
their pids at the start) with the number of resizes done so far (progress lines), and
reports:

  - files and bytes in each checkpoint location after the run (the global directory, each
    node's level directory), and the versions per level there, against KEEP;
  - RSS, descriptors and threads of the originals after WARM resizes and at the last
    resize: RSS within 10 % plus Open MPI's growth per process spawned in between
    (OMPI_KB_PER_SPAWNED), mappings of /dev/shm files not more, descriptors and threads
    equal (the smallest value seen at that resize count: a helper thread or a file being
    freed comes and goes);
  - what is left once the job ended: a process of the job (found by a marker in its
    environment), a file under /dev/shm or /tmp it had open or mapped (outside the run's
    own folder), Open MPI's session folder of the run;
  - the result check of the driver.

With --check the exit status is 1 when any of these grew or is left (the short variant in
the default suite, tests/apps/CMakeLists.txt: apps.endurance.short); without it the
figures are printed only (and --json FILE writes them).

Usage: session_endurance.py BUILD_DIR [CYCLES] [--seed S] [--keep K] [--every E]
       [--local L] [--partner P] [--warm W] [--n N] [--check] [--json FILE]
(OMPI_ALLOW_RUN_AS_ROOT etc. as for any manual run; docs/reference/blacs-dyn.md,
"Memory over many resizes").
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid


def status_field(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def fd_count(pid, work):
    """Open descriptors, those of the run's checkpoint files left out: the level files a
    process keeps mapped between checkpoints are a cache bounded by keep (levels.hpp,
    mapped_capacity), emptied when the world changes; counted apart (fd_checkpoint)."""
    n = ck = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                t = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if t.startswith(work):
                ck += 1
            else:
                n += 1
    except OSError:
        return None, None
    return n, ck


def shm_maps(pid):
    """Mappings of files under /dev/shm (MPI's and the library's shared segments, deleted
    ones included): a mapping of a departed process's segment keeps its pages resident."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            return sum(1 for line in f if " /dev/shm/" in line)
    except OSError:
        return None


# Open MPI's own growth per spawned process, kB: what a raw MPI_Comm_spawn + merge +
# disconnect loop grows by (42 kB, blacs_dyn.endurance, docs/reference/blacs-dyn.md,
# "Memory over many resizes"), in PMIx's and opal's per-job hash tables (heaptrack,
# docs/measurements/endurance.md); 64 with a margin. The RSS bound is 10 % of the baseline
# plus this for every process spawned in between: a leak of the library's own of 1 MB per
# resize exceeds it by far (shown there), Open MPI's kept peers of 2-4 newcomers do not.
OMPI_KB_PER_SPAWNED = 64


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


def marked(tag):
    """Processes whose environment holds the run's marker."""
    out = []
    needle = f"MALL_ENDURANCE_TAG={tag}".encode()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    out.append(int(d))
        except OSError:
            pass
    return out


def shared_paths(pid):
    """Files under /dev/shm and /tmp that `pid` has open or mapped."""
    paths = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                t = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if t.startswith(("/dev/shm/", "/tmp/")):
                paths.add(t.replace(" (deleted)", ""))
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith(("/dev/shm/", "/tmp/")):
                    p = parts[5].strip()
                    if not p.endswith("(deleted)"):
                        paths.add(p)
    except OSError:
        pass
    return paths


LEVEL = re.compile(r"^(?P<app>.+)\.(?P<kind>local|partner)\.r(?P<rank>\d+)-(?P<nprocs>\d+)\.v(?P<it>\d+)$")


def storage(global_dir, level_dir, app):
    """Files and bytes per checkpoint location, versions per level, left-over .tmp files."""
    out = {"global": {"files": 0, "bytes": 0, "tmp": 0}, "nodes": {}}
    for n in sorted(os.listdir(global_dir)) if os.path.isdir(global_dir) else []:
        p = os.path.join(global_dir, n)
        if not os.path.isfile(p):
            continue
        out["global"]["tmp" if n.endswith(".tmp") else "files"] += 1
        out["global"]["bytes"] += os.path.getsize(p)
    for node in sorted(os.listdir(level_dir)) if os.path.isdir(level_dir) else []:
        d = os.path.join(level_dir, node)
        if not os.path.isdir(d):
            continue
        e = {"files": 0, "bytes": 0, "tmp": 0, "versions": {"local": set(), "partner": set()}, "largest_version": 0}
        per_version = {}
        for n in os.listdir(d):
            p = os.path.join(d, n)
            size = os.path.getsize(p)
            e["bytes"] += size
            if n.endswith(".tmp"):
                e["tmp"] += 1
                continue
            e["files"] += 1
            m = LEVEL.match(n)
            if m and m["app"] == app:
                v = (int(m["nprocs"]), int(m["it"]))
                e["versions"][m["kind"]].add(v)
                per_version[v] = per_version.get(v, 0) + size
        e["largest_version"] = max(per_version.values(), default=0)
        e["versions"] = {k: sorted(v) for k, v in e["versions"].items()}
        out["nodes"][node] = e
    return out


def slope(xs, ys):
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    sxx = sum(x * x for x in xs)
    sxy = sum(x * y for x, y in zip(xs, ys))
    d = n * sxx - sx * sx
    return (n * sxy - sx * sy) / d if d else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("cycles", nargs="?", type=int, default=500)
    ap.add_argument("--seed", type=int, default=58)
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--local", type=int, default=2)
    ap.add_argument("--partner", type=int, default=5)
    ap.add_argument("--warm", type=int, default=50, help="the baseline: after this many resizes")
    ap.add_argument("--n", type=int, default=160)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--json")
    a = ap.parse_args()
    resizes = 2 * a.cycles
    warm = min(a.warm, max(2, resizes // 3))
    rng = random.Random(a.seed)
    steps = []
    for c in range(a.cycles):
        steps.append(f"{2 * c + 1}:expand:{rng.choice(['3x2', '2x3', '4x2'])}")
        steps.append(f"{2 * c + 2}:shrink:2x2")
    work = tempfile.mkdtemp(prefix="mall-endurance-")
    gdir, ldir = os.path.join(work, "global"), os.path.join(work, "levels")
    exe = os.path.join(a.build, "apps", "pdgemm_resizable")
    app = "pdgemm"
    cmd = [a.mpiexec, "--oversubscribe", "--bind-to", "none", "-n", "4", exe, "-n", str(a.n), "--nb", "16",
           "-i", str(resizes + 1), "-p", "scripted", "-s", ",".join(steps), "--resize-timeout", "600",
           "--checkpoint", gdir, "--keep", str(a.keep), "--checkpoint-local-dir", ldir]
    # 0: that checkpoint not taken (a comparison without it)
    for flag, every in (("--checkpoint-every", a.every), ("--checkpoint-local", a.local),
                        ("--checkpoint-partner", a.partner)):
        if every > 0:
            cmd += [flag, str(every)]
    tag = uuid.uuid4().hex
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_mpi_yield_when_idle="1", MALLEABLE_NODE_MAP="every=2", RESIZE_HISTORY="off",
               MALL_ENDURANCE_TAG=tag)
    logpath = os.path.join(work, "run.log")
    log = open(logpath, "w+")
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    originals = []
    while len(originals) < 4 and p.poll() is None:
        originals = sorted(children(p.pid))[:4]
        time.sleep(0.05)
    seen_paths = set()
    ticks = 0
    samples = []  # (resizes done, [(rss_kb, fds, threads) per original])
    while p.poll() is None:
        with open(logpath) as f:
            done = len(re.findall(r"remap after iter", f.read()))
        row = [(status_field(q, "VmRSS"), *fd_count(q, work), status_field(q, "Threads"), shm_maps(q))
               for q in originals]
        if all(None not in r for r in row):
            samples.append((done, row))
        ticks += 1
        if ticks % 8 == 0:  # every 0.4 s: scanning every process's environment costs
            for q in marked(tag):
                seen_paths |= shared_paths(q)
        if os.environ.get("ENDURANCE_TRACE_THREADS") and originals:
            try:
                names = sorted(open(f"/proc/{originals[0]}/task/{t}/comm").read().strip()
                               for t in os.listdir(f"/proc/{originals[0]}/task"))
                print(f"trace: {done} {names}", file=sys.stderr)
            except OSError:
                pass
        time.sleep(0.05)
    seconds = time.time() - t0
    log.close()
    with open(logpath) as f:
        text = f.read()
    result_ok = re.search(r"result check: .*OK", text) is not None and p.returncode == 0
    time.sleep(1.0)  # the launcher's last cleanup
    left_procs = marked(tag)
    # (Open MPI's top folder /tmp/ompi.<host>.<uid> is every job's of the user; the run's
    # own folder in it, pid.<mpiexec pid>, is checked below.)
    # The program and the libraries it maps live in the build folder, which may itself be
    # under /tmp (a clone there): they are not the run's leftovers.
    build_dir = os.path.realpath(a.build) + os.sep
    left_paths = sorted(x for x in seen_paths if os.path.exists(x) and not x.startswith(work)
                        and not os.path.realpath(x).startswith(build_dir)
                        and not re.fullmatch(r"/tmp/ompi\.[^/]+", x))
    session_dirs = [d for d in (os.path.join("/tmp", e, f"pid.{p.pid}") for e in os.listdir("/tmp")
                                if e.startswith("ompi.")) if os.path.exists(d)]
    st = storage(gdir, ldir, app)

    def at(count, k):
        """Field k per original over the 4 resize counts from `count` on (RSS: the largest,
        descriptors and threads: the smallest seen; a checkpoint's or a spawn's helper
        thread comes and goes within a resize)."""
        rows = [r for d, r in samples if count <= d < count + 4]
        pick = max if k == 0 else min
        return [pick(r[i][k] for r in rows) for i in range(len(originals))] if rows else None

    # Compared over the same stretch of cycles: 4 resizes from an even count (the job on 2x2
    # again) from WARM on, and the last such stretch before the job's end (the samples after
    # the last resize see the processes tear down).
    counts = sorted({d for d, _ in samples if d % 2 == 0 and d > 0})
    base_count = next((c for c in counts if c >= warm), None)
    last_count = next((c for c in reversed(counts) if c + 4 <= resizes), None)
    fields = ["rss_kb", "fds", "fds_checkpoint", "threads", "shm_maps"]
    base = {k: at(base_count, i) for i, k in enumerate(fields)} if base_count is not None else {}
    end = {k: at(last_count, i) for i, k in enumerate(fields)} if last_count is not None else {}
    ck_fds_most = max((x[2] for _, r in samples for x in r), default=0)
    # Growth per resize: least-squares slope of the originals' largest RSS (the last sample
    # at each resize count) from the baseline on, in MB.
    last_max = {}
    for d, r in samples:
        last_max[d] = max(x[0] for x in r) / 1024.0
    xs = [c for c in sorted(last_max) if base_count is not None and c >= base_count]
    growth = slope(xs, [last_max[c] for c in xs]) if len(xs) > 2 else float("nan")
    # Processes spawned between the two stretches compared (steps are 1-based resize counts).
    newcomers = {"3x2": 2, "2x3": 2, "4x2": 4}
    spawned = 0
    if base_count is not None and last_count is not None:
        for st_ in steps:
            n_, kind_, grid_ = st_.split(":")
            if kind_ == "expand" and base_count < int(n_) <= last_count + 4:
                spawned += newcomers[grid_]
    rss_allow = [0.10 * b + OMPI_KB_PER_SPAWNED * spawned for b in base["rss_kb"]] if base else []
    faults = []
    if not result_ok:
        faults.append(f"the run failed (exit {p.returncode}) or its result check is not OK; log {logpath}")
    done_all = len(re.findall(r"remap after iter", text))
    if done_all < resizes:
        faults.append(f"{done_all} resizes done, {resizes} scheduled")
    # The mapped level files: at most keep x (1 + the copies a process keeps); 8 bounds
    # the copies from the largest node here (4x2 on nodes of 2).
    if a.keep > 0 and ck_fds_most > a.keep * (1 + 8):
        faults.append(f"up to {ck_fds_most} descriptors on checkpoint files, more than keep allows")
    g = st["global"]
    if a.keep > 0 and g["files"] > a.keep:
        faults.append(f"global directory: {g['files']} files, keep is {a.keep}")
    if g["tmp"]:
        faults.append(f"global directory: {g['tmp']} .tmp files left")
    for node, e in st["nodes"].items():
        for kind, vs in e["versions"].items():
            if a.keep > 0 and len(vs) > a.keep:
                faults.append(f"levels on {node}: {len(vs)} {kind} versions {vs}, keep is {a.keep}")
        if a.keep > 0 and e["bytes"] > 2 * a.keep * e["largest_version"]:
            faults.append(f"levels on {node}: {e['bytes']} bytes, more than keep x (local + partner) versions")
        if e["tmp"]:
            faults.append(f"levels on {node}: {e['tmp']} .tmp files left")
    if base and end:
        for i in range(len(originals)):
            if end["rss_kb"][i] - base["rss_kb"][i] > rss_allow[i]:
                faults.append(f"original {i}: RSS {base['rss_kb'][i]} -> {end['rss_kb'][i]} kB (more than 10 % "
                              f"+ {OMPI_KB_PER_SPAWNED} kB x {spawned} spawned = {rss_allow[i]:.0f} kB)")
            if end["shm_maps"][i] > base["shm_maps"][i]:
                faults.append(f"original {i}: mappings of /dev/shm files {base['shm_maps'][i]} -> {end['shm_maps'][i]}")
            if end["fds"][i] != base["fds"][i]:
                faults.append(f"original {i}: descriptors {base['fds'][i]} -> {end['fds'][i]}")
            if end["threads"][i] != base["threads"][i]:
                faults.append(f"original {i}: threads {base['threads'][i]} -> {end['threads'][i]}")
    else:
        faults.append("no samples of the original processes")
    if left_procs:
        faults.append(f"processes left: {left_procs}")
    if left_paths:
        faults.append(f"files left under /dev/shm or /tmp: {left_paths}")
    if session_dirs:
        faults.append(f"Open MPI session folders left: {session_dirs}")
    report = {"resizes": resizes, "seconds": round(seconds, 1), "seed": a.seed, "keep": a.keep,
              "every": a.every, "local": a.local, "partner": a.partner, "n": a.n,
              "baseline_after_resizes": base_count, "last_resizes": last_count, "baseline": base, "end": end,
              "storage": st, "left_processes": left_procs, "left_paths": left_paths,
              "rss_growth_mb_per_resize": growth, "spawned_between": spawned, "rss_allowed_kb": rss_allow, "fds_checkpoint_most": ck_fds_most, "result_ok": result_ok, "faults": faults}
    print(f"session endurance: {resizes} resizes in {seconds:.0f} s (pdgemm_resizable N={a.n}, 2x2 <-> "
          f"3x2/2x3/4x2 seed {a.seed}; global every {a.every}, local every {a.local}, partner every {a.partner}, "
          f"keep {a.keep})")
    print(f"  global: {g['files']} files, {g['bytes']} bytes, {g['tmp']} .tmp")
    for node, e in st["nodes"].items():
        print(f"  levels {node}: {e['files']} files, {e['bytes']} bytes, {e['tmp']} .tmp, versions local "
              f"{len(e['versions']['local'])} partner {len(e['versions']['partner'])}")
    if base and end:
        for k in fields:
            print(f"  {k} of the originals after {base_count} resizes {base[k]} -> after {last_count} {end[k]}")
        print(f"  growth of the largest RSS: {growth:.4f} MB per resize (from resize {base_count} on); allowed "
              f"10 % + {OMPI_KB_PER_SPAWNED} kB x {spawned} spawned: {[round(x) for x in rss_allow]} kB")
    print(f"  left: {len(left_procs)} processes, {len(left_paths)} files under /dev/shm or /tmp, "
          f"{len(session_dirs)} Open MPI session folders; result check {'OK' if result_ok else 'FAILED'}")
    for f in faults:
        print(f"  FAULT: {f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    if not faults or not a.check:
        shutil.rmtree(work, ignore_errors=True)
    if a.check:
        print("PASS: endurance" if not faults else "FAILED: endurance")
        return 1 if faults else 0
    return 0 if result_ok else 1


if __name__ == "__main__":
    sys.exit(main())
