#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown tables from malleable-redist-bench redist --json output (docs/reference/redist.md).

usage: summarize.py bench.json
"""
import json
import sys


def main(path):
    rows = json.load(open(path))
    cases, splits = {}, []
    for x in rows:
        if x.get("split"):
            splits.append(x)
        else:
            cases.setdefault((x["n"], x["change"], x["placement"]), {})[x["schedule"]] = x
    order = {c: i for i, c in enumerate(sorted({k[1] for k in cases}))}
    scheds = ["caterpillar", "circulant", "matching", "allatonce"]
    print("| N | change | placement | moved MiB | PDGEMR2D s | " + " | ".join(scheds) +
          " | default vs PDGEMR2D | default / floor |")
    print("|---" * (7 + len(scheds)) + "|")
    for k in sorted(cases, key=lambda k: (order[k[1]], k[0], k[2])):
        c = cases[k]
        d = c.get("allatonce") or next(iter(c.values()))
        times = " | ".join(f"{c[s]['time_s']:.4f}" if s in c else "-" for s in scheds)
        print(f"| {k[0]} | {k[1].replace(':', ' -> ')} | {k[2]} | {d['moved_bytes'] / 2**20:.0f} | "
              f"{d['pdgemr2d_s']:.4f} | {times} | {d['pdgemr2d_s'] / d['time_s']:.2f}x | "
              f"{d['time_s'] / d['floor_s']:.2f}x |")
    # Thesis Tables 4.4-4.6: caterpillar and matching side by side, per process.
    by_case = {}
    for s in splits:
        by_case.setdefault((s["n"], s["change"], s["placement"]), {})[s["schedule"]] = s["per_rank_total_wait_transfer"]
    for (n, change, place), sc in sorted(by_case.items(), key=lambda kv: (order.get(kv[0][1], 0), kv[0][2])):
        names = [x for x in ("caterpillar", "matching") if x in sc]
        print(f"\nN={n} {change} {place}: per process total / waiting / transferring (s)\n")
        print("| rank | " + " | ".join(f"{x} total | wait | transfer" for x in names) + " |")
        print("|---" * (1 + 3 * len(names)) + "|")
        nr = len(sc[names[0]]) // 3
        for r in range(nr):
            print(f"| {r} | " + " | ".join(f"{sc[x][3 * r]:.4f} | {sc[x][3 * r + 1]:.4f} | {sc[x][3 * r + 2]:.4f}"
                                          for x in names) + " |")
        print("| sum | " + " | ".join(f"{sum(sc[x][0::3]):.4f} | {sum(sc[x][1::3]):.4f} | {sum(sc[x][2::3]):.4f}"
                                      for x in names) + " |")

if __name__ == "__main__":
    main(sys.argv[1])
