#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary of scripts/bench/resize.sh phases: one row per (driver, N, setting, case) in
summary.csv, a Markdown table on stdout (for docs/measurements/results.md) and a gnuplot plot of the
phases of each resize beside its limits.

  resize_phases_report.py --data docs/data/resize_phases [--plot docs/img/resize_phases.png]
                          [--section]

--section also writes DATA/section.md, the section "A resize against its limits" of
docs/measurements/results.md (spliced in by splice_sections.py --only resize_phases): how it was run,
the table, and the ping-pong and redistribute-between-jobs summaries of redist.sh between-jobs
(DATA/../between_jobs/summary.txt) when they exist.

Ratios (each from one run, the measurements of a row taken one right after the other):
  move_over_redistribute        the resize's move / `redistribute` alone on the same matrices,
                                warm: the fastest of its repetitions (its arrays and node
                                segment made and touched by the earlier ones); the target's
                                figure
  move_over_redistribute_median the same over the median of those warm repetitions
                                (the redist bench's redist_med_s): the fastest of several favours
                                the baseline on a loaded machine, the resize's move being one
                                call
  move_over_redistribute_cold   the same over `redistribute`'s first call into arrays of
                                fresh pages (the redist bench's redist_cold_s): like for like with a
                                resize, whose new arrays are new memory and whose exchange is
                                the first on its merged world
  move_over_redistribute_touched the same over `redistribute`'s first call on a new
                                communicator into arrays faulted in ahead, caches flushed
                                first (the redist bench's redist_touched_s): the move's situation
                                when the prefault thread has faulted its arrays in
  move_over_floor               the resize's move / the memcpy floor of the same bytes
  resize_over_spawn_plus_bound  (cluster) the whole resize / (raw spawn + merge + the
                                busiest link's bound of the move); the raw job was started
                                with both nodes in its allocation (median after a warm-up)
  resize_over_addhost_spawn_plus_bound
                                (cluster) the same over the first raw spawn + merge of a job
                                started on node1 alone that reaches node2 with Open MPI's
                                add-host (raw_addhost_first_s), as the resize's job does: its
                                launcher starts node2's daemon inside that spawn, as in the
                                resize's; the like-for-like raw spawn
  spawn_over_raw_addhost_first  (cluster) the resize's spawn phase / that add-host first spawn
  resize_over_first_spawn_plus_bound
                                (cluster) the same over the job's first raw spawn + merge of
                                the program linked with the driver's libraries (rawlibs:
                                its newcomers load and start what the driver's do): like for
                                like with a resize, the job's first spawn of the driver
  spawn_over_raw_first_libs     the resize's spawn phase / that first raw spawn
  after_over_fresh              median iteration wall time after the resize (the first
                                iteration after it left out) / the same on a job started
                                on the new grid (its first iteration left out)
  cpu_after_over_fresh          the same on the dedicated-core clock (max per-rank CPU time)
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data_archive  # noqa: E402  (the rows' runs may be packed in runs.tar.xz)

GROWTH = {"node": "within", "node-ucx": "within", "node-tcp": "within", "cluster": "node"}
COLUMNS = ["driver", "n", "setting", "case", "growth", "spawn_s", "move_s", "other_s", "total_s",
           "bytes_moved", "bytes_inter_node", "raw_spawn_s", "redistribute_s", "floor_s", "link_bound_s",
           "move_over_redistribute", "move_over_floor", "resize_over_spawn_plus_bound",
           "redistribute_cold_s", "move_over_redistribute_cold", "move_stage_s", "move_exchange_s", "move_pack_s",
           "move_unpack_s", "move_local_copy_s", "move_commit_s", "move_prefault_s",
           "iter_after_s", "iter_fresh_s", "after_over_fresh", "cpu_after_s", "cpu_fresh_s",
           "cpu_after_over_fresh", "load_before", "rounds", "move_over_redistribute_min",
           "move_over_redistribute_max", "resize_over_spawn_plus_bound_min", "resize_over_spawn_plus_bound_max",
           "after_over_fresh_min", "after_over_fresh_max", "cpu_after_over_fresh_min", "cpu_after_over_fresh_max",
           "move_over_redistribute_cold_min", "move_over_redistribute_cold_max",
           "raw_spawn_first_s", "raw_libs_spawn_s", "raw_libs_spawn_first_s", "resize_over_first_spawn_plus_bound",
           "spawn_over_raw_first_libs", "other_decision_s", "other_handover_s", "other_hosts_s", "other_grids_s",
           "other_release_s", "resize_over_first_spawn_plus_bound_min", "resize_over_first_spawn_plus_bound_max",
           "spawn_over_raw_first_libs_min", "spawn_over_raw_first_libs_max",
           "raw_addhost_s", "raw_addhost_first_s", "raw_libs_addhost_s", "raw_libs_addhost_first_s",
           "resize_over_addhost_spawn_plus_bound", "resize_over_addhost_spawn_plus_bound_min",
           "resize_over_addhost_spawn_plus_bound_max", "spawn_over_raw_addhost_first", "spawn_over_raw_addhost_first_min",
           "spawn_over_raw_addhost_first_max", "redistribute_med_s", "move_over_redistribute_median",
           "move_over_redistribute_median_min", "move_over_redistribute_median_max",
           "redistribute_touched_s", "move_over_redistribute_touched", "move_over_redistribute_touched_min",
           "move_over_redistribute_touched_max"]


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def median_iter(record, first, key):
    vals = [it[key] for it in record["iterations"] if it["iteration"] >= first]
    return statistics.median(vals) if vals else None


def raw_spawn(path):
    """Raw MPI_Comm_spawn + merge (spawn_pingpong's (probes.c) spawn mode), seconds: (the median of
    the repetitions after the warm-up, the warm-up = the job's first spawn; None where the
    file, written before it printed the warm-up, does not say)."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None, None
    for line in lines:
        f = line.split()
        if len(f) in (3, 4) and f[0] == "raw_spawn_merge_ms":
            return float(f[2]) / 1e3, float(f[3]) / 1e3 if len(f) == 4 else None
    return None, None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def rounds_of(d):
    """The round numbers of a directory's runs (resize.R.json, fresh.R.json, ...)."""
    got = set()
    for f in os.listdir(d):
        parts = f.split(".")
        if len(parts) == 3 and parts[1].isdigit():
            got.add(int(parts[1]))
    return sorted(got)


def one_round(d, r, setting):
    """The quantities of round r, one right after the other (None where a run failed)."""
    q = {}
    rz, fr, rd = (load_json(os.path.join(d, f"{k}.{r}.json")) for k in ("resize", "fresh", "redist"))
    if rz and rz.get("resizes") and rz["resizes"][0].get("ok"):
        x = rz["resizes"][0]
        q.update(spawn_s=x["t_spawn_s"], move_s=x["t_redist_s"], other_s=x["t_other_s"], total_s=x["t_total_s"],
                 bytes_moved=x["bytes_moved"], bytes_inter_node=x["bytes_inter_node"])
        for k, v in (x.get("move_phases") or {}).items():  # the slowest process's seconds per phase
            q["move_" + k] = v
        for k, v in (x.get("other_phases") or {}).items():  # t_other by step (rank 0's seconds)
            q["other_" + k] = v
        first = x["after_iteration"] + 2  # the first iteration after the change is left out
        q["iter_after_s"] = median_iter(rz, first, "wall_s")
        q["cpu_after_s"] = median_iter(rz, first, "dedicated_s")
    if fr:
        q["iter_fresh_s"] = median_iter(fr, 2, "wall_s")
        q["cpu_fresh_s"] = median_iter(fr, 2, "dedicated_s")
    if rd:
        q["redistribute_s"] = sum(c["redist_s"] for c in rd)
        q["floor_s"] = sum(c["floor_s"] for c in rd)
        for key, name in (("redist_cold_s", "redistribute_cold_s"), ("redist_med_s", "redistribute_med_s"),
                          ("redist_touched_s", "redistribute_touched_s")):
            if all(key in c for c in rd):  # (runs of an older build do not say)
                q[name] = sum(c[key] for c in rd)
        q["link_bound_s"] = sum(c.get("link_bound_s", 0.0) for c in rd) if setting == "cluster" else None
    q["raw_spawn_s"], q["raw_spawn_first_s"] = raw_spawn(os.path.join(d, f"raw.{r}.txt"))
    q["raw_libs_spawn_s"], q["raw_libs_spawn_first_s"] = raw_spawn(os.path.join(d, f"rawlibs.{r}.txt"))
    q["raw_addhost_s"], q["raw_addhost_first_s"] = raw_spawn(os.path.join(d, f"raw_addhost.{r}.txt"))
    q["raw_libs_addhost_s"], q["raw_libs_addhost_first_s"] = raw_spawn(os.path.join(d, f"rawlibs_addhost.{r}.txt"))
    q["spawn_over_raw_addhost_first"] = ratio(q.get("spawn_s"), q.get("raw_addhost_first_s"))
    q["spawn_over_raw_first_libs"] = ratio(q.get("spawn_s"), q.get("raw_libs_spawn_first_s"))
    q["move_over_redistribute"] = ratio(q.get("move_s"), q.get("redistribute_s"))
    q["move_over_redistribute_median"] = ratio(q.get("move_s"), q.get("redistribute_med_s"))
    q["move_over_redistribute_cold"] = ratio(q.get("move_s"), q.get("redistribute_cold_s"))
    q["move_over_redistribute_touched"] = ratio(q.get("move_s"), q.get("redistribute_touched_s"))
    q["move_over_floor"] = ratio(q.get("move_s"), q.get("floor_s"))
    if setting == "cluster" and q.get("raw_spawn_s") is not None and q.get("link_bound_s") is not None:
        q["resize_over_spawn_plus_bound"] = ratio(q.get("total_s"), q["raw_spawn_s"] + q["link_bound_s"])
        if q.get("raw_libs_spawn_first_s") is not None:
            q["resize_over_first_spawn_plus_bound"] = ratio(q.get("total_s"), q["raw_libs_spawn_first_s"] + q["link_bound_s"])
    if setting == "cluster" and q.get("raw_addhost_first_s") is not None and q.get("link_bound_s") is not None:
        q["resize_over_addhost_spawn_plus_bound"] = ratio(q.get("total_s"), q["raw_addhost_first_s"] + q["link_bound_s"])
    q["after_over_fresh"] = ratio(q.get("iter_after_s"), q.get("iter_fresh_s"))
    q["cpu_after_over_fresh"] = ratio(q.get("cpu_after_s"), q.get("cpu_fresh_s"))
    return q


SPREAD = ("move_over_redistribute", "move_over_redistribute_cold", "resize_over_spawn_plus_bound", "after_over_fresh",
          "cpu_after_over_fresh", "resize_over_first_spawn_plus_bound", "spawn_over_raw_first_libs",
          "resize_over_addhost_spawn_plus_bound", "spawn_over_raw_addhost_first", "move_over_redistribute_median",
          "move_over_redistribute_touched")


def row_of(data, name):
    """Every quantity's median over the rounds; each ratio is the median of the per-round
    ratios (each round's parts ran one right after the other), with its min and max."""
    driver, n, setting = name.split("_", 2)
    d = os.path.join(data, name)
    row = {"driver": driver, "n": int(n), "setting": setting, "case": "1x2->2x2", "growth": GROWTH.get(setting, "")}
    try:
        with open(os.path.join(d, "meta.txt")) as f:
            row["load_before"] = f.readline().split(None, 1)[1].strip()
    except (OSError, IndexError):
        row["load_before"] = ""
    rounds = [one_round(d, r, setting) for r in rounds_of(d)]
    row["rounds"] = len(rounds)
    keys = {k for q in rounds for k in q}
    for k in keys:
        vals = [q[k] for q in rounds if q.get(k) is not None]
        if vals:
            row[k] = statistics.median(vals)
            if k in SPREAD:
                row[k + "_min"], row[k + "_max"] = min(vals), max(vals)
    return row


def fmt(v, digits=3):
    if v is None or v == "":
        return ""
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def ms(v):
    """Seconds as whole milliseconds, "-" where not measured."""
    return "-" if v is None else f"{v * 1e3:.0f}"


def x(v):
    return "-" if v is None else f"{v:.2f}x"


def xs(r, k):
    """Ratio k of row r with its spread over the rounds (min-max of the per-round ratios)."""
    if r.get(k) is None:
        return "-"
    if r.get("rounds", 1) > 1 and r.get(k + "_min") is not None:
        return f"{r[k]:.2f}x ({r[k + '_min']:.2f}-{r[k + '_max']:.2f})"
    return f"{r[k]:.2f}x"


def table(rows):
    out = ["| driver | N | setting | growth | spawn ms | move ms | other ms | total ms | raw spawn ms (median / add-host first) | "
           "redist. ms (warm best / warm median / cold) | floor ms | link bound ms | move / redist. (warm best) | "
           "move / redist. (warm median) | move / redist. (cold) | resize / (spawn + bound) | "
           "resize / (add-host first spawn + bound) | after / fresh (wall) | after / fresh (cpu) | rounds |",
           "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['driver']} | {r['n']} | {r['setting']} | {r['growth']} | {ms(r.get('spawn_s'))} | {ms(r.get('move_s'))} | "
                   f"{ms(r.get('other_s'))} | {ms(r.get('total_s'))} | {ms(r.get('raw_spawn_s'))} / {ms(r.get('raw_addhost_first_s'))} | "
                   f"{ms(r.get('redistribute_s'))} / {ms(r.get('redistribute_med_s'))} / {ms(r.get('redistribute_cold_s'))} | "
                   f"{ms(r.get('floor_s'))} | {ms(r.get('link_bound_s'))} | {xs(r, 'move_over_redistribute')} | "
                   f"{xs(r, 'move_over_redistribute_median')} | {xs(r, 'move_over_redistribute_cold')} | "
                   f"{xs(r, 'resize_over_spawn_plus_bound')} | {xs(r, 'resize_over_addhost_spawn_plus_bound')} | "
                   f"{xs(r, 'after_over_fresh')} | {xs(r, 'cpu_after_over_fresh')} | {r.get('rounds', '')} |")
    return "\n".join(out)


def plot(rows, data, path):
    if not shutil.which("gnuplot"):
        print("resize_phases_report.py: gnuplot not found, no plot", file=sys.stderr)
        return
    dat = os.path.join(data, "phases.dat")
    nan = float("nan")
    with open(dat, "w") as f:
        f.write("# label spawn_ms move_ms other_ms raw_spawn_plus_redistribute_ms raw_spawn_plus_bound_ms "
                "redistribute_ms link_bound_ms raw_addhost_first_plus_bound_ms\n")
        for r in rows:
            if r.get("total_s") is None:
                continue
            lim = (r.get("raw_spawn_s") or 0) + (r.get("redistribute_s") or 0)
            bound = (r.get("raw_spawn_s") or 0) + (r.get("link_bound_s") or 0) if r["setting"] == "cluster" else nan
            red = r.get("redistribute_s") or nan
            link = r.get("link_bound_s") or nan
            addhost = (r["raw_addhost_first_s"] + (r.get("link_bound_s") or 0)
                       if r["setting"] == "cluster" and r.get("raw_addhost_first_s") is not None else nan)
            f.write(f"\"{r['driver']} {r['n']} {r['setting']}\" {r['spawn_s'] * 1e3:.1f} {r['move_s'] * 1e3:.1f} "
                    f"{r['other_s'] * 1e3:.1f} {lim * 1e3:.1f} {bound * 1e3:.1f} {red * 1e3:.1f} {link * 1e3:.1f} {addhost * 1e3:.1f}\n")
    script = f"""
set terminal pngcairo size 1100,900 font ',10'
set output '{path}'
set multiplot layout 2,1
set style data histograms
set style fill solid 0.8 border -1
set xtics rotate by -20 scale 0
set key outside right top
set grid ytics
set ylabel 'ms'
set title 'A resize 1x2 -> 2x2, phase by phase, beside raw spawn + merge + redistribute alone (and + link bound)'
set style histogram rowstacked
set boxwidth 0.6
plot '{dat}' using 2:xtic(1) title 'spawn', '' using 3 title 'move', '' using 4 title 'other (hand-over, grid switch)', \\
     '' using 0:5 with points pt 7 ps 1.3 lc rgb 'black' title 'raw spawn + redistribute alone', \\
     '' using 0:6 with points pt 9 ps 1.5 lc rgb 'red' title 'raw spawn (both nodes) + link bound (cluster)', \\
     '' using 0:9 with points pt 5 ps 1.3 lc rgb 'blue' title 'first raw spawn with add-host + link bound (cluster)'
set title 'The move alone: the resize (between jobs) against redistribute alone (one job) and the link bound (log scale)'
set style histogram clustered gap 1
set logscale y
set boxwidth 0.9
plot '{dat}' using 3:xtic(1) title 'move in the resize', '' using 7 title 'redistribute alone', '' using 8 title 'busiest link bound (cluster)'
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def meta(data):
    m = {}
    try:
        with open(os.path.join(data, "meta.txt")) as f:
            for line in f:
                k, _, v = line.strip().partition(" ")
                m[k] = v
    except OSError:
        pass
    return m


def move_section(rows):
    """The move phase by phase (the record's move_phases, the slowest process's seconds of
    each) beside `redistribute` alone warm and cold."""
    have = [r for r in rows if r.get("move_exchange_s") is not None]
    if not have:
        return []
    out = ["### The move phase by phase, like for like", "",
           "The resize's move is a first call: its new local arrays are fresh memory (a newcomer has none before; an "
           "old process's new array is new too) whose pages fault in on their first write, and its exchange is the "
           "first on the merged world (node map, node-window segment). `redistribute` alone is timed four ways: warm "
           "best, the fastest of its repetitions (arrays and segment made and touched by the earlier ones; the "
           "target's figure, `move_over_redistribute`), warm median, the median of the same repetitions "
           "(the redist bench's `redist_med_s`, `move_over_redistribute_median`: the resize's move is one call, and on a "
           "loaded machine the fastest of several favours the baseline), cold, its first call into arrays of "
           "fresh pages (the redist bench's `redist_cold_s`), and first call, after the warm ones, on a new "
           "communicator into arrays written before, with 64 MiB of other writes first to flush the caches "
           "(the redist bench's `redist_touched_s`, `move_over_redistribute_touched`: the move's situation when the "
           "prefault thread has faulted its arrays in, except that the other ranks' node-window segments are "
           "already mapped; rows measured before it show `-`). Phases "
           "from the record's `move_phases` (the slowest process's seconds each): stage = allocating the new "
           "arrays, exchange = redist's exchange (of it: pack into the node window, unpack from it, local copies; "
           "each first write of a page of the new arrays faults it in there unless it was faulted in ahead), commit = "
           "freeing the old arrays and the accounting; prefault (not part of the move) = a thread's time staging "
           "the new arrays and faulting their pages in before the move, while an old process waits in the spawn "
           "and a newcomer in the hand-over's collectives (the move's wait for it is in stage).",
           "",
           "| driver | N | setting | move ms | stage | exchange | pack | unpack | local copies | commit | prefault | "
           "redistribute warm best ms | warm median ms | cold ms | first call ms | move / warm best | move / warm median | "
           "move / cold | move / first call |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in have:
        out.append(f"| {r['driver']} | {r['n']} | {r['setting']} | {ms(r.get('move_s'))} | {ms(r.get('move_stage_s'))} | "
                   f"{ms(r.get('move_exchange_s'))} | {ms(r.get('move_pack_s'))} | {ms(r.get('move_unpack_s'))} | "
                   f"{ms(r.get('move_local_copy_s'))} | {ms(r.get('move_commit_s'))} | {ms(r.get('move_prefault_s'))} | "
                   f"{ms(r.get('redistribute_s'))} | {ms(r.get('redistribute_med_s'))} | "
                   f"{ms(r.get('redistribute_cold_s'))} | {ms(r.get('redistribute_touched_s'))} | "
                   f"{x(r.get('move_over_redistribute'))} | {x(r.get('move_over_redistribute_median'))} | "
                   f"{x(r.get('move_over_redistribute_cold'))} | {xs(r, 'move_over_redistribute_touched')} |")
    return out + [""]


def spawn_other_section(rows):
    """The spawn beside the raw spawns, and the record's other phase by step."""
    out = ["### The spawn and the other phase, step by step", "",
           "The raw spawn, four ways, each round right after the resize: the program alone (spawn_pingpong in `probes.c`: "
           "MPI_Init, merge, barrier) and the same program linked with the driver's libraries (its newcomers load "
           "ScaLAPACK, OpenBLAS and the library and run blacs-dyn's MPI_Init, as the driver's do, then merge; "
           "`rawlibs.R.txt`), each as the median of 5 spawns after a warm-up and as the warm-up itself, the job's "
           "first spawn, which is what a resize is. The resize's spawn phase is blacs-dyn's expansion: the checks "
           "(rank 0: executable, slots; an agreement), `MPI_Comm_spawn` of the driver with the newcomers' check-in "
           "(inside their MPI_Init), the merges, a dup of the grown world and every rank's host name "
           "(`BLACS_DYN_TRACE=1` prints each, in the cluster rows' `resize.R.log`). Other, from the record's "
           "`other_phases` (rank 0's seconds): decision = the remap point up to the spawn (the decision's "
           "broadcast, every rank's node, the target grid, the prefault thread started), hand-over = the state "
           "packed, shared and unpacked (it waits for every newcomer to get from its MPI_Init to its join: the "
           "driver's set-up and the matrices' registration), hosts = every rank's node in the grown world, grids "
           "= the BLACS grids of both shapes, release = the old grid released; rows measured before the record "
           "split it show `-`.",
           "",
           "| driver | N | setting | spawn ms | raw alone ms (median / first) | raw, driver's libraries ms (median / "
           "first) | spawn / first raw (libraries) | other ms | decision | hand-over | hosts | grids | release | "
           "resize / (raw + bound) | resize / (first raw, libraries + bound) |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['driver']} | {r['n']} | {r['setting']} | {ms(r.get('spawn_s'))} | "
                   f"{ms(r.get('raw_spawn_s'))} / {ms(r.get('raw_spawn_first_s'))} | "
                   f"{ms(r.get('raw_libs_spawn_s'))} / {ms(r.get('raw_libs_spawn_first_s'))} | "
                   f"{xs(r, 'spawn_over_raw_first_libs')} | {ms(r.get('other_s'))} | {ms(r.get('other_decision_s'))} | "
                   f"{ms(r.get('other_handover_s'))} | {ms(r.get('other_hosts_s'))} | {ms(r.get('other_grids_s'))} | "
                   f"{ms(r.get('other_release_s'))} | {xs(r, 'resize_over_spawn_plus_bound')} | "
                   f"{xs(r, 'resize_over_first_spawn_plus_bound')} |")
    return out + [""]


def addhost_section(rows):
    """The cluster rows' whole resize against both raw spawn baselines."""
    have = [r for r in rows if r["setting"] == "cluster"]
    if not have:
        return []
    out = ["### The cluster's raw spawn: two baselines", "",
           "On the cluster the raw spawn is measured from two jobs, each spawning the same 2 processes onto node2. "
           "Both nodes: the raw job is started with the cluster's hostfile, so node2 is in its allocation and its "
           "daemon runs before the first spawn (`raw.R.txt`, `rawlibs.R.txt`; `resize / (raw + bound)` = "
           "`resize_over_spawn_plus_bound`, over the median of 5 spawns after a warm-up). Add-host: the raw job is "
           "started on node1 alone (`--host node1:2`) and reaches node2 with Open MPI's `add-host` info key "
           "(`raw_addhost.R.txt`, and linked with the driver's libraries `rawlibs_addhost.R.txt`; "
           "`resize / (first add-host raw + bound)` = `resize_over_addhost_spawn_plus_bound`, over that job's first "
           "spawn, `raw_addhost_first_s`). The resize's job is started the same way, on node1 alone, and its "
           "expansion reaches node2 with `add-host` (blacs-dyn's per-host spawn), so the launcher starts node2's "
           "daemon inside the resize's spawn as it does inside the add-host job's first spawn: the add-host first "
           "spawn is the like-for-like raw spawn of a resize. The both-nodes figure is the spawn of a job that was "
           "given the nodes it grows onto at its start (`scripts/bench/resize.sh spawn-addhost` compares the two alone).",
           "",
           "| driver | N | spawn ms | raw, both nodes ms (median / first) | raw, add-host ms (median / first) | "
           "raw, add-host, driver's libraries ms (median / first) | spawn / first add-host raw | link bound ms | "
           "total ms | resize / (raw + bound) | resize / (first add-host raw + bound) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in have:
        out.append(f"| {r['driver']} | {r['n']} | {ms(r.get('spawn_s'))} | "
                   f"{ms(r.get('raw_spawn_s'))} / {ms(r.get('raw_spawn_first_s'))} | "
                   f"{ms(r.get('raw_addhost_s'))} / {ms(r.get('raw_addhost_first_s'))} | "
                   f"{ms(r.get('raw_libs_addhost_s'))} / {ms(r.get('raw_libs_addhost_first_s'))} | "
                   f"{xs(r, 'spawn_over_raw_addhost_first')} | {ms(r.get('link_bound_s'))} | {ms(r.get('total_s'))} | "
                   f"{xs(r, 'resize_over_spawn_plus_bound')} | {xs(r, 'resize_over_addhost_spawn_plus_bound')} |")
    return out + [""]


def section(rows, data):
    m = meta(data)
    ns = sorted({r["n"] for r in rows})
    text = [
        "## A resize against its limits",
        "",
        f"Measured: {str(m.get('date', '?'))[:10]}, commit {str(m.get('commit', '?'))[:7]}, "
        "`scripts/bench/resize.sh phases`, data: `docs/data/resize_phases/summary.csv`",
        "",
        f"Generated by `scripts/bench/resize.sh phases` (data: `docs/data/resize_phases/`, rendered by "
        f"`scripts/bench/resize_phases_report.py --section`; rerun both to refresh). Last run: source {m.get('commit', '?')}, "
        f"{m.get('date', '?')}, {m.get('machine', '?')}; load average at its end {m.get('load_at_end', '?')} (each "
        f"row's load before it and before each round is in its directory's `meta.txt`). N = {', '.join(map(str, ns))}, "
        "blocks of 64 (Life: one block per process), growth 1x2 -> 2x2 after iteration 1, the drivers run with "
        "`--no-check`. Per row and round, one right after the other: the resize and a job started on 2x2 (their "
        "order alternating from round to round), `redistribute` alone on the same matrices (malleable-redist-bench redist --shapes "
        "on 4 ranks of one job, with the memcpy floor and, on the cluster, the busiest link's bound at 1 Gbit/s; "
        "redistribute ms: warm best = the fastest of its repetitions, `move_over_redistribute`, the target's "
        "figure; warm median = their median, `move_over_redistribute_median`; cold = its first call, below) "
        "and a raw `MPI_Comm_spawn` + merge of the same 2 processes onto the same host (raw spawn ms: the median "
        "of 5 after a warm-up, the program alone, from a job with both nodes in its allocation, "
        "`resize_over_spawn_plus_bound`; on the cluster also the first spawn of a job started on node1 alone "
        "that reaches node2 with `add-host` as the resize's job does, `resize_over_addhost_spawn_plus_bound`, the "
        "like-for-like baseline: see \"The cluster's raw spawn: two baselines\"; the other raw spawns below). "
        "Phases from the driver's "
        "JSON record: spawn, move = the session's redistribution of every registered matrix (through redist's "
        "engine), other = the rest (decision, state hand-over, hosts, BLACS grids, release: split below). `node`: one node, Open MPI's default (the newcomers beside the old processes: growth `within`); "
        "`cluster`: 2 emulated nodes, the newcomers on node2 (growth by whole nodes: `node`). After / fresh: "
        "median iteration after the resize (its first left out) over the same on the fresh job (its first left "
        "out), wall clock and dedicated-core (CPU) clock. Times are medians over the rounds; each ratio is the "
        "median of the per-round ratios, with their min-max.",
        "",
        table(rows),
        "",
        "![phases](../../img/resize_phases.png)",  # from docs/data/resize_phases/
        "",
    ]
    text += move_section(rows)
    text += spawn_other_section(rows)
    text += addhost_section(rows)
    bj = os.path.join(data, "..", "between_jobs", "summary.txt")
    if os.path.exists(bj):
        text += ["### Between jobs on one node (`scripts/bench/redist.sh between-jobs`, data `docs/data/between_jobs/`)", "",
                 "```text", open(bj).read().rstrip("\n"), "```", ""]
    return "\n".join(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--plot")
    ap.add_argument("--section", action="store_true")
    a = ap.parse_args()
    # The rows' directories are <driver>_<N>_<setting> (the paired runs' *_ab are not rows),
    # read from runs.tar.xz with any newer loose runs over it.
    with data_archive.unpacked(a.data) as src:
        names = sorted((n for n in os.listdir(src) if os.path.isdir(os.path.join(src, n))
                        and n.count("_") >= 2 and n.split("_")[1].isdigit()),
                       key=lambda n: (n.split("_")[0], int(n.split("_")[1]), n.split("_", 2)[2]))
        rows = [row_of(src, n) for n in names]
    with open(os.path.join(a.data, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([fmt(r.get(c), 4) for c in COLUMNS])
    print(table(rows))
    if a.plot:
        plot(rows, a.data, a.plot)
    if a.section:
        with open(os.path.join(a.data, "section.md"), "w") as f:
            f.write(section(rows, a.data) + "\n")


if __name__ == "__main__":
    main()
