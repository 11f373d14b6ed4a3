#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seeded workload generator for the multi-job experiments (docs/measurements/workload.md).

The model is the one of U. Lublin and D. G. Feitelson, "The workload on parallel
supercomputers: modeling the characteristics of rigid jobs", J. Parallel Distrib. Comput.
63(11):1105-1122, 2003, with its "whole sample" parameters (no batch/interactive split),
as published with the model in the Parallel Workloads Archive:

* size: with probability 0.244 a serial job (1 node); otherwise log2(size) is drawn from a
  two-stage uniform (low 0.8, med UHi-2.5, high UHi = log2(nodes), probability 0.86 of the
  lower stage), and rounded to an integer for a further 0.576 share (power-of-two jobs);
* run time: log(runtime) is hyper-gamma, Gamma(4.2, 0.94) with probability
  p = -0.0054 * size' + 0.78 (clipped to [0, 1]) and Gamma(312, 0.03) otherwise; size' is the
  size rescaled to the model's 128-node machine, so that the share of long jobs per size
  class is kept when the machine grows (our assumption);
* arrivals: log(inter-arrival) is Gamma(10.2303 * 1.0225, 0.4871), spread over the day
  by a daily cycle whose 48 half-hour buckets weigh as a Gamma(8.1737, 3.9631) density
  (the day starting at bucket 11, as in the model).

Scaling (documented in docs/measurements/workload.md): sizes scale with UHi = log2(nodes); arrival
times are then multiplied by one factor so that the offered load, sum(size * runtime) /
(nodes * span of arrivals), equals --load (Lublin and Feitelson change the load the same
way, by scaling inter-arrival times); finally every time (submit_s, work_node_s) is
multiplied by --time-scale.

