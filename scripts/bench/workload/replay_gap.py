#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a rigid replay's waits part from its log's (the second log with waits, CTC, whose
simulated mean wait falls short): the log's jobs by size and requested time, each class's count,
mean wait in the log and in the simulation, and its share of the gap in the mean wait over
all jobs (seconds a job), and the share of each that waited at most 120 s; then how much of
the log's mean its longest waits carry (the means without the jobs of the K longest waits in
the log, and those jobs' own, in both), and how far each schedule kept the queue's order (the
share of starts made while an older job that fit the free processors waited: EASY makes
such starts only by backfilling).

    replay_gap.py TRACE.swf RECORDS.csv [--machine N --cores-per-node C]

With --machine and --cores-per-node (a log of several processors per node, e.g. CEA Curie
on 5,832 nodes of 16) the log's processors count as ceil(processors / C) nodes of a machine of
N, as the simulator reads them; without them processors are nodes and the machine is the
header's MaxNodes or MaxProcs.
RECORDS.csv: malleable-clustersim --records of a rigid replay of TRACE (id j<job number>).
Example (CTC, the rules its log shows):
    build/sim/malleable-clustersim --swf sim/traces/CTC-SP2-1996-3.1-cln-to-1996-09.swf \\
      --cores-per-node 1 --costs sim/costs/emulated.json --malleable-share 0 \\
      --sched-interval 20 --outages infer --records /tmp/ctc.csv --out /tmp/ctc.json
    scripts/bench/workload/replay_gap.py sim/traces/CTC-SP2-1996-3.1-cln-to-1996-09.swf /tmp/ctc.csv"""
import bisect
import collections
import csv
import sys

SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 1 << 30)
TIMES = (900, 3600, 4 * 3600, 12 * 3600, 18 * 3600, 1 << 40)


def bound(value, bounds):
    return next(b for b in bounds if value <= b)


def main(argv):
    cores, fixed = 1, 0
    if len(argv) == 7 and argv[3] == "--machine" and argv[5] == "--cores-per-node":
        fixed, cores = int(argv[4]), int(argv[6])
        argv = argv[:3]
        if fixed < 1 or cores < 1:
            raise SystemExit("replay_gap: --machine and --cores-per-node must be at least 1")
    if len(argv) != 3:
        raise SystemExit(__doc__)
    log, full, machine = {}, {}, fixed
    with open(argv[1]) as f:
        for line in f:
            if line.startswith(";"):
                key, _, value = line[1:].partition(":")
                if key.strip() in ("MaxNodes", "MaxProcs") and value.split() and value.split()[0].isdigit():
                    machine = machine or int(value.split()[0])  # CTC's reads "338 (batch partition; 512 total)"
                continue
            if not line.strip():
                continue
            v = line.split()
            if len(v) < 9:
                raise SystemExit(f"replay_gap: {argv[1]}: a record with {len(v)} fields")
            procs = -(-int(v[4]) // cores) if cores > 1 and int(v[4]) > 0 else int(v[4])
            log["j" + v[0]] = (int(float(v[2])), procs, int(float(v[8])))
            full["j" + v[0]] = (float(v[1]), max(0.0, float(v[2])), float(v[3]), procs)
    sim, sim_run = {}, {}
    with open(argv[2]) as f:
        for r in csv.DictReader(f):
            sim[r["id"]] = float(r["start_s"]) - float(r["submit_s"])
            sim_run[r["id"]] = (float(r["end_s"]) - float(r["start_s"]), int(r["start_nodes"]))
    missing = [k for k in sim if k not in log]
    if missing:
        raise SystemExit(f"replay_gap: {len(missing)} simulated jobs not in the log (first {missing[0]})")
    n = len(sim)
    cls = collections.defaultdict(lambda: [0, 0.0, 0.0, 0, 0])
    for k, s in sim.items():
        wait, procs, req = log[k]
        c = cls[(bound(procs, SIZES), bound(req, TIMES))]
        c[0] += 1
        c[1] += wait
        c[2] += s
        c[3] += wait <= 120
        c[4] += s <= 120
    lw = sum(c[1] for c in cls.values()) / n
    sw = sum(c[2] for c in cls.values()) / n
    print(f"{n} jobs: mean wait {lw:,.0f} s in the log, {sw:,.0f} s simulated ({(sw - lw) / lw:+.1%})")
    print("| processors <= | requested s <= | jobs | log mean wait s | simulated s | gap, s a job of all | log <= 120 s | simulated <= 120 s |")
    print("|---|---|---|---|---|---|---|---|")
    for (p, t), c in sorted(cls.items()):
        ps = "any" if p == SIZES[-1] else p
        ts = "any" if t == TIMES[-1] else t
        print(f"| {ps} | {ts} | {c[0]} | {c[1] / c[0]:,.0f} | {c[2] / c[0]:,.0f} | {(c[1] - c[2]) / n:+,.0f} | "
              f"{c[3] / c[0]:.3f} | {c[4] / c[0]:.3f} |")
    longest = sorted(sim, key=lambda k: -log[k][0])
    print("\n| the log's longest waits left out | log mean wait s | simulated | vs log | those jobs: log mean wait s | simulated |")
    print("|---|---|---|---|---|---|")
    for k in (0, 100, 500, 1000):
        rest, top = longest[k:], longest[:k]
        lm, sm = sum(log[i][0] for i in rest) / len(rest), sum(sim[i] for i in rest) / len(rest)
        tops = (f"{sum(log[i][0] for i in top) / k:,.0f} | {sum(sim[i] for i in top) / k:,.0f}" if k else "- | -")
        above = f" (waits of {log[longest[k - 1]][0]:,} s and more)" if k else ""
        print(f"| {k}{above} | {lm:,.0f} | {sm:,.0f} | {(sm - lm) / lm:+.1%} | {tops} |")
    if machine > 0:
        sched = {"log": {k: (full[k][0], full[k][0] + full[k][1], full[k][2], full[k][3]) for k in sim}}
        sched["simulated"] = {k: (full[k][0], full[k][0] + sim[k], sim_run[k][0], sim_run[k][1]) for k in sim}
        print(f"\nstarts made while an older job that fit the free processors waited (of {machine}; the oldest "
              "such job larger, longer requested than the one started): " +
              "; ".join(f"{name} {c[0] / n:.1%} ({c[1] / max(c[0], 1):.1%}, {c[2] / max(c[0], 1):.1%})"
                        for name, c in ((name, passed_over(jobs, machine, log)) for name, jobs in sched.items())))
        top = set(longest[:500])
        free = free_while_waiting(sched["log"], machine)
        share = lambda sel: sum(free[k] for k in sel) / max(sum(log[k][0] for k in sel), 1)
        print("share of the waiting that passed with the job's processors free in the log's schedule: the 500 "
              f"longest waits {share(top):.0%}, the other jobs {share([k for k in sim if k not in top]):.0%}")


def free_while_waiting(jobs, machine):
    """Per job, the seconds it waited while the schedule had its processors free: jobs are
    id -> (submit, start, run, processors)."""
    change = collections.Counter()
    for sub, start, run, procs in jobs.values():
        change[start] += procs
        change[start + run] -= procs
    t = sorted(change)
    busy, acc = [], 0
    for x in t:
        acc += change[x]
        busy.append(acc)
    out = {}
    for k, (sub, start, run, procs) in jobs.items():
        i, free = max(bisect.bisect_right(t, sub) - 1, 0), 0.0
        while i < len(t) and t[i] < start:
            a, b = max(t[i], sub), min(t[i + 1] if i + 1 < len(t) else start, start)
            if b > a and machine - busy[i] >= procs:
                free += b - a
            i += 1
        out[k] = free
    return out


def passed_over(jobs, machine, log):
    """Starts made while a job submitted earlier, still waiting, fit the processors free
    (after the ends at that instant, before its starts), and of those how often the oldest
    such job was larger and asked for longer: jobs are id -> (submit, start, run,
    processors); log: id -> (wait, processors, requested)."""
    ev = []
    for k, (sub, start, run, procs) in jobs.items():
        ev += [(sub, 2, k), (start, 1, k), (start + run, 0, k)]
    ev.sort()
    waiting, busy, count, larger, longer, i = {}, 0, 0, 0, 0, 0
    while i < len(ev):
        t, batch = ev[i][0], []
        while i < len(ev) and ev[i][0] == t:
            _, order, k = ev[i]
            if order == 0:
                busy -= jobs[k][3]
            elif order == 2:
                waiting[k] = jobs[k][0]
            else:
                batch.append(k)
            i += 1
        for k in batch:
            waiting.pop(k, None)
        free = machine - busy
        fit = sorted((sub, k) for k, sub in waiting.items() if jobs[k][3] <= free)
        for k in batch:
            if fit and fit[0][0] < jobs[k][0]:
                count += 1
                larger += jobs[fit[0][1]][3] > jobs[k][3]
                longer += log[fit[0][1]][2] > log[k][2]
            busy += jobs[k][3]
    return count, larger, longer


if __name__ == "__main__":
    main(sys.argv)
