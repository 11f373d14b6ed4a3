#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs/measurements/scale.md's plan tables from scripts/bench/redist.sh plan-scale's output (docs/data/plan-scale.txt):
one rank's make_plan time (ms) and heap (KiB) at P near 1,024 / 4,096 / 16,384 / 65,536 for
each grid family and block size, the slowest of the schedules beside the default one, the
default's first repetition, and the fitted growth exponents. Usage: plan-scale-table.py [docs/data/plan-scale.txt]"""
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "docs/data/plan-scale.txt"
rows, fits, in_fit = [], [], False
for line in open(path, encoding="utf-8"):
    if line.startswith("# growth exponent"):
        in_fit = True
        continue
    if line.startswith("#") or not line.strip() or line.startswith("family"):
        continue
    f = line.split()
    if in_fit:
        fits.append(f)
    elif f[0] in ("divisor", "coprime"):
        rows.append({"family": f[0], "grids": f[1], "P": int(f[2]), "nb": f[3], "schedule": f[4],
                     "ms": float(f[5]), "first_ms": float(f[6]), "kib": float(f[7]), "transfers": int(f[10])})

sizes = [1024, 4096, 16384, 65536]
kib = lambda v: f"{v:,.1f}" if v < 10 else f"{v:,.0f}"
near = lambda p, q: abs(p - q) <= q // 8  # 1,089 ~ 1,024, 4,225 ~ 4,096, 66,049 ~ 65,536
blocks = []
for r in rows:
    if r["nb"] not in blocks:
        blocks.append(r["nb"])
print("| family | grids | P | nb | default: ms / KiB | slowest schedule: ms / KiB | default, first call: ms | transfers held |")
print("|---|---|---|---|---|---|---|---|")
for fam in ("divisor", "coprime"):
    for nb in blocks:
        for grids in dict.fromkeys(r["grids"] for r in rows if r["family"] == fam and r["nb"] == nb):
            sel = [r for r in rows if r["family"] == fam and r["nb"] == nb and r["grids"] == grids]
            if not sel or not any(near(sel[0]["P"], q) for q in sizes):
                continue
            d = next(r for r in sel if r["schedule"] == "default")
            w = max(sel, key=lambda r: r["ms"])
            print(f"| {fam} | {grids.replace('^2', '²')} | {d['P']:,} | {nb} | {d['ms']:.3f} / {kib(d['kib'])} | "
                  f"{w['ms']:.3f} / {kib(w['kib'])} ({w['schedule']}) | {d['first_ms']:.3f} | {d['transfers']:,} |")
print()
print("Growth exponent in P of the whole call (least squares on log-log, P ≥ 64):")
print()
print("| family | nb | schedule | time | heap |")
print("|---|---|---|---|---|")
for f in fits:
    print("| " + " | ".join(f) + " |")
