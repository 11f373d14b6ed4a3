#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary of scripts/bench/spawn.sh hang's spawns.csv: per (kind, cure) the expansions,
the hangs (in the spawn and in the shrink back), the hang rate with its exact 95%
(Clopper-Pearson) interval, the spawn-time quantiles of the expansions that completed
(p50, p95, p99, max, seconds), how many of those took longer than the deadline and still
completed (a stall that a deadline of that length would have turned into a restart), and
the load average range at job start.
With --markdown FILE also the table docs/reference/blacs-dyn.md shows ("The spawn hang").
With --cause FILE the test of the cause: kind grow (no process leaves) against the kinds
whose newcomers leave every round (grow_test).
Usage: spawn_hang_summary.py SPAWNS_CSV SUMMARY_CSV [--timeout S] [--markdown FILE]
                             [--walks FILE] [--cause FILE]"""
import argparse
import csv
import math
import sys
from collections import defaultdict


def binom_cdf(k, n, p):
    """P(X <= k) for X ~ Binomial(n, p)."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 1.0 if k >= n else 0.0
    total = 0.0
    for i in range(0, k + 1):
        total += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                          + i * math.log(p) + (n - i) * math.log1p(-p))
    return min(total, 1.0)


def solve(f, lo=0.0, hi=1.0):
    """The p in [lo, hi] where the decreasing function f crosses 0 (bisection)."""
    for _ in range(80):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(k, n, alpha=0.05):
    if n == 0:
        return (0.0, 1.0)
    # low: the p where P(X >= k) = alpha/2 (P(X >= k) grows with p)
    low = 0.0 if k == 0 else solve(lambda p: alpha / 2 - (1 - binom_cdf(k - 1, n, p)))
    high = 1.0 if k == n else solve(lambda p: binom_cdf(k, n, p) - alpha / 2)
    return (low, high)


