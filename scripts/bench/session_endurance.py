#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Session endurance: the footprint of malleable jobs over many resizes with every
checkpoint location in use. A seeded run of jobs that share one count of RESIZES, each on 4
processes (two emulated nodes of 2, MALLEABLE_NODE_MAP=every=2) resized 2x2 -> a seeded
3x2, 2x3 or 4x2 and back, with a global checkpoint every EVERY iterations, a local level
every LOCAL and a partner level every PARTNER iterations, `--keep KEEP`, each job in a
temporary folder of its own:

  - blocking: `pdgemm_resizable` by spawn, blocking, the rest of each stretch between two
    faults (its 4 originals' footprint is sampled every 0.05 s);
  - background: the same with `--background wait` (BACKGROUND resizes a stretch);
  - user: the porting guide's program `porting_malleable_cxx` (a user's own code; USER),
    under `malleable-run` as the others; it takes no checkpoint, so a spawn that
    hangs of itself (Open MPI 4.1's PMIx hang) ends it with the watchdog's message, and
    the job is then run again once from its start, counted apart as the fallback's
    relaunches are;
  - restart: `pdgemm_resizable --mechanism restart` under `malleable-run` (RESTART);
  - stall: under malleable-run, the last newcomer of its expansion stops before MPI_Init
    (BLACS_DYN_FAULT=stall-newcomer-in-init): the spawn fallback's deadline (DEADLINE s)
    passes and the job is relaunched at the new size, once the run has made STALL_EVERY
    more resizes;
  - kill: the same with the newcomer killed (kill-newcomer-in-init), every KILL_EVERY.

It reports and, with --check, fails (exit 1) on:
  - files and bytes in each job's checkpoint locations after it (the global directory,
    each node's level directory) and the versions per level there, against KEEP;
  - a blocking job's originals' RSS, descriptors and threads after WARM resizes (at most a
    third of its resizes) and at its last resizes: RSS within 10 % plus Open MPI's growth
    per process spawned in between (OMPI_KB_PER_SPAWNED; with --refresh N, 10 % alone, at
    the end and at its peak in between), mappings of /dev/shm files not more than the most
    seen up to the baseline (without a refresh; with one they are reported: a relaunch
    changes which segments a process maps, and their pages are in the RSS), descriptors and
    threads equal (the smallest value seen where the processes were between two resizes:
    a helper thread or a file being freed comes and goes within a resize); with a refresh
    the originals followed are the first 4 processes of the launch running, and their
    descriptors at the end not more (a later launch's processes); a launch leaving is not
    sampled (LEAVE_GUARD_S);
  - what is left once the run ended: a process of the run (found by a marker in its
    environment), a file under /dev/shm or /tmp it had open or mapped (outside the run's
    own folder), Open MPI's session folder of any of its mpiexec;
  - each job's exit status, result check, resizes done (none FAILED or CANCELLED) and
    launches (malleable-run: the processes of each launch);
  - a resize of a driver's job (blocking, background) whose record (the job's --json)
    has no time of the heap trim (other_phases.heap_trim_s, resize/src/parts/heap_trim.hpp)
    while it is on (--heap-trim on, the default; off sets RESIZE_HEAP_TRIM=off: the records
    must then have none). The trim's times are reported (median and largest).

The short variant runs in the default suite (tests/apps/CMakeLists.txt: apps.endurance.short);
without --check the figures are printed only (and --json FILE writes them).

Usage: session_endurance.py BUILD_DIR [RESIZES] [--seed S] [--keep K] [--every E]
       [--local L] [--partner P] [--warm W] [--stall-every N] [--kill-every N]
       [--background N] [--user N] [--restart N] [--deadline S] [--n N] [--heap-trim on|off] [--refresh N]
       [--check] [--json FILE]
(OMPI_ALLOW_RUN_AS_ROOT etc. as for any manual run; docs/measurements/endurance.md).

Subcommands: rss-growth RUN.json... (a run's per-process RSS growth) and smaps COMM OUT (one
process's /proc/PID/smaps by kind, sampled); their notes in DOC_RSS_GROWTH and DOC_SMAPS below.
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
        for t in fd_targets(pid):
            if t.startswith(work):
                ck += 1
            else:
                n += 1
    except OSError:
        return None, None
    return n, ck


def fd_targets(pid):
    """What each open descriptor of `pid` points to (/proc/PID/fd; one closed meanwhile is
    passed over). OSError when the process is gone."""
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            yield os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue


def thread_names(pid):
    """The names of the process's threads (/proc/PID/task/TID/comm), sorted: the library
    names its own ("mall-prefault", "mall-watchdog", ...), so a change in the count says
    whose thread it was."""
    try:
        out = []
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/comm") as f:
                out.append(f.read().strip())
        return tuple(sorted(out))
    except OSError:
        return None


def shm_maps(pid):
    """Mappings of files under /dev/shm (MPI's and the library's shared segments): all, and
    those of deleted files. A mapping of a departed process's segment (deleted when it left)
    keeps its pages resident: the leak this counts. The others are the segments of live
    processes (Open MPI's one per process of the launch on the node, the node windows of the
    job's processes), bounded by the job's processes."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            lines = [line for line in f if " /dev/shm/" in line]
        return len(lines), sum(1 for line in lines if line.rstrip().endswith("(deleted)"))
    except OSError:
        return None


# Open MPI's own growth per spawned process, kB: what a raw MPI_Comm_spawn + merge +
# disconnect loop grows by (42 kB, blacs_dyn.endurance, docs/reference/blacs-dyn.md,
# "Memory over many resizes"), in PMIx's and opal's per-job hash tables (heaptrack,
# docs/measurements/endurance.md); 64 with a margin. The RSS bound is 10 % of the baseline
# plus this for every process spawned in between: a leak of the library's own of 1 MB per
# resize exceeds it by far (shown there), Open MPI's kept peers of 2-4 newcomers do not.
OMPI_KB_PER_SPAWNED = 64
# Samples of a launch taken this long before it was seen leaving are left out of the
# smallest descriptors and threads (Watch.launch): its processes may be closing them.
LEAVE_GUARD_S = 0.3
# The fewest samples the smallest descriptors and threads are taken over (footprint's span).
MIN_SAMPLES = 12


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


def alive(pid):
    """Whether process `pid` still runs (a zombie, waiting for its parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def session_folders():
    """Open MPI's session folders of mpiexecs, /tmp/ompi.<host>.<uid>/pid.<pid>."""
    out = []
    for e in os.listdir("/tmp"):
        if e.startswith("ompi."):
            try:
                out += [os.path.join("/tmp", e, d) for d in os.listdir(os.path.join("/tmp", e)) if d.startswith("pid.")]
            except OSError:
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
        for t in fd_targets(pid):
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


# Processes an expansion to each grid spawns from 2x2.
NEWCOMERS = {"3x2": 2, "2x3": 2, "4x2": 4}


def plan(resizes, stall_every, kill_every, background, user, restart, rng):
    """The run's segments, each a job that starts and ends on 2x2 (expand/shrink pairs), in
    the order run: between two faults a long blocking driver job (the rest of the window),
    a background one (`background` resizes), the user program (`user`) and a job resized by
    restart (`restart`); a job whose expansion a stalled newcomer turns into the spawn
    fallback once the run has made `stall_every` more resizes, one whose newcomer is killed
    every `kill_every` (the kill first when both are due). Seeded by `rng` (the grids)."""
    segs, r = [], 0
    next_stall, next_kill = stall_every or None, kill_every or None

    def cycles(n):
        return [rng.choice(["3x2", "2x3", "4x2"]) for _ in range(n // 2)]

    while r < resizes:
        due = [(k, x) for k, x in (("kill", next_kill), ("stall", next_stall)) if x is not None and r + 2 > x]
        if due:
            kind = due[0][0]
            segs.append({"kind": kind, "grids": [rng.choice(["3x2", "2x3"])]})
            if kind == "kill":
                next_kill += kill_every
            else:
                next_stall += stall_every
            r += 2
            continue
        bound = min(x for x in (next_stall, next_kill, resizes) if x is not None)
        room = max(2, (bound - r) // 2 * 2)
        side = [(k, n) for k, n in (("background", background), ("user", user), ("restart", restart)) if n > 0]
        first = room - sum(n for _, n in side)
        window = [("blocking", first)] + side if first >= 2 else []
        if not window:  # a short window: the side jobs in turn, as many as fit
            left = room
            for k, n in side + [("blocking", 2)]:
                if n <= left:
                    window.append((k, n))
                    left -= n
        for kind, n in window:
            segs.append({"kind": kind, "grids": cycles(n)})
            r += n
    return segs


def refreshes_expected(grids, after):
    """The expansions of a job's schedule carried out by restart under RESIZE_REFRESH_AFTER=
    `after` (resize/src/checkpoint/refresh.hpp): one that would take the launch past `after`
    spawned processes; the relaunch starts the count again."""
    spawned, n = 0, 0
    for g in grids:
        if after > 0 and spawned + NEWCOMERS[g] > after:
            n, spawned = n + 1, 0
        else:
            spawned += NEWCOMERS[g]
    return n


def steps_of(grids, stride=2):
    """`ITER:expand:GRID,ITER+1:shrink:2x2,...` from iteration 1; with stride 3 a remap
    point between the two (where a background expansion completes: a shrink decided while
    it is still under way supersedes and cancels it, which is no resize)."""
    out = []
    for c, g in enumerate(grids):
        out.append(f"{1 + stride * c}:expand:{g}")
        out.append(f"{1 + stride * c + stride - 1}:shrink:2x2")
    return out


def comm(pid):
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return None


def launcher_of(pid):
    """The first mpiexec under `pid` (malleable-run's, or `pid` itself); `pid` if none yet."""
    todo = [pid]
    while todo:
        q = todo.pop(0)
        if comm(q) in ("mpiexec", "mpirun", "orterun"):
            return q
        todo += children(q)
    return -1


class Watch:
    """Polls the run: the processes carrying its marker (their /dev/shm and /tmp files, the
    mpiexec pids), and with `originals` the footprint of those processes."""

    def __init__(self, tag):
        self.tag, self.seen_paths, self.mpiexecs = tag, set(), set()

    def scan(self):
        for q in marked(self.tag):
            self.seen_paths |= shared_paths(q)
            try:
                if open(f"/proc/{q}/comm").read().strip() in ("mpiexec", "mpirun", "orterun"):
                    self.mpiexecs.add(q)
            except OSError:
                pass

    def launch(self, cmd, env, logpath, measure, work):
        """Runs `cmd`; with `measure` samples the 4 originals: the mpiexec's first 4
        children. When one of them is gone (a relaunch by malleable-run: a refresh, or the
        fallback after a spawn that hung; a process that left in a shrink), the first 4 of
        the launch running then are taken. A sample's resize count is the resizes made in
        place (the progress lines) plus the relaunches so far."""
        log = open(logpath, "w+")
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        self.mpiexecs.add(p.pid)
        originals, samples, ticks = [], [], 0
        kept_until = 0  # samples before this index are of launches already left
        while p.poll() is None:
            if measure and len(originals) < 4:
                originals = sorted(q for q in children(launcher_of(p.pid)) if comm(q) == "pdgemm_resizable"[:15])[:4]
            elif measure:
                with open(logpath) as f:
                    logged = f.read()
                starts = [m.end() for m in re.finditer(r"^malleable-run: launch \d+:", logged, re.M)]
                done = len(re.findall(r"remap after iter", logged)) + max(0, len(starts) - 1)
                # Not sampled: a launch leaving for a restart (from rank 0's first line on
                # it: a refresh's, or the restart's own; its processes then secure their state,
                # finalize and close their files), or a relaunch before its restart read its
                # checkpoint.
                tail = logged[starts[-1]:] if starts else logged
                leaving = "] refresh after iteration" in tail or "] resize by restart after iteration" in tail
                settled = not (leaving or (len(starts) > 1 and "] restart from " not in tail))
                gone = settled and any(status_field(q, "VmRSS") is None for q in originals)
                if leaving or gone:
                    # Rank 0's line reaches the log through mpiexec, after the other
                    # processes may have begun to leave and close their files: the samples
                    # of this launch from the last LEAVE_GUARD_S before it was seen are
                    # marked, and left out of the smallest descriptors and threads.
                    now = time.time()
                    for x in samples[kept_until:]:
                        x[3] = x[3] or x[2] >= now - LEAVE_GUARD_S
                    kept_until = len(samples)
                row = [(status_field(q, "VmRSS"), *fd_count(q, work), status_field(q, "Threads"),
                        *(shm_maps(q) or (None, None)), thread_names(q)) for q in originals] if settled else [(None,)]
                if settled and all(None not in r for r in row):
                    samples.append([done, row, time.time(), False])
                elif gone:
                    originals = []
            ticks += 1
            if ticks % 8 == 0:  # every 0.4 s: scanning every process's environment costs
                self.scan()
            time.sleep(0.05)
        log.close()
        with open(logpath) as f:
            text = f.read()
        return {"rc": p.returncode, "text": text, "seconds": time.time() - t0,
                "samples": [(d, r) for d, r, _, _ in samples],
                "settled_samples": [(d, r) for d, r, _, near in samples if not near],
                "originals": min((len(r) for _, r, _, _ in samples), default=0)}


def footprint(samples, steps, resizes, warm, n_originals, refresh=0, settled=None):
    """The originals' RSS, descriptors, threads and /dev/shm mappings after `warm` resizes
    and over the last stretch (a job's blocking driver run), and the faults against the bound.
    With `refresh` (RESIZE_REFRESH_AFTER of the job: its processes are started anew after
    that many spawned ones) the RSS bound is 10 % alone, at the end and at its largest
    over every stretch in between (the peak before each refresh). `settled`: the samples
    the smallest descriptors and threads are taken over (those of a launch not yet leaving;
    all by default)."""
    settled = samples if settled is None else settled
    fields = ["rss_kb", "fds", "fds_checkpoint", "threads", "shm_maps", "shm_maps_deleted"]

    def quiet(r):
        """No helper thread of the library's in any original (no resize under way there)."""
        return all(not any(n.startswith("mall-") for n in x[6]) for x in r)

    def span(count, k):
        """The resize counts field k is taken over: the 4 from `count` on, widened (the
        baseline's forwards, the end's backwards, never into the other's 4) until it holds a
        sample; for the smallest descriptors and threads (k 1, 3, 4) until it holds
        MIN_SAMPLES samples and one with no helper thread of the library's. Between two
        resizes a driver computes for a few ms only, so nearly every sample falls within a
        resize, where the watchdog's thread ("mall-watchdog") and a spawn's come and go; a
        refresh's relaunch (not sampled) leaves fewer still. A helper thread that never
        ends leaves no such sample: the span then runs to its bound and the count shows it."""
        lo, hi = count, count + 4

        def enough():
            rows = [r for d, r in (samples if k == 0 else settled) if lo <= d < hi]
            if k not in (1, 3, 4, 5):
                return len(rows) > 0
            return len(rows) >= MIN_SAMPLES and any(quiet(r) for r in rows)

        while not enough():
            if count == base_count and hi < last_count:
                hi += 1
            elif count == last_count and lo > base_count + 4:
                lo -= 1
            else:
                break
        return lo, hi

    def at(count, k):
        """Field k per original over its span (RSS: the largest, descriptors and threads: the
        smallest seen; a checkpoint's or a spawn's helper thread comes and goes within a
        resize)."""
        lo, hi = span(count, k)
        rows = [r for d, r in (samples if k == 0 else settled) if lo <= d < hi]
        pick = max if k == 0 else min
        return [pick(r[i][k] for r in rows) for i in range(n_originals)] if rows else None

    def names_at(count, i):
        """The thread names of original i in its sample of fewest threads over the span."""
        lo, hi = span(count, 3)
        rows = [r[i] for d, r in settled if lo <= d < hi]
        return min(rows, key=lambda x: x[3])[6] if rows else ()

    # Compared over the same stretch of cycles: 4 resizes from an even count (the job on 2x2
    # again) from WARM on, and the last such stretch before the job's end (the samples after
    # the last resize see the processes tear down).
    counts = sorted({d for d, _ in samples if d % 2 == 0 and d > 0})
    base_count = next((c for c in counts if c >= warm), None)
    # The last stretch: from the last even count with 4 resizes after it (its samples, or the
    # nearest before it: a relaunch is not sampled).
    last_count = (resizes - 4) // 2 * 2 if base_count is not None and (resizes - 4) // 2 * 2 > base_count else None
    out = {"baseline_after_resizes": base_count, "last_resizes": last_count, "faults": []}
    if n_originals < 1 or base_count is None or last_count is None or last_count <= base_count:
        out["faults"].append("no samples of the original processes")
        return out
    base = {k: at(base_count, i) for i, k in enumerate(fields)}
    end = {k: at(last_count, i) for i, k in enumerate(fields)}
    for name, c in (("baseline", base_count), ("last", last_count)):
        lo, hi = span(c, 3)
        rows = [r for d, r in settled if lo <= d < hi]
        if not any(quiet(r) for r in rows):
            out["faults"].append(f"no sample between two resizes in the {name} stretch (resizes {lo}-{hi - 1}: "
                                 f"{len(rows)} samples, each with a helper thread of a resize): descriptors and "
                                 "threads not comparable (longer iterations: --n)")
    # The /dev/shm mappings: the most seen up to the baseline's stretch. A process keeps the
    # node-window segments of the last expansion's departed newcomers mapped until it maps
    # a new one (redist/src/exec/peer_retention.hpp), so the count moves between 6 and 7
    # with the grids of the last resizes; a leak keeps rising (9 -> 16 with that fix
    # reverted, docs/measurements/endurance.md). Those of deleted files (departed processes'
    # segments) are reported beside. With a refresh they are reported, not compared: each
    # relaunch changes which segments a process maps (Open MPI's one per process of the
    # launch, 6 or 8 after a relaunch at that size, and the node windows of its grid), and
    # ends every mapping of the launch before; the pages they keep are in the RSS, which is
    # then compared at its peak.
    for k, f in ((4, "shm_maps"), (5, "shm_maps_deleted")):
        base[f] = [max(r[i][k] for d, r in samples if d < base_count + 4) for i in range(n_originals)]
    last_max = {}
    for d, r in samples:
        last_max[d] = max(x[0] for x in r) / 1024.0
    xs = [c for c in sorted(last_max) if c >= base_count]
    growth = slope(xs, [last_max[c] for c in xs]) if len(xs) > 2 else float("nan")
    # Processes spawned between the two stretches compared (steps are 1-based resize counts).
    spawned = 0
    for k, st_ in enumerate(steps):
        _, kind_, grid_ = st_.split(":")
        if kind_ == "expand" and base_count < k + 1 <= last_count + 4:
            spawned += NEWCOMERS[grid_]
    per_spawned = 0 if refresh else OMPI_KB_PER_SPAWNED
    allow = [0.10 * b + per_spawned * spawned for b in base["rss_kb"]]
    # The largest RSS of each original over the stretches from the baseline's to the last's.
    peak = [max(r[i][0] for d, r in samples if base_count <= d < last_count + 4) for i in range(n_originals)]
    for i in range(n_originals):
        if end["rss_kb"][i] - base["rss_kb"][i] > allow[i]:
            out["faults"].append(f"original {i}: RSS {base['rss_kb'][i]} -> {end['rss_kb'][i]} kB (more than 10 % "
                                 f"+ {per_spawned} kB x {spawned} spawned = {allow[i]:.0f} kB)")
        if refresh and peak[i] - base["rss_kb"][i] > allow[i]:
            out["faults"].append(f"original {i}: RSS {base['rss_kb'][i]} -> at most {peak[i]} kB in between "
                                 f"(more than 10 % = {allow[i]:.0f} kB)")
        if not refresh and end["shm_maps"][i] > base["shm_maps"][i]:
            out["faults"].append(f"original {i}: mappings of /dev/shm files {base['shm_maps'][i]} -> {end['shm_maps'][i]}")
        # Without a refresh the same processes throughout: any change is theirs. With one the
        # last stretch's are processes of a later launch: fewer is no leak.
        if end["fds"][i] > base["fds"][i] or (not refresh and end["fds"][i] != base["fds"][i]):
            out["faults"].append(f"original {i}: descriptors {base['fds'][i]} -> {end['fds'][i]}")
        if end["threads"][i] != base["threads"][i]:
            out["faults"].append(f"original {i}: threads {base['threads'][i]} -> {end['threads'][i]} "
                                 f"({', '.join(names_at(base_count, i))} -> {', '.join(names_at(last_count, i))})")
    out.update({"baseline": base, "end": end, "rss_peak_kb": peak, "rss_growth_mb_per_resize": growth,
                "spawned_between": spawned, "refresh_after": refresh,
                "rss_allowed_kb": allow, "fds_checkpoint_most": max((x[2] for _, r in samples for x in r), default=0)})
    return out


def storage_faults(st, keep, where):
    faults = []
    g = st["global"]
    if keep > 0 and g["files"] > keep:
        faults.append(f"{where}global directory: {g['files']} files, keep is {keep}")
    if g["tmp"]:
        faults.append(f"{where}global directory: {g['tmp']} .tmp files left")
    for node, e in st["nodes"].items():
        for kind, vs in e["versions"].items():
            if keep > 0 and len(vs) > keep:
                faults.append(f"{where}levels on {node}: {len(vs)} {kind} versions {vs}, keep is {keep}")
        if keep > 0 and e["bytes"] > 2 * keep * e["largest_version"]:
            faults.append(f"{where}levels on {node}: {e['bytes']} bytes, more than keep x (local + partner) versions")
        if e["tmp"]:
            faults.append(f"{where}levels on {node}: {e['tmp']} .tmp files left")
    return faults


# A user job's log after a spawn that hung of itself: the watchdog's (the resize's or
# blacs-dyn's join) deadline passed in the expansion's spawn.
SPAWN_HUNG = re.compile(r"did not finish within.*|phase '[^']*spawn", re.I)


def trim_summary(times):
    xs = sorted(times)
    return {"count": len(xs), "median": xs[len(xs) // 2] if xs else None, "largest": xs[-1] if xs else None}


def heap_trim_faults(path, on, times):
    """The heap trim's time in every successful resize record of a driver's run report
    (`path`, its --json; the last launch's under malleable-run): present when `on`, null
    otherwise. Appends the times found to `times`."""
    try:
        with open(path) as f:
            recs = [r for r in json.load(f).get("resizes", []) if r.get("ok")]
    except (OSError, ValueError) as e:
        return [f"no run report {path}: {e}"]
    t = [r.get("other_phases", {}).get("heap_trim_s") for r in recs]
    times += [x for x in t if x is not None]
    missing = sum(1 for x in t if x is None) if on else 0
    present = sum(1 for x in t if x is not None) if not on else 0
    out = []
    if missing:
        out.append(f"{missing} of {len(recs)} resize records without the heap trim's time (RESIZE_HEAP_TRIM on)")
    if present:
        out.append(f"{present} of {len(recs)} resize records with a heap trim although RESIZE_HEAP_TRIM=off")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("resizes", nargs="?", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=58)
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--local", type=int, default=2)
    ap.add_argument("--partner", type=int, default=5)
    ap.add_argument("--warm", type=int, default=50, help="a blocking job's baseline: after this many of its resizes")
    ap.add_argument("--stall-every", type=int, default=100, help="resizes of the run between two stalled newcomers (0: none)")
    ap.add_argument("--kill-every", type=int, default=250, help="resizes of the run between two killed newcomers (0: none)")
    ap.add_argument("--background", type=int, default=10, help="resizes of the background job of each stretch (0: none)")
    ap.add_argument("--user", type=int, default=6, help="resizes of the user program of each stretch (at most 6; 0: none)")
    ap.add_argument("--restart", type=int, default=2, help="resizes by restart of each stretch (0: none)")
    ap.add_argument("--deadline", type=int, default=5, help="the spawn deadline of a job with a stalled newcomer, s")
    ap.add_argument("--n", type=int, default=160)
    ap.add_argument("--heap-trim", choices=["on", "off"], default="on",
                    help="RESIZE_HEAP_TRIM of every job: the free heap given back after each resize (default on)")
    ap.add_argument("--refresh", type=int, default=0,
                    help="RESIZE_REFRESH_AFTER of every job: an expansion that would take a launch past this many "
                         "spawned processes is carried out by restart (0: none, the default); a blocking job's RSS "
                         "bound is then 10 %% alone, at the end and at its largest in between")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.user > 6 or a.user % 2 or a.background % 2 or a.restart % 2:
        ap.error("--user, --background, --restart: even numbers of resizes, --user at most 6")
    rng = random.Random(a.seed)
    segs = plan(a.resizes, a.stall_every, a.kill_every, a.background, a.user, a.restart, rng)
    work = tempfile.mkdtemp(prefix="mall-endurance-")
    pdgemm = os.path.join(a.build, "apps", "pdgemm_resizable")
    user_exe = os.path.join(a.build, "apps", "porting_malleable_cxx")
    runner = os.path.join(a.build, "bin", "malleable-run")
    tag = uuid.uuid4().hex
    base_env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1",
                    OMPI_MCA_mpi_yield_when_idle="1", MALLEABLE_NODE_MAP="every=2", RESIZE_HISTORY="off",
                    MALL_ENDURANCE_TAG=tag, RESIZE_HEAP_TRIM=a.heap_trim,
                    RESIZE_REFRESH_AFTER=str(a.refresh) if a.refresh > 0 else "off")
    launcher = f"{a.mpiexec} --oversubscribe --bind-to none"
    watch = Watch(tag)
    # Open MPI's session folders there before the run (a killed mpiexec of another run leaves
    # its pid.<pid>; with pid_max 32768 one of this run's pids may be that pid again): only a
    # folder that was not there is this run's.
    folders_before = set(session_folders())
    faults, rows, done_total, t_all, hangs, trims, refreshes = [], [], 0, time.time(), 0, [], 0
    for k, sg in enumerate(segs):
        kind, grids = sg["kind"], sg["grids"]
        resizes = 2 * len(grids)
        d = os.path.join(work, f"{k:03d}-{kind}")
        gdir, ldir = os.path.join(d, "global"), os.path.join(d, "levels")
        os.makedirs(d)
        env = dict(base_env)
        ck = ["--checkpoint", gdir, "--keep", str(a.keep), "--checkpoint-local-dir", ldir]
        # 0: that checkpoint not taken (a comparison without it)
        for flag, every in (("--checkpoint-every", a.every), ("--checkpoint-local", a.local),
                            ("--checkpoint-partner", a.partner)):
            if every > 0:
                ck += [flag, str(every)]
        steps = steps_of(grids, 3 if kind == "background" else 2)
        iters = int(steps[-1].split(":")[0]) + 1
        report_json = os.path.join(d, "report.json")
        job = [pdgemm, "-n", str(a.n), "--nb", "16", "-i", str(iters), "-p", "scripted", "-s", ",".join(steps),
               "--resize-timeout", "600", "--json", report_json] + ck
        # The driver's jobs run under malleable-run, as a user runs them: an expansion whose
        # spawn hangs of itself (Open MPI 4.1's PMIx hang, docs/guide/checkpoint.md) is
        # relaunched by the spawn fallback, counted apart. launches: the processes of each
        # launch expected (None: any, a relaunch at the target size after a hang allowed).
        launches = None
        env["MALLEABLE_MPIEXEC"] = launcher
        if kind == "blocking":
            cmd = [runner, "-n", "4", "--"] + job
        elif kind == "background":
            # (mode continue goes on computing until the spawn is done: with iterations of
            # a few ms the shrink after it would often cancel it instead)
            cmd = [runner, "-n", "4", "--"] + job + ["--background", "wait"]
        elif kind == "user":
            cmd = [runner, "-n", "4", "--", user_exe, ",".join(steps)]
        else:
            if kind == "restart":
                job += ["--mechanism", "restart"]
                launches = [4] + [n for g in grids for n in (4 + NEWCOMERS[g], 4)]
            else:
                env["BLACS_DYN_FAULT"] = "stall-newcomer-in-init" if kind == "stall" else "kill-newcomer-in-init"
                env["RESIZE_SPAWN_DEADLINE"] = str(a.deadline)
                launches = [4, 4 + NEWCOMERS[grids[0]]]
            cmd = [runner, "-n", "4", "--"] + job
        row_hangs = 0
        r = watch.launch(cmd, env, os.path.join(d, "run.log"), kind == "blocking", work)
        if kind == "user" and r["rc"] != 0 and SPAWN_HUNG.search(r["text"]):
            # No checkpoint to relaunch from: the user program runs again from its start
            # (its first log kept as run-hung.log), counted apart as a relaunch.
            os.replace(os.path.join(d, "run.log"), os.path.join(d, "run-hung.log"))
            r = watch.launch(cmd, env, os.path.join(d, "run.log"), False, work)
            hangs += 1
            row_hangs = 1
        text, where = r["text"], f"job {k} ({kind}): "
        # Relaunches by the refresh (RESIZE_REFRESH_AFTER), each one announced by rank 0.
        row_refreshes = len(re.findall(r"^\[\w+\] refresh after iteration \d+:", text, re.M))
        refreshes += row_refreshes
        ok = r["rc"] == 0 and (re.search(r"porting_malleable_cxx: .*: OK", text) if kind == "user"
                               else re.search(r"result check: .*OK", text)) is not None
        if not ok:
            faults.append(f"{where}exit {r['rc']} or its result check is not OK; log {d}/run.log")
        # The resizes carried out in place: the rows of each launch's summary table
        # (`after  change ...`), none FAILED or CANCELLED; under malleable-run each
        # relaunch is one more (a resize by restart or the spawn fallback's).
        rows_ = re.findall(r"^\s+\d+\s+\d+x\d+->\d+x\d+( \S+)? ", text, re.M)
        bad = sum(1 for x in rows_ if x.strip() in ("FAILED", "CANCELLED"))
        if bad:
            faults.append(f"{where}{bad} resizes FAILED or CANCELLED; log {d}/run.log")
        if kind == "user":
            done = len(rows_) - bad
        else:  # the progress lines of each resize completed in place (every launch's)
            done = len(re.findall(r"remap after iter \d+: (?:expand|shrink) \d+x\d+ -> \d+x\d+ (?:\(|COMPLETED)", text))
            seen = [int(x) for x in re.findall(r"^malleable-run: launch \d+: (\d+) processes", text, re.M)]
            if launches is not None and seen != launches:
                faults.append(f"{where}launches of {seen} processes, expected {launches}; log {d}/run.log")
            if launches is None and len(seen) - 1 > row_refreshes:
                hangs += len(seen) - 1 - row_refreshes
                row_hangs = len(seen) - 1 - row_refreshes
            done += len(seen) - 1
        # (a relaunch after a spawn that hung starts the count again: not compared then)
        if kind in ("blocking", "background") and not row_hangs and row_refreshes != refreshes_expected(grids, a.refresh):
            faults.append(f"{where}{row_refreshes} refreshes, the schedule makes "
                          f"{refreshes_expected(grids, a.refresh)} with RESIZE_REFRESH_AFTER={a.refresh}; log {d}/run.log")
        if kind in ("stall", "kill") and "spawn-fallback" not in open(os.path.join(d, "run.log")).read() and \
                not re.search(r"spawn deadline|during an expansion by spawn", text):
            faults.append(f"{where}no spawn fallback; log {d}/run.log")
        if done < resizes:
            faults.append(f"{where}{done} resizes done, {resizes} scheduled")
        if kind in ("blocking", "background"):
            faults += [where + f for f in heap_trim_faults(report_json, a.heap_trim == "on", trims)]
        row = {"kind": kind, "resizes": resizes, "done": done, "seconds": round(r["seconds"], 1), "ok": ok,
               "grids": grids, "spawn_hangs_relaunched": row_hangs, "refreshes": row_refreshes}
        if kind == "blocking" and resizes >= 12 and row_hangs:
            # The originals sampled are the first launch's: a relaunch ended them (their last
            # samples show the hung spawn), so nothing is left to compare.
            row["footprint"] = {"faults": [], "not_compared": "relaunched after a spawn that hung of itself"}
        elif kind == "blocking" and resizes >= 12:
            fp = footprint(r["samples"], steps, resizes, min(a.warm, max(2, resizes // 3)), r["originals"], a.refresh,
                           r["settled_samples"])
            faults += [where + f for f in fp["faults"]]
            row["footprint"] = fp
        if kind != "user":
            st = storage(gdir, ldir, "pdgemm")
            faults += storage_faults(st, a.keep, where)
            row["storage"] = st
        rows.append(row)
        done_total += done
        print(f"  job {k:3d} {kind:10s} {resizes:4d} resizes ({done} done) in {r['seconds']:6.1f} s: "
              f"{'OK' if ok else 'FAILED'}{f' ({row_hangs} spawn hang, relaunched)' if row_hangs else ''}"
              f"{f' ({row_refreshes} refresh)' if row_refreshes else ''}", flush=True)
        if a.json:  # as it goes: a run cut short leaves its jobs' figures
            with open(a.json, "w") as f:
                json.dump({"partial": True, "jobs": rows, "faults": faults}, f, indent=2)
    seconds = time.time() - t_all
    # The launchers' last clean-up: every mpiexec the run saw removes its session folder
    # before it exits, so wait for the exits themselves (60 s at most; one still running
    # then is a process left, below), not for a fixed time (1 s was too short under load).
    deadline = time.time() + 60
    while time.time() < deadline and any(alive(q) for q in watch.mpiexecs):
        time.sleep(0.1)
    time.sleep(0.2)
    left_procs = marked(tag)
    # (Open MPI's top folder /tmp/ompi.<host>.<uid> is every job's of the user; the run's
    # own folders in it, pid.<mpiexec pid>, are checked below.)
    # The programs (malleable-run among them) and the libraries they map live in the build
    # folder, the scripts in the checkout; either may be under /tmp (a clone there): they
    # are not the run's leftovers.
    build_dir = os.path.realpath(a.build) + os.sep
    source_dir = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")) + os.sep
    left_paths = sorted(x for x in watch.seen_paths if os.path.exists(x) and not x.startswith(work)
                        and not os.path.realpath(x).startswith((build_dir, source_dir))
                        and not re.fullmatch(r"/tmp/ompi\.[^/]+", x))
    session_dirs = [d for d in (os.path.join("/tmp", e, f"pid.{q}") for e in os.listdir("/tmp") if e.startswith("ompi.")
                                for q in sorted(watch.mpiexecs)) if os.path.exists(d) and d not in folders_before]
    if left_procs:
        faults.append(f"processes left: {left_procs}")
    if left_paths:
        faults.append(f"files left under /dev/shm or /tmp: {left_paths}")
    if session_dirs:
        faults.append(f"Open MPI session folders left: {session_dirs}")
    kinds = {}
    for row in rows:
        kinds[row["kind"]] = kinds.get(row["kind"], 0) + row["done"]
    report = {"resizes": done_total, "planned": a.resizes, "seconds": round(seconds, 1), "seed": a.seed,
              "keep": a.keep, "every": a.every, "local": a.local, "partner": a.partner, "n": a.n,
              "stall_every": a.stall_every, "kill_every": a.kill_every, "resizes_by_kind": kinds,
              "spawn_hangs_relaunched": hangs, "refresh_after": a.refresh, "refreshes": refreshes,
              "heap_trim": a.heap_trim, "heap_trim_s": trim_summary(trims),
              "jobs": rows,
              "left_processes": left_procs, "left_paths": left_paths, "faults": faults}
    print(f"session endurance: {done_total} resizes in {seconds:.0f} s, {len(rows)} jobs (seed {a.seed}; "
          f"pdgemm_resizable N={a.n} and porting_malleable_cxx, 2x2 <-> 3x2/2x3/4x2; global every {a.every}, "
          f"local every {a.local}, partner every {a.partner}, keep {a.keep}; a stalled newcomer every "
          f"{a.stall_every} resizes, a killed one every {a.kill_every})")
    print("  resizes per kind of job: " + ", ".join(f"{k} {v}" for k, v in kinds.items()) +
          f"; spawns that hung of themselves (relaunched by the fallback, or the user program again): {hangs}")
    print(f"  refresh (RESIZE_REFRESH_AFTER={a.refresh if a.refresh > 0 else 'off'}): {refreshes} expansions by restart")
    ts = trim_summary(trims)
    print(f"  heap trim (RESIZE_HEAP_TRIM={a.heap_trim}): " +
          (f"{ts['count']} calls on rank 0 of the drivers' jobs, median {ts['median'] * 1e3:.3f} ms, "
           f"largest {ts['largest'] * 1e3:.3f} ms" if ts["count"] else "no calls recorded"))
    for k, row in enumerate(rows):
        fp = row.get("footprint")
        if fp and "baseline" in fp:
            b, e = fp["baseline"], fp["end"]
            print(f"  job {k} (blocking, {row['resizes']} resizes): after {fp['baseline_after_resizes']} -> "
                  f"{fp['last_resizes']} resizes: RSS {b['rss_kb']} -> {e['rss_kb']} kB (at most "
                  f"{fp['rss_peak_kb']} in between; allowed "
                  f"+{[round(x) for x in fp['rss_allowed_kb']]}), fds {b['fds']} -> {e['fds']}, threads "
                  f"{b['threads']} -> {e['threads']}, /dev/shm maps {b['shm_maps']} -> {e['shm_maps']} "
                  f"(of deleted files {b['shm_maps_deleted']} -> {e['shm_maps_deleted']}), "
                  f"fds on checkpoint files at most {fp['fds_checkpoint_most']}")
    most_g = max((r_["storage"]["global"]["files"] for r_ in rows if "storage" in r_), default=0)
    most_v = max((len(v) for r_ in rows if "storage" in r_ for e in r_["storage"]["nodes"].values()
                  for v in e["versions"].values()), default=0)
    print(f"  storage: at most {most_g} files in a job's global directory, {most_v} versions of a level on a node "
          f"(keep {a.keep})")
    print(f"  left: {len(left_procs)} processes, {len(left_paths)} files under /dev/shm or /tmp, "
          f"{len(session_dirs)} Open MPI session folders")
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
    return 0 if all(r_["ok"] for r_ in rows) else 1



# ---- rss-growth (`scripts/bench/session_endurance.py rss-growth ARGS`, its arguments as when it was a script of its own)
DOC_RSS_GROWTH = """The originals' RSS growth of each blocking job in session_endurance.py's JSON reports,
one line per job: the report, the heap trim setting (n/a: a report from before the trim), the
refresh (RESIZE_REFRESH_AFTER; 0: none, or a report from before it), the job, the resize
counts compared, and for each original its RSS at the baseline and at the end (kB) and the
growth in %, then the largest growth, and where the report has it the largest RSS seen in
between (the peak) as growth over the baseline. Meant for runs side by side (e.g.
--heap-trim off and on, --refresh 32 and none).

Usage: session_endurance.py rss-growth REPORT.json [REPORT.json ...]
"""
import json
import os
import sys


def main_rss_growth():
    if len(sys.argv) < 2:
        print(DOC_RSS_GROWTH.strip().splitlines()[-1])
        return 2
    for path in sys.argv[1:]:
        with open(path) as f:
            rep = json.load(f)
        trim = rep.get("heap_trim", "n/a")  # reports from before --heap-trim: no trim
        refresh = rep.get("refresh_after", 0)
        for k, job in enumerate(rep.get("jobs", [])):
            fp = job.get("footprint")
            if not fp or "baseline" not in fp:
                continue
            b, e = fp["baseline"]["rss_kb"], fp["end"]["rss_kb"]
            growth = [100.0 * (y - x) / x for x, y in zip(b, e)]
            per = ", ".join(f"original {i} {x} -> {y} kB {g:+.1f} %" for i, (x, y, g) in enumerate(zip(b, e, growth)))
            peak = ""
            if "rss_peak_kb" in fp:
                peak = f"; peak in between {max(100.0 * (p - x) / x for x, p in zip(b, fp['rss_peak_kb'])):+.1f} %"
            print(f"{os.path.basename(path)} trim {trim} refresh {refresh} job {k}: after {fp['baseline_after_resizes']} -> "
                  f"{fp['last_resizes']} resizes: {per}; largest {max(growth):+.1f} %{peak}")
    return 0


# ---- smaps (`scripts/bench/session_endurance.py smaps ARGS`, its arguments as when it was a script of its own)
DOC_SMAPS = """Resident memory of running processes by kind of mapping, sampled over time.

Usage: session_endurance.py smaps COMM OUT.tsv [--period S] [--seconds T]   (T: how long it samples, default 600)
Finds the processes whose /proc/PID/comm is COMM (the first 15 characters), and every
PERIOD seconds writes one row per process: time, pid, Rss of [heap] (glibc's main arena),
of anonymous mappings (other malloc arenas, large malloc blocks, Open MPI's mmaps), of
/dev/shm files, of other files (libraries), [stack], and the total. Meant to run beside
session_endurance.py or blacs_dyn_endurance to see on which kind of memory a rank grows.
"""
import os, sys, time, argparse


def kinds(pid):
    out = {"heap": 0, "anon": 0, "shm": 0, "file": 0, "stack": 0, "other": 0}
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if "-" in parts[0] and ":" not in parts[0]:
                path = parts[5] if len(parts) > 5 else ""
                if path == "[heap]":
                    cur = "heap"
                elif path == "":
                    cur = "anon"
                elif path.startswith("/dev/shm"):
                    cur = "shm"
                elif path.startswith("/"):
                    cur = "file"
                elif path == "[stack]":
                    cur = "stack"
                else:
                    cur = "other"
            elif parts[0] == "Rss:":
                out[cur] += int(parts[1])
    return out


def main_smaps():
    ap = argparse.ArgumentParser(description=DOC_SMAPS.splitlines()[0])
    ap.add_argument("comm")
    ap.add_argument("out")
    ap.add_argument("--period", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=600)
    a = ap.parse_args()
    t0 = time.time()
    with open(a.out, "w") as o:
        o.write("t\tpid\theap_kb\tanon_kb\tshm_kb\tfile_kb\tstack_kb\tother_kb\ttotal_kb\n")
        while time.time() - t0 < a.seconds:
            for p in os.listdir("/proc"):
                if not p.isdigit():
                    continue
                try:
                    if open(f"/proc/{p}/comm").read().strip() != a.comm[:15]:
                        continue
                    k = kinds(p)
                except (OSError, TypeError):
                    continue
                o.write(f"{time.time() - t0:.1f}\t{p}\t" + "\t".join(str(k[x]) for x in
                        ("heap", "anon", "shm", "file", "stack", "other")) + f"\t{sum(k.values())}\n")
            o.flush()
            time.sleep(a.period)


# The subcommands: the scripts folded in above, each run as it was (scripts/bench/subcommands.py).
if __name__ == "__main__":
    import subcommands
    sys.exit(subcommands.run(main, {
        "rss-growth": main_rss_growth,
        "smaps": main_smaps,
    }))
