#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The arms' table of one emulated real-trace slice (scripts/bench/slice_arms.sh):

    slice_table.py DIR      DIR/seed<S>/<arm>/ as workload_cluster.sh left them
    slice_table.py DIR...   several slices in one table each, a first column naming the
                            slice (DIR's name): the workload page's first table

Per arm, over its seeds: mean turnaround (all jobs, and the slice's malleable and rigid
jobs apart), mean wait and makespan (the mean, and the smallest and largest seed's in
brackets), resizes and resize seconds a job, jobs Slurm ended at their time
limit (jobcomp.txt's TIMEOUT), the arbiter's decisions by rule (the journal's recent
decisions: the daemon keeps the newest per user, so a count of those), and the simulator's
prediction of the mean turnaround for the same run (validation.md, workload_validate.sh
--runs) with its error. Then each resizing arm (malleable, malleable_rule: with the
time-limit rule, growth, giveback) over rigid
and over the best moldable arm of its seed (the least mean turnaround of the moldable arms
that seed ran), per seed (mean turnaround, rigid's single run against each seed's), as "x
better" (the other arm's turnaround over the resizing arm's), and the simulator's same
ratio (its best moldable arm among the same ones).

The arms by the simulator's names (scripts/bench/workload.sh arms): the emulated moldable
arm is its moldable_requested ([min, size]), moldable_max its moldable ([min, max]),
moldable_efficient the same; growth and giveback the same."""
import collections
import contextlib
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import data_archive  # noqa: E402  (docs/data/slice_arms's runs are packed in runs.tar.xz)

ARMS = ("rigid", "moldable", "moldable_max", "moldable_efficient", "malleable", "malleable_rule", "growth", "giveback")
MOLDABLE = ("moldable", "moldable_max", "moldable_efficient")
RESIZING = ("malleable", "malleable_rule", "growth", "giveback")


def sim_turnaround(d):
    """The simulator's mean turnaround for run d (validation.md's row), or None."""
    path = os.path.join(d, "validation.md")
    if not os.path.exists(path):
        return None
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == "mean_turnaround_s":
            return float(cells[1])
    return None


MOST_RULES = 6  # decision rules named per row


def decision_text(dec):
    """The most frequent rules of a Counter, the rest counted (a row stays under the docs'
    400 characters): "cannot-give 12, bid 3, 4 other"; "-" for none."""
    top = dec.most_common(MOST_RULES)
    rest = sum(dec.values()) - sum(v for _, v in top)
    return ", ".join(f"{k} {v}" for k, v in top) + (f", {rest} other" if rest else "") or "-"


def decisions(d):
    """The arbiter journal's recent decisions, counted by rule."""
    path = os.path.join(d, "arbiter", "state", "journal")
    counts = collections.Counter()
    if os.path.exists(path):
        try:
            journal = json.load(open(path))
        except ValueError:
            return counts
        for entry in journal.get("recent", []):
            try:
                counts[json.loads(entry).get("rule", "?")] += 1
            except (ValueError, AttributeError):
                counts["?"] += 1
    return counts


def timeouts(d):
    """(workload jobs, expander jobs) Slurm ended at their time limits (jobcomp's TIMEOUT)."""
    path = os.path.join(d, "jobcomp.txt")
    if not os.path.exists(path):
        return 0, 0
    jobs = expanders = 0
    for line in open(path, errors="replace"):
        if "JobState=TIMEOUT" not in line:
            continue
        if re.search(r"(^| )Name=malleable-expand-", line):
            expanders += 1
        else:
            jobs += 1
    return jobs, expanders


def killed_text(rs):
    """The workload's jobs killed at their limits, with the expander jobs killed beside them."""
    jobs = sum(x["killed"][0] for x in rs)
    expanders = sum(x["killed"][1] for x in rs)
    return f"{jobs} (+{expanders} expander)" if expanders else str(jobs)


def runs(top):
    """{arm: {seed: run}} with each run's metrics, prediction, decisions and timeouts."""
    out = collections.defaultdict(dict)
    for d in sorted(glob.glob(os.path.join(top, "seed*", "*", "metrics.json"))):
        run_dir = os.path.dirname(d)
        arm = os.path.basename(run_dir)
        seed = re.sub(r"^seed", "", os.path.basename(os.path.dirname(run_dir)))
        if arm not in ARMS:
            continue
        m = json.load(open(d))
        out[arm][seed] = {"m": m, "sim": sim_turnaround(run_dir), "dec": decisions(run_dir),
                          "killed": timeouts(run_dir)}
    return out


def spread(values, fmt="{:.1f}"):
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(statistics.mean(values))} [{fmt.format(min(values))}, {fmt.format(max(values))}]"