def quantile(sorted_values, q):
    """Nearest-rank quantile (a value that was measured)."""
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spawns")
    ap.add_argument("summary")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--markdown")
    ap.add_argument("--walks", help="file for how many random walks show the hang (see walks_needed)")
    ap.add_argument("--cause", help="file for kind grow against the kinds whose newcomers leave (grow_test)")
    args = ap.parse_args()
    groups = defaultdict(list)
    order = []
    with open(args.spawns, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["kind"], row["cure"])
            if key not in groups:
                order.append(key)
            groups[key].append(row)
    fields = ["kind", "cure", "expansions", "hangs", "hangs_in_spawn", "hangs_in_shrink", "hangs_lookup_init", "failed",
              "rate", "rate_lo95", "rate_hi95", "spawn_p50_s", "spawn_p95_s", "spawn_p99_s",
              "spawn_max_s", "completed_over_timeout", "shrink_p50_s", "shrink_max_s", "timeout_s", "jobs", "load1_min",
              "load1_max"]
    rows_out = []
    with open(args.summary, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        rank = {"one": 0, "several": 1, "hosts": 2, "nodes": 3, "concurrent": 4, "grow": 6}
        keys = sorted(order, key=lambda k: (rank.get(k[0], 9), k[0], k[1]))
        # and every kind the library makes together, per store (kind grow is an experiment
        # on the cause: it never shrinks, which no resize program does for long)
        for cure in sorted({k[1] for k in order}):
            groups[("all", cure)] = [r for k in order if k[1] == cure and k[0] not in EXPERIMENTS
                                     for r in groups[k]]
            keys.append(("all", cure))
        for key in keys:
            rows = groups[key]
            hangs = [r for r in rows if r["status"] == "hang"]
            failed = sum(1 for r in rows if r["status"] == "failed")
            spawn = sorted(float(r["spawn_s"]) for r in rows if r["spawn_s"])
            shrink = sorted(float(r["shrink_s"]) for r in rows if r["shrink_s"])
            loads = [float(r["load1"]) for r in rows if r["load1"]]
            n, k = len(rows), len(hangs)
            lo, hi = clopper_pearson(k, n)
            rows_out.append({
                "kind": key[0], "cure": key[1], "expansions": n, "hangs": k,
                "hangs_in_spawn": sum(1 for r in hangs if r["phase"] == "spawn"),
                "hangs_in_shrink": sum(1 for r in hangs if r["phase"] == "shrink"),
                "hangs_lookup_init": sum(1 for r in hangs if r["signature"] == "lookup+init"),
                "failed": failed, "rate": f"{k / n:.4f}" if n else "",
                "rate_lo95": f"{lo:.4f}", "rate_hi95": f"{hi:.4f}",
                "spawn_p50_s": f"{quantile(spawn, 0.50):.3f}", "spawn_p95_s": f"{quantile(spawn, 0.95):.3f}",
                "spawn_p99_s": f"{quantile(spawn, 0.99):.3f}", "spawn_max_s": f"{spawn[-1]:.3f}" if spawn else "",
                "completed_over_timeout": sum(1 for t in spawn if t > args.timeout),
                "shrink_p50_s": f"{quantile(shrink, 0.50):.3f}", "shrink_max_s": f"{shrink[-1]:.3f}" if shrink else "",
                "timeout_s": f"{args.timeout:g}", "jobs": len({r["job"] for r in rows}),
                "load1_min": f"{min(loads):.2f}" if loads else "", "load1_max": f"{max(loads):.2f}" if loads else "",
            })
            w.writerow(rows_out[-1])
    if args.markdown:
        write_markdown(args.markdown, rows_out)
    if args.walks:
        with open(args.walks, "w") as f:
            f.write(walks_needed(groups))
    if args.cause:
        with open(args.cause, "w") as f:
            f.write(grow_test(groups))
    return 0


def log_choose(n, k):
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_low(k1, n1, k2, n2):
    """One-sided Fisher exact test: P(the first group has k1 or fewer of the k1 + k2 hangs)
    when both groups have the same rate (hypergeometric, margins fixed)."""
    total, hangs = n1 + n2, k1 + k2
    return min(1.0, sum(math.exp(log_choose(n1, i) + log_choose(n2, hangs - i) - log_choose(total, hangs))
                        for i in range(0, min(k1, hangs) + 1) if hangs - i <= n2))


def grow_test(groups):
    """Kind grow (no process leaves) against the kinds on this machine whose newcomers leave
    every round (one, several, hosts, concurrent) in jobs started since the first grow job,
    per store: counts, rates and the one-sided Fisher exact p that grow hangs no less
    often."""
    out = []
    for cure in sorted({k[1] for k in groups if k[0] == "grow"}):
        grow = groups[("grow", cure)]
        # the others over the same hours (rows from the first grow job's start on)
        since = min(r.get("date") or "" for r in grow)
        rest = [r for kind in ("one", "several", "hosts", "concurrent") for r in groups.get((kind, cure), [])
                if (r.get("date") or "") >= since]
        k1, n1 = sum(1 for r in grow if r["status"] == "hang"), len(grow)
        k2, n2 = sum(1 for r in rest if r["status"] == "hang"), len(rest)
        if n1 == 0 or n2 == 0:
            out.append(f"store {cure}: no rows to compare (growing only {n1}, newcomers leaving {n2})")
            continue
        lo, hi = clopper_pearson(k1, n1)
        out.append(f"store {cure}: growing only {k1} hangs in {n1} ({100 * k1 / n1:.2f}%, 95% interval "
                   f"{100 * lo:.2f}-{100 * hi:.2f}%); newcomers leaving every round (one, several, hosts, "
                   f"concurrent; jobs started since {since}) {k2} in {n2} ({100 * k2 / n2:.2f}%); "
                   f"one-sided Fisher exact p = "
                   f"{fisher_low(k1, n1, k2, n2):.2g}")
    return "\n".join(out) + "\n" if out else "no kind grow measured\n"


def walks_needed(groups, confidence=0.95):
    """How many seeded random walks (tests/blacs-dyn) a suite run needs so that a hang at
    the rate measured under the suite's conditions (kind walks: two walks at once, PMIx's
    gds=hash as blacs-dyn sets it) shows at least once with `confidence`: W with
    1 - (1 - q)^W >= confidence, q = 1 - (1 - p)^s the chance that a walk of s expansions
    hangs. Without a hang in the measurement the rate is unknown below its upper bound,
    and the count for that bound is given."""
    rows = groups.get(("walks", "hash"), [])
    walks = {r["job"] for r in rows}
    n, k = len(rows), sum(1 for r in rows if r["status"] == "hang")
    if not walks or n == 0:
        return "no walks measured\n"
    s = n / len(walks)
    lo, hi = clopper_pearson(k, n)
    out = [f"walks measured (two at once, gds=hash): {len(walks)}, expansions {n} ({s:.1f} a walk), hangs {k}"]
    pooled = [r for key, rs in groups.items()
              if key[1] == "hash" and key[0] != "all" and key[0] not in EXPERIMENTS for r in rs]
    pk = sum(1 for r in pooled if r["status"] == "hang")
    out.append(f"every kind with gds=hash: {len(pooled)} expansions, {pk} hangs")
    for name, p in (("measured rate of the walks", k / n), ("95% upper bound of the walks", hi),
                    ("measured rate of every kind", pk / len(pooled) if pooled else 0.0)):
        if p <= 0:
            out.append(f"{name} 0: no count of walks shows it")
            continue
        q = 1 - (1 - p) ** s
        w = math.ceil(math.log(1 - confidence) / math.log(1 - q))
        out.append(f"{name} {100 * p:.2f}% per expansion, {100 * q:.1f}% per walk: {w} walks show a hang "
                   f"with {100 * confidence:.0f}% probability")
    return "\n".join(out) + "\n"


EXPERIMENTS = {"grow"}  # kinds left out of "all of the above"

KIND_TEXT = {
    "one": "1 process",
    "several": "3 processes, one spawn",
    "hosts": "one group of 1 per host, 2 hosts (2 spawns at once)",
    "nodes": "one group of 1 per node onto 2 other emulated nodes (2 spawns at once)",
    "concurrent": "1 process, two jobs at once",
    "grow": "1 process, growing only (no process leaves before the end)",
    "walks": "the expansions of random walks (24 resizes each), two walks at once",
    "all": "**all of the above** (but growing only)",
}


def write_markdown(path, rows):
    with open(path, "w") as f:
        f.write("| expansion | PMIx store | expansions | hangs | rate (95% interval) | spawn p50 / p95 / p99 / max, s | load |\n")
        f.write("|---|---|---|---|---|---|---|\n")
        for r in rows:
            store = {"hash": "hash (blacs-dyn's default)",
                     "hash-nowait": "hash, leavers exit at once (`BLACS_DYN_LEAVE_WAIT=off`)",
                     "keep-nowait": "ds21, leavers exit at once (`BLACS_DYN_PMIX_GDS=keep BLACS_DYN_LEAVE_WAIT=off`)",
                     "ucx": "ds21 with Open MPI's UCX PML (`BLACS_DYN_PML=ucx`)"}.get(
                         r["cure"], "ds21 (PMIx's default, `BLACS_DYN_PMIX_GDS=keep`)")
            rate = 100 * float(r["rate"]) if r["rate"] else 0.0
            times = (f"{r['spawn_p50_s']} / {r['spawn_p95_s']} / {r['spawn_p99_s']} / {r['spawn_max_s']}"
                     if r["spawn_max_s"] else "(not timed)")
            f.write(f"| {KIND_TEXT.get(r['kind'], r['kind'])} | {store} | {r['expansions']} | {r['hangs']} | "
                    f"{rate:.1f}% ({100 * float(r['rate_lo95']):.1f}-{100 * float(r['rate_hi95']):.1f}%) | "
                    f"{times} | "
                    f"{r['load1_min']}-{r['load1_max']} |\n")


if __name__ == "__main__":
    sys.exit(main())
