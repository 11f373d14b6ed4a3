#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Slices picked before they run (docs/measurements/workload.md, "Slices picked
before they run"): every window of a log with waits, cut and compressed as the emulated
cluster runs a slice (trace_slice.py's window mapped onto --nodes nodes,
cluster_stream.py prepare's log-linear run times in [--lo, --hi] s), simulated in each arm
the emulated runs compare, for each seed; then the picks by the rule below.

    slice_scan.py scan --sim BIN --swf T.swf [--nodes 16] [--jobs 60] [--skip 1000]
                       [--seeds 1 2 3] [--lo 10] [--hi 120] [--limits log|loose]
                       [--range-start guarded|slurm] -o scan.tsv
    slice_scan.py pick scan.tsv[.xz] [--md] [--window K ...]

The arms (the simulator's flags for an emulated run, as workload_validate.sh --runs
simulates one: conservative backfilling as Slurm's; where jobs resize, the policy asked
every 2 s and Slurm with accounting, so an allocation changes as often as asked):
    rigid               --rigid
    moldable            --start-ranges --policy none --range-top requested --one-update off
    moldable_max        --start-ranges --policy none --range-top max --one-update off
    moldable_efficient  --start-ranges --policy none --range-top efficient --one-update off
    malleable_rule      --start-ranges --start recipe --range-top requested --limit-follows-size
                        --interval 2 --one-update off
    malleable           the same without --limit-follows-size
Time limits (--limits): log (default) keeps each job's limit as the log gave it against its
run time (the compressed run time times the log's limit / run, at least the run itself),
rounded up to Slurm's whole minutes, as an emulated run would submit it; loose is
cluster_stream.py run's old rule (twice the run on the job's minimum plus a minute), under
which no give-back is ever held back by a limit.
How a job of a range starts below its top (--range-start): guarded (the scan of 29 Nov
2026 that picked the slices) starts it below its request only on a size whose run keeps its
limit; slurm starts it as Slurm does, on whatever is idle down to its minimum, under the
limit it was submitted with, in every arm but malleable_rule, whose arbiter raises the limit
at such a start by the rule (the guarded start with --limit-follows-size is that raise):
run_flags.py simulates the emulated runs so.

One row a window and seed: the arms' mean turnaround and mean wait, the rigid arm's mean
run time and makespan, the give-backs refused by a limit without the rule.

The rule (written before any scan was run; pick applies it to a scan, nothing else):
  1. A window is eligible when, over the seeds, its rigid arm has a queue (mean wait at
     least half the mean run time) and its rigid makespan is at most --max-makespan s
     (default 1800: an emulated run must fit a session).
  2. For each eligible window: best moldable = the moldable arm with the lowest mean
     turnaround over the seeds; gain = best moldable's mean turnaround / malleable_rule's,
     per seed, then mean and the range over the seeds; the same without the rule.
  3. The gain pick: the eligible window with the largest mean gain (ties: the earlier).
  4. The no-difference pick: among the eligible windows whose per-seed gains hold 1.0
     (lowest <= 1 <= highest), the one whose mean gain is nearest 1.0 (ties: the earlier);
     when none holds 1.0, the one nearest 1.0 over all eligible windows, said so.
"""
import argparse
import json
import lzma
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cluster_stream  # noqa: E402
import trace_slice  # noqa: E402

# Each arm gets only the flags that act in it (the simulator refuses any other): the
# policy's interval and Slurm's one-update rule only where jobs resize.
RESIZING = ["--interval", "2", "--one-update", "off"]
ARMS = {
    "rigid": ["--rigid"],
    "moldable": ["--start-ranges", "--policy", "none", "--range-top", "requested", "--one-update", "off"],
    "moldable_max": ["--start-ranges", "--policy", "none", "--range-top", "max", "--one-update", "off"],
    "moldable_efficient": ["--start-ranges", "--policy", "none", "--range-top", "efficient", "--one-update", "off"],
    "malleable_rule": ["--start-ranges", "--start", "recipe", "--range-top", "requested", "--limit-follows-size",
                       *RESIZING],
    "malleable": ["--start-ranges", "--start", "recipe", "--range-top", "requested", *RESIZING],
}
MOLDABLE = ("moldable", "moldable_max", "moldable_efficient")
COMMON = ["--backfill", "conservative"]
COLS_V1 = ["first", "seed", "jobs", "malleable", "rigid_run_s", "rigid_makespan_s"] + \
          [f"{a}_{m}" for a in ARMS for m in ("turnaround_s", "wait_s")] + ["limit_refusals_norule"]
# the jobs each arm killed at their limits (a killed job's turnaround ends early: its work
# is lost, not done); scans before these columns (COLS_V1) are still read, without them
COLS = COLS_V1 + [f"{a}_killed" for a in ARMS]


def runtime(j, n):
    sf = j["serial_fraction"]
    return j["work_node_s"] * (sf + (1.0 - sf) / n)


def set_limits(w, mode):
    """Each job's time limit as the emulated run would submit it (whole minutes): log by
    cluster_stream.submitted_limit_s (the one rule of both), loose by its time_limit_min."""
    for j in w["jobs"]:
        run = runtime(j, j["nodes"])
        if mode == "log":
            j["limit_s"] = cluster_stream.submitted_limit_s(j, run, "log")
        else:
            j["limit_s"] = 60.0 * cluster_stream.time_limit_min(dict(j, limit_from=None))
    return w


def start_flags(arm, range_start):
    """The --range-start an arm is simulated with (none for rigid, whose jobs have no range)."""
    if arm == "rigid":
        return []
    return ["--range-start", "guarded" if arm == "malleable_rule" else range_start]


def simulate(sim, costs, path, arm, tmp, range_start="guarded"):
    out = os.path.join(tmp, f"m-{arm}.json")
    r = subprocess.run([sim, "--workload", path, "--costs", costs, *COMMON, *ARMS[arm],
                        *start_flags(arm, range_start), "--out", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{arm}: {r.stderr.strip()}")
    return json.load(open(out))


def scan(a):
    costs = os.path.join(HERE, "..", "..", "..", "sim", "costs", "emulated.json")
    print("\t".join(COLS))
    sys.stdout.flush()
    for seed in a.seeds:
        w, cleaning = trace_slice.read_jobs(a.sim, a.swf, seed, a.malleable_share)
        args = argparse.Namespace(jobs=a.jobs, nodes=a.nodes, swf=a.swf, seed=seed, malleable_share=a.malleable_share)
        last = len(w["jobs"]) - a.jobs
        firsts = range(a.skip, last + 1, a.stride)
        if a.max_windows:
            firsts = list(firsts)[:a.max_windows]
        for first in firsts:
            doc = trace_slice.slice_doc(args, w, cleaning, first)
            wl = set_limits(cluster_stream.prepare(doc, a.lo, a.hi, 4.0, 8, 800), a.limits)
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "w.json")
                json.dump(wl, open(path, "w"))
                row = {"first": first, "seed": seed, "jobs": a.jobs, "malleable": sum(j["malleable"] for j in wl["jobs"])}
                for arm in ARMS:
                    m = simulate(a.sim, costs, path, arm, tmp, a.range_start)
                    row[f"{arm}_turnaround_s"] = m["mean_turnaround_s"]
                    row[f"{arm}_wait_s"] = m["mean_wait_s"]
                    row[f"{arm}_killed"] = int(m.get("killed", 0))
                    if arm == "rigid":
                        row["rigid_run_s"] = m["mean_turnaround_s"] - m["mean_wait_s"]
                        row["rigid_makespan_s"] = m["makespan_s"]
                    if arm == "malleable":
                        row["limit_refusals_norule"] = m.get("time_limit_refusals", m.get("limit_refusals", 0))
            print("\t".join(f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c]) for c in COLS))
            sys.stdout.flush()
    return 0


def read_scan(path):
    """A scan as scan writes it, plain or xz-packed (NAME.tsv.xz: how docs/data keeps one)."""
    rows = []
    with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as f:
        head = f.readline().rstrip("\n").split("\t")
        if head not in (COLS, COLS_V1):
            sys.exit(f"slice_scan: {path} is not a scan of this version (its columns: {head[:4]}...)")
        for n, line in enumerate(f, 2):
            v = line.rstrip("\n").split("\t")
            if len(v) != len(head):
                sys.exit(f"slice_scan: {path}:{n}: {len(v)} fields, not {len(head)}")
            rows.append({c: (int(x) if c in ("first", "seed", "jobs", "malleable") or c.endswith("_killed")
                             else float(x)) for c, x in zip(head, v)})
    return rows


def windows(rows, max_makespan):
    by = {}
    for r in rows:
        by.setdefault(r["first"], []).append(r)
    out = []
    for first, rs in sorted(by.items()):
        mean = lambda k: statistics.fmean(r[k] for r in rs)  # noqa: E731
        # an arm's kills a run over the seeds; None for a scan without the kill columns
        killed = lambda arm: mean(f"{arm}_killed") if f"{arm}_killed" in rs[0] else None  # noqa: E731
        best = min(MOLDABLE, key=lambda arm: mean(f"{arm}_turnaround_s"))
        gains = [r[f"{best}_turnaround_s"] / r["malleable_rule_turnaround_s"] for r in rs]
        gains_norule = [r[f"{best}_turnaround_s"] / r["malleable_turnaround_s"] for r in rs]
        queue = mean("rigid_wait_s") >= mean("rigid_run_s") / 2
        out.append({"first": first, "seeds": len(rs), "queue": queue, "makespan_s": mean("rigid_makespan_s"),
                    "rigid_wait_s": mean("rigid_wait_s"), "rigid_run_s": mean("rigid_run_s"), "best": best,
                    "gain": statistics.fmean(gains), "lo": min(gains), "hi": max(gains),
                    "gain_norule": statistics.fmean(gains_norule),
                    "over_rigid": statistics.fmean(r["rigid_turnaround_s"] / r["malleable_rule_turnaround_s"] for r in rs),
                    "refusals": statistics.fmean(r["limit_refusals_norule"] for r in rs),
                    "killed_norule": killed("malleable"), "killed_best": killed(best),
                    "killed_rule": killed("malleable_rule"),
                    "eligible": queue and mean("rigid_makespan_s") <= max_makespan})
    return out


def choose(ws):
    """The rule's two picks among the windows: (gain pick, no-difference pick, whether the
    latter's seeds hold 1.0), or None without an eligible window."""
    el = [w for w in ws if w["eligible"]]
    if not el:
        return None
    gain = max(el, key=lambda w: (w["gain"], -w["first"]))
    holds = [w for w in el if w["lo"] <= 1.0 <= w["hi"]]
    same = min(holds or el, key=lambda w: (abs(w["gain"] - 1.0), w["first"]))
    return gain, same, bool(holds)


def pick(a):
    rows = read_scan(a.scan)
    ws = windows(rows, a.max_makespan)
    el = [w for w in ws if w["eligible"]]
    print(f"slice_scan pick: {len(ws)} windows, {sum(w['queue'] for w in ws)} with a queue, {len(el)} eligible "
          f"(queue and rigid makespan <= {a.max_makespan:.0f} s)")
    chosen = choose(ws)
    if not chosen:
        print("no eligible window")
        return 1
    gain, same, holds = chosen
    fmt = ("| {first} | {seeds} | {rigid_wait_s:.1f} | {rigid_run_s:.1f} | {makespan_s:.0f} | {best} | "
           "{gain:.3f} [{lo:.3f}, {hi:.3f}] | {gain_norule:.3f} | {over_rigid:.3f} | {refusals:.1f} |")
    print("| pick | first kept job | seeds | rigid wait s | rigid run s | rigid makespan s | best moldable | "
          "malleable with the rule / best moldable [seeds' range] | without the rule | with the rule over rigid | "
          "give-backs refused by a limit without the rule |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("| largest gain " + fmt.format(**gain))
    print(("| no difference " if holds else "| nearest 1.0 (none holds 1.0) ") + fmt.format(**same))
    named = {w["first"]: w for w in ws}
    for first in a.window:
        if first not in named:
            sys.exit(f"slice_scan pick: no window starts at kept job {first} in {a.scan}")
        print("| named (--window) " + fmt.format(**named[first]))
    q = lambda xs: statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3  # noqa: E731
    g, g0 = q([w["gain"] for w in el]), q([w["gain_norule"] for w in el])
    print()
    print(f"Over the {len(el)} eligible windows: the malleable arm over the best moldable, with the rule "
          f"median {g[1]:.3f} (quartiles {g[0]:.3f}-{g[2]:.3f}), without it {g0[1]:.3f} ({g0[0]:.3f}-{g0[2]:.3f}); "
          f"the rule's arm ahead of the one without it in {sum(w['gain'] > w['gain_norule'] for w in el)} windows, "
          f"behind in {sum(w['gain'] < w['gain_norule'] for w in el)}; a give-back refused by a limit without the "
          f"rule in {sum(w['refusals'] > 0 for w in el)} windows.")
    clean = [w for w in el if w["killed_norule"] == 0]
    if len(clean) < len(el) and all(w["killed_norule"] is not None for w in el):
        print(f"The arm without the rule killed a job at its limit in {len(el) - len(clean)} of them (its "
              f"turnaround ends early, its work lost); in the {len(clean)} where it killed none, the rule's arm "
              f"ahead in {sum(w['gain'] > w['gain_norule'] for w in clean)}, behind in "
              f"{sum(w['gain'] < w['gain_norule'] for w in clean)}. The best moldable arm killed a job in "
              f"{sum(w['killed_best'] > 0 for w in el)} (the rule's gain over it understated there), the rule's "
              f"arm in {sum(w['killed_rule'] > 0 for w in el)}.")
    if "rigid_killed" in rows[0]:
        print("Jobs killed at their limits, a run's mean over every window and seed: " + ", ".join(
            f"{arm} {statistics.fmean(r[f'{arm}_killed'] for r in rows):.2f}" for arm in ARMS) + ".")
    if a.md:
        print()
        print("Every eligible window, by gain:")
        print()
        print("| first kept job | seeds | rigid wait s | rigid run s | rigid makespan s | best moldable | gain [range] | "
              "without the rule | over rigid | refusals without the rule |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for w in sorted(el, key=lambda w: -w["gain"]):
            print(fmt.format(**w))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scan")
    s.add_argument("--sim", required=True, help="malleable-clustersim")
    s.add_argument("--swf", required=True)
    s.add_argument("--nodes", type=int, default=16)
    s.add_argument("--jobs", type=int, default=60)
    s.add_argument("--skip", type=int, default=1000)
    s.add_argument("--stride", type=int, default=0, help="between windows' first jobs (default: --jobs)")
    s.add_argument("--max-windows", type=int, default=0, help="at most this many windows (0: all)")
    s.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    s.add_argument("--malleable-share", type=float, default=0.5)
    s.add_argument("--lo", type=float, default=10.0)
    s.add_argument("--hi", type=float, default=120.0)
    s.add_argument("--limits", choices=("log", "loose"), default="log")
    s.add_argument("--range-start", choices=("guarded", "slurm"), default="guarded",
                   help="how a job of a range starts below its top in the arms but the rule's")
    p = sub.add_parser("pick")
    p.add_argument("scan")
    p.add_argument("--max-makespan", type=float, default=1800.0)
    p.add_argument("--md", action="store_true", help="also every eligible window")
    p.add_argument("--window", type=int, nargs="*", default=[],
                   help="also these windows' rows (by first kept job), eligible or not")
    a = ap.parse_args(argv)
    if a.cmd == "scan":
        if a.nodes < 1 or a.jobs < 60 or a.skip < 0 or a.stride < 0 or not (0 < a.lo < a.hi):
            sys.exit("slice_scan: --nodes >= 1, --jobs >= 60 (the issue's windows), --skip, --stride >= 0, 0 < --lo < --hi")
        a.stride = a.stride or a.jobs
        return scan(a)
    return pick(a)


if __name__ == "__main__":
    sys.exit(main())
