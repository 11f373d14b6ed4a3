#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a rigid replay's waits part from its log's (the second log with waits, CTC, whose
simulated mean wait falls short): the log's jobs by size and requested time, each class's count,
mean wait in the log and in the simulation, and its share of the gap in the mean wait over
all jobs (seconds a job), and the share of each that waited at most 120 s.

    replay_gap.py TRACE.swf RECORDS.csv

RECORDS.csv: malleable-clustersim --records of a rigid replay of TRACE (id j<job number>).
Example (CTC, the rules its log shows):
    build/sim/malleable-clustersim --swf sim/traces/CTC-SP2-1996-3.1-cln-to-1996-09.swf \\
      --cores-per-node 1 --costs sim/costs/emulated.json --malleable-share 0 \\
      --sched-interval 20 --outages infer --records /tmp/ctc.csv --out /tmp/ctc.json
    scripts/bench/workload/replay_gap.py sim/traces/CTC-SP2-1996-3.1-cln-to-1996-09.swf /tmp/ctc.csv"""
import collections
import csv
import sys

SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 1 << 30)
TIMES = (900, 3600, 4 * 3600, 12 * 3600, 18 * 3600, 1 << 40)


def bound(value, bounds):
    return next(b for b in bounds if value <= b)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    log = {}
    with open(argv[1]) as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            v = line.split()
            if len(v) < 9:
                raise SystemExit(f"replay_gap: {argv[1]}: a record with {len(v)} fields")
            log["j" + v[0]] = (int(float(v[2])), int(v[4]), int(float(v[8])))
    sim = {}
    with open(argv[2]) as f:
        for r in csv.DictReader(f):
            sim[r["id"]] = float(r["start_s"]) - float(r["submit_s"])
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


if __name__ == "__main__":
    main(sys.argv)
