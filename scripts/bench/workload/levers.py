#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The malleable policy's levers, searched (docs/measurements/workload.md, "Targets at a
glance"): on one trace, the arbiter's two weights over a grid, each setting run on the
same seeds as the baseline, and the ratio of each over the best moldable arm on that trace
(per seed, mean and 95% interval: seed_stats.py's rules), and at 100% malleable the best
setting over rigid.

    levers.py --sim BIN [--trace T.swf] [--name kth-sp2] [--seeds 1 2 3] [--prime 8-17]
              [--start recipe] [--gains 0 0.25 0.5 1 2] [--efficiencies 0 0.5 0.75]
              [--jobs N] [--sched-interval S] [--extra OPTS]
              [--window FIRST COUNT] [--out DIR]

The runs' settings are workload.sh arms's (the same --costs, passes every 60 s, the policy
asked every 60 simulated seconds, time limits kept, malleable jobs on [ceil(n/2), n]
growing to 2n), with --give-gain-share G (a give-back for a waiting job only when the
giver loses at most G of its rest of run; 0: always) and --min-growth-efficiency E (a
growth only onto nodes that run at E efficiency or better; 0: any that pays). The
baseline is the moldable arm that starts in [ceil(n/2), n] (KTH's best moldable arm,
docs/data/workload/arms/kth-sp2/arms.md). Runs go --jobs at a time (default: the host's
cores); each run's metrics in DIR/runs/, the table in DIR/levers.md, the rows in
DIR/levers.tsv."""
import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_stats  # noqa: E402

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def run(sim, common, label, args, out):
    path = os.path.join(out, "runs", label + ".json")
    t0 = time.time()
    r = subprocess.run([sim, *common, *args, "--out", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"levers: {label} failed: {r.stderr.strip()}")
    m = json.load(open(path))
    m["wall_s"] = round(time.time() - t0, 1)
    json.dump(m, open(path, "w"), indent=1)
    return label, m


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sim", required=True)
    p.add_argument("--trace", default=os.path.join(HERE, "sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf"))
    p.add_argument("--name", default="kth-sp2")
    p.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    p.add_argument("--prime", default="8-17", help="the log's prime-time rule ('' : none)")
    p.add_argument("--start", default="recipe", choices=["full", "min", "one", "recipe"])
    p.add_argument("--gains", nargs="+", type=float, default=[0, 0.25, 0.5, 1, 2])
    p.add_argument("--efficiencies", nargs="+", type=float, default=[0, 0.5, 0.75])
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--sched-interval", default="60", help="the scheduler's passes, s (workload.sh arms's 60)")
    p.add_argument("--extra", default="", help="more simulator options for every run (the trace's own rules, e.g. "
                   "'--outages infer')")
    p.add_argument("--window", nargs=2, type=int, default=[0, 0], metavar=("FIRST", "COUNT"),
                   help="only COUNT kept jobs from the FIRST (0 0: all)")
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    out = a.out or os.path.join(HERE, "docs/data/workload/levers", a.name)
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    # every run's options; each arm adds only those that act in it (the simulator refuses the
    # others): the rigid run none of the malleable jobs', the moldable arm (--policy none) no
    # policy queries
    common = ["--swf", a.trace, "--cores-per-node", "1", "--costs", os.path.join(HERE, "sim/costs/emulated.json"),
              "--sched-interval", a.sched_interval, *a.extra.split(), "--swf-first", str(a.window[0]),
              "--swf-jobs", str(a.window[1])]
    if a.prime:
        common += ["--prime-time", a.prime]
    mal = ["--start-ranges", "--range-top", "requested", "--policy", "arbiter", "--start", a.start, "--interval", "60"]
    tasks = []
    for s in a.seeds:
        sd = ["--seed", str(s)]
        tasks.append((f"moldable_requested_0.5_s{s}", sd + ["--malleable-share", "0.5", "--start-ranges",
                                                              "--range-top", "requested", "--policy", "none"]))
        for g in a.gains:
            for e in a.efficiencies:
                tasks.append((f"g{g}_e{e}_0.5_s{s}", sd + ["--malleable-share", "0.5", *mal, "--give-gain-share", str(g),
                                                            "--min-growth-efficiency", str(e)]))
    tasks.append(("rigid", ["--seed", "1", "--rigid"]))
    results = {}
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for label, m in pool.map(lambda t: run(a.sim, common, t[0], t[1], out), tasks):
            results[label] = m
    rows = table(a, results)
    best = max(rows, key=lambda r: r[2])
    full = {}
    full_tasks = [(f"g{best[0]}_e{best[1]}_1.0_s{s}", ["--seed", str(s), "--malleable-share", "1.0", *mal,
                                                       "--give-gain-share", str(best[0]), "--min-growth-efficiency",
                                                       str(best[1])]) for s in a.seeds]
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for label, m in pool.map(lambda t: run(a.sim, common, t[0], t[1], out), full_tasks):
            full[label] = m
    write(a, out, rows, best, results, full)


def table(a, results):
    """(gain, efficiency, mean ratio, low, high, mean turnaround, refusals) per setting."""
    base = {s: results[f"moldable_requested_0.5_s{s}"]["mean_turnaround_s"] for s in a.seeds}
    rows = []
    for g in a.gains:
        for e in a.efficiencies:
            arm = {s: results[f"g{g}_e{e}_0.5_s{s}"]["mean_turnaround_s"] for s in a.seeds}
            m, lo, hi = seed_stats.mean_ci(seed_stats.paired_ratios(base, arm))
            tt = sum(arm.values()) / len(arm)
            killed = sum(results[f"g{g}_e{e}_0.5_s{s}"]["killed_malleable"] for s in a.seeds)
            rows.append((g, e, m, lo, hi, tt, killed))
    return rows


def write(a, out, rows, best, results, full):
    rigid = results["rigid"]["mean_turnaround_s"]
    with open(os.path.join(out, "levers.tsv"), "w") as f:
        f.write("give_gain_share\tmin_growth_efficiency\tratio_mean\tratio_low\tratio_high\tmean_turnaround_s\t"
                "killed_malleable\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    rat = [rigid / m["mean_turnaround_s"] for m in full.values()]
    fm, flo, fhi = seed_stats.mean_ci(rat)
    lines = [f"**{a.name}, 50% malleable**, seeds {', '.join(map(str, a.seeds))}, start {a.start}, prime time "
             f"{a.prime or 'none'}: the malleable arm over the best moldable arm (start in [n/2, n]) for each setting "
             "of the arbiter's two weights (per seed, mean [95% interval]); defaults: give-gain share 0.5, growth "
             "efficiency 0.5", "",
             "| give-gain share | min growth efficiency | over the best moldable | | mean turnaround s | malleable "
             "jobs killed |", "|---|---|---|---|---|---|"]
    for g, e, m, lo, hi, tt, k in rows:
        mark = " (best)" if (g, e) == best[:2] else ""
        lines.append(f"| {g}{mark} | {e} | {m:.3f}x [{lo:.3f}, {hi:.3f}] | {seed_stats.verdict(lo, hi)} | {tt:,.0f} | {k} |")
    lines += ["", f"100% malleable with the best setting (give-gain share {best[0]}, growth efficiency {best[1]}) over "
              f"rigid ({rigid:,.0f} s): {fm:.3f}x [{flo:.3f}, {fhi:.3f}]"]
    with open(os.path.join(out, "levers.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