Job model (Amdahl): a job does `iterations` equal iterations; on n nodes one iteration
takes (work_node_s / iterations) * (serial_fraction + (1 - serial_fraction) / n) seconds,
so its run time on its requested size equals the model's run time. The serial fraction is
uniform in [0.01, 0.10] (our assumption, not part of Lublin-Feitelson). A malleable job may
run on min_nodes = max(1, nodes // 2) to max_nodes = nodes (--range requested, the default) or
min(machine, 2 * nodes) (--range double) nodes; a rigid
job has min_nodes = max_nodes = nodes. Which jobs are malleable is drawn from a separate
random stream, nested across shares (the 20% set is inside the 50% set), so that the same
seed gives the same jobs at every malleable share.

    generate.py --nodes 1000 --jobs 3000 --seed 1 --malleable-share 0.5 -o w.json
"""
import argparse
import json
import math
import random
import sys

MODEL = ("Lublin & Feitelson 2003, 'The workload on parallel supercomputers: modeling the "
         "characteristics of rigid jobs', JPDC 63(11):1105-1122; whole-sample parameters; "
         "Amdahl iterations (docs/measurements/workload.md)")

# Lublin & Feitelson 2003, whole-sample parameters.
SERIAL_PROB = 0.244
POW2_PROB = 0.576
ULOW = 0.8
UMED_BELOW_UHI = 2.5      # UMED 4.5 for UHI 7 (128 nodes); the paper keeps UMED in [UHI-3.5, UHI-1.5]
UPROB = 0.86
A1, B1, A2, B2 = 4.2, 0.94, 312.0, 0.03
PA, PB = -0.0054, 0.78
MODEL_MACHINE = 128
AARR, BARR, ARAR = 10.2303, 0.4871, 1.0225
ANUM, BNUM = 8.1737, 3.9631
BUCKETS = 48
BUCKET_S = 1800.0
CYCLIC_DAY_START = 11
MAX_LOG_RUNTIME = math.log(2 * 86400.0)   # run times above two days are drawn again
MAX_LOG_INTERARRIVAL = math.log(86400.0)
SERIAL_FRACTION = (0.01, 0.10)
ITERATION_S = 60.0        # target model-time length of one iteration
MAX_ITERATIONS = 500


def gamma_pdf(x, a, b):
    if x <= 0:
        return 0.0
    return math.exp((a - 1) * math.log(x) - x / b - math.lgamma(a) - a * math.log(b))


def gamma_cdf_interval(lo, hi, a, b, steps=200):
    """Integral of the Gamma(a, b) density over [lo, hi] (Simpson's rule)."""
    h = (hi - lo) / steps
    s = gamma_pdf(lo, a, b) + gamma_pdf(hi, a, b)
    for k in range(1, steps):
        s += (4 if k % 2 else 2) * gamma_pdf(lo + k * h, a, b)
    return s * h / 3


def daily_weights():
    """Relative arrival intensity of each half-hour bucket of the day, mean 1."""
    w = [0.0] * BUCKETS
    for i in range(CYCLIC_DAY_START, BUCKETS + CYCLIC_DAY_START):
        w[(i - 1) % BUCKETS] = gamma_cdf_interval(i - 0.5, i + 0.5, ANUM, BNUM)
    mean = sum(w) / BUCKETS
    return [x / mean for x in w]


class Arrivals:
    """Inter-arrival times drawn for the rush hour, stretched by the daily cycle: a bucket
    of weight w holds w times the mean arrival rate."""

    def __init__(self, rng):
        self.rng = rng
        self.w = daily_weights()
        self.bucket = 0
        self.offset = 0.0    # seconds already spent in the current bucket
        self.t = 0.0

    def next(self):
        while True:
            g = self.rng.gammavariate(AARR * ARAR, BARR)
            if g <= MAX_LOG_INTERARRIVAL:
                break
        points = math.exp(g) / BUCKET_S
        while True:
            left = (BUCKET_S - self.offset) / BUCKET_S * self.w[self.bucket]
            if points <= left:
                dt = points / self.w[self.bucket] * BUCKET_S
                self.offset += dt
                self.t += dt
                return self.t
            points -= left
            self.t += BUCKET_S - self.offset
            self.offset = 0.0
            self.bucket = (self.bucket + 1) % BUCKETS


def draw_size(rng, nodes):
    u = rng.random()
    if u <= SERIAL_PROB or nodes == 1:
        return 1
    uhi = math.log2(nodes)
    umed = max(ULOW, uhi - UMED_BELOW_UHI)
    par = rng.uniform(ULOW, umed) if rng.random() <= UPROB else rng.uniform(umed, uhi)
    if u <= SERIAL_PROB + POW2_PROB:
        par = float(int(par + 0.5))
    return max(1, min(nodes, int(2.0 ** par + 0.5)))


def draw_runtime(rng, size, nodes):
    scaled = size * MODEL_MACHINE / nodes if nodes > MODEL_MACHINE else size
    p = min(1.0, max(0.0, PA * scaled + PB))
    while True:
        if rng.random() <= p:
            hg = rng.gammavariate(A1, B1)
        else:
            hg = rng.gammavariate(A2, B2)
        if hg <= MAX_LOG_RUNTIME:
            return max(1.0, math.exp(hg))


RANGES = ("requested", "double")


def generate(nodes, jobs, seed, share, time_scale=1.0, load=0.9, node_range="requested"):
    if nodes < 1 or jobs < 1:
        raise ValueError("nodes and jobs must be at least 1")
    if not 0.0 <= share <= 1.0:
        raise ValueError("malleable share must be within [0, 1]")
    if time_scale <= 0 or load <= 0:
        raise ValueError("time scale and load must be positive")
    rng = random.Random(seed)
    arrivals = Arrivals(rng)
    raw = []
    for _ in range(jobs):
        submit = arrivals.next()
        size = draw_size(rng, nodes)
        runtime = draw_runtime(rng, size, nodes)
        sf = rng.uniform(*SERIAL_FRACTION)
        raw.append((submit, size, runtime, sf))
    first = raw[0][0]
    span = max(raw[-1][0] - first, 1.0)
    offered = sum(s * r for _, s, r, _ in raw) / (nodes * span)
    stretch = offered / load

    # Malleability from its own stream: nested sets across shares, same jobs at every share.
    mrng = random.Random(f"malleable-{seed}")
    order = list(range(jobs))
    mrng.shuffle(order)
    malleable = set(order[:int(round(share * jobs))])

    out = []
    for k, (submit, size, runtime, sf) in enumerate(raw):
        work = runtime / (sf + (1.0 - sf) / size)
        iterations = max(4, min(MAX_ITERATIONS, int(round(runtime / ITERATION_S))))
        m = k in malleable
        out.append({
            "id": f"j{k:03d}",
            "submit_s": round((submit - first) * stretch * time_scale, 3),
            "nodes": size,
            "min_nodes": max(1, size // 2) if m else size,
            "max_nodes": (min(nodes, 2 * size) if node_range == "double" else size) if m else size,
            "malleable": m,
            "program": "sleep",
            "work_node_s": round(work * time_scale, 3),
            "serial_fraction": round(sf, 4),
            "iterations": iterations,
        })
    return {"model": MODEL, "seed": seed, "nodes": nodes, "malleable_share": share, "node_range": node_range,
            "time_scale": time_scale, "load": load, "jobs": out}


def runtime_on(job, n):
    """Run time of a job on n nodes, per the Amdahl model above."""
    sf = job["serial_fraction"]
    return job["work_node_s"] * (sf + (1.0 - sf) / n)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, required=True, help="nodes of the machine")
    ap.add_argument("--jobs", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--malleable-share", type=float, default=0.5)
    ap.add_argument("--time-scale", type=float, default=1.0,
                    help="multiplies every time (e.g. 0.01: a model hour lasts 36 s)")
    ap.add_argument("--load", type=float, default=0.9,
                    help="offered load the arrival times are scaled to (default 0.9)")
    ap.add_argument("--range", choices=RANGES, default="requested", dest="node_range",
                    help="a malleable job's node range: requested, [size // 2, size] (default: shrinks to "
                         "half, grows back to what it asked, as SD-Policy's jobs); double, [size // 2, 2 * size]")
    ap.add_argument("-o", "--out", default="-", help="output JSON file (default stdout)")
    a = ap.parse_args(argv)
    try:
        w = generate(a.nodes, a.jobs, a.seed, a.malleable_share, a.time_scale, a.load, a.node_range)
    except ValueError as e:
        print(f"generate.py: {e}", file=sys.stderr)
        return 2
    text = json.dumps(w, indent=1)
    if a.out == "-":
        print(text)
    else:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