def arm_rows(r):
    yield ("| arm | seeds | mean turnaround s | its malleable jobs' s | its rigid jobs' s | mean wait s | makespan s | "
           "resizes a job | resize s a job | killed | arbiter decisions (recent) | simulated turnaround s | sim error |")
    yield "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for arm in ARMS:
        if arm not in r:
            continue
        rs = list(r[arm].values())
        ta = [x["m"]["mean_turnaround_s"] for x in rs]
        sims = [x["sim"] for x in rs if x["sim"] is not None]
        errs = [x["sim"] / x["m"]["mean_turnaround_s"] - 1 for x in rs if x["sim"] is not None]
        dec = sum((x["dec"] for x in rs), collections.Counter())
        dec_text = decision_text(dec)
        part = [spread([x["m"][k] for x in rs if x["m"].get(k) is not None])
                for k in ("mean_turnaround_malleable_s", "mean_turnaround_rigid_s")]
        yield (f"| {arm} | {' '.join(sorted(r[arm]))} | {spread(ta)} | {part[0]} | {part[1]} | "
               f"{spread([x['m']['mean_wait_s'] for x in rs])} | {spread([x['m']['makespan_s'] for x in rs])} | "
               f"{spread([x['m'].get('resizes_per_job', 0) for x in rs], '{:.3f}')} | "
               f"{spread([x['m'].get('resize_time_s_per_job', 0) for x in rs], '{:.3f}')} | "
               f"{killed_text(rs)} | {dec_text} | {spread(sims)} | "
               f"{spread([100 * e for e in errs], '{:+.1f}%')} |")


def best_moldable(r, seed, key):
    """(arm, run) of the moldable arm with the least `key` turnaround on `seed`, or None."""
    got = [(arm, r[arm][seed]) for arm in MOLDABLE if seed in r.get(arm, {})]
    got = [(a, x) for a, x in got if key(x) is not None]
    return min(got, key=lambda ax: key(ax[1])) if got else None


def ratio_rows(r):
    if not any(arm in r for arm in RESIZING):
        return
    yield ("| arm | seed | vs rigid | vs best moldable (which) | simulated vs rigid | "
           "simulated vs best moldable (which) |")
    yield "|---|---|---|---|---|---|"
    rigid = next(iter(r.get("rigid", {}).values()), None)
    measured, simulated = (lambda x: x["m"]["mean_turnaround_s"]), (lambda x: x["sim"])
    for arm in RESIZING:
        for seed, x in sorted(r.get(arm, {}).items()):
            mt, ms = measured(x), simulated(x)
            bm, bs = best_moldable(r, seed, measured), best_moldable(r, seed, simulated)
            cells = [f"{measured(rigid) / mt:.3f}x" if rigid else "-",
                     f"{measured(bm[1]) / mt:.3f}x ({bm[0]})" if bm else "-",
                     f"{rigid['sim'] / ms:.3f}x" if rigid and rigid["sim"] and ms else "-",
                     f"{bs[1]['sim'] / ms:.3f}x ({bs[0]})" if bs and ms else "-"]
            yield f"| {arm} | {seed} | " + " | ".join(cells) + " |"


def with_slice(lines, name):
    """Table lines with a first column: "slice" in the header, --- in the rule, `name` in rows."""
    for k, line in enumerate(lines):
        yield ("| slice " if k == 0 else "|---" if k == 1 else f"| {name} ") + line


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    tables = []
    with contextlib.ExitStack() as stack:
        for d in argv:
            # a slice packed in its study's runs.tar.xz is read from a scratch copy
            r = runs(stack.enter_context(data_archive.readable(d)))
            if not r:
                print(f"slice_table: no run under {d}/seed*/<arm>/metrics.json", file=sys.stderr)
                return 1
            tables.append((os.path.basename(os.path.normpath(d)), list(arm_rows(r)), list(ratio_rows(r))))
    if len(tables) == 1:
        _, arms, ratios = tables[0]
    else:
        arms = [line for k, (n, a, _) in enumerate(tables) for line in list(with_slice(a, n))[(0 if k == 0 else 2):]]
        ratios = [line for k, (n, _, q) in enumerate(tables) for line in list(with_slice(q, n))[(0 if k == 0 else 2):]]
    for line in arms:
        print(line)
    print()
    for line in ratios:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
