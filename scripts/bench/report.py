#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes measurements/results.md and img/*.png from the raw JSON of scripts/bench/reproduce.sh.

Every measured number comes from raw/; the thesis's numbers (M. Chinnusamy,
Virginia Tech 2004) are quoted in the THESIS_* tables below and always labelled as the
thesis's. Exits 1 if a check on the data fails.

Subcommand: thesis-tables [options] (the thesis's gridmap tables computed from malleable-gridmap
--json; its notes in DOC_THESIS_TABLES below).
"""
import argparse
import glob
import json
import math
import os
import platform
import re
import subprocess
import sys
from datetime import datetime, timezone

# ---- the thesis's numbers (quoted from the thesis) ---------------------------------------------
THESIS_T41 = {"r = p": 2.6, "r = p/2": 3.0, "r = p/4": 3.3, "r = 1": 2.0}
# Tables 4.2/4.3, N = 12000, 18000, 24000: (Loc1, Loc2, Glob) seconds.
THESIS_T42 = {("4", "9"): {12000: (30.982, 23.450, 32.240), 18000: (69.177, 51, 72.401), 24000: (134, 107, 200.49)},
              ("9", "16"): {12000: (27.219, 19, 21.315), 18000: (60.512, 41.220, 47.180), 24000: (107.48, 73.048, 84.696)},
              ("16", "25"): {12000: (21.435, 18.117, 21.723), 18000: (47.156, 40.101, 49.662), 24000: (83, 69.372, 90.145)}}
# Tables 4.4-4.6 (N = 15000, 4 -> 9, caterpillar): per process (total, T_sync, T_transfer).
THESIS_SPLIT = {
    "global": [(42.4, 25.2, 15.3), (41.2, 12.3, 27.5), (41.1, 0.0, 39.8), (53.9, 12.8, 39.8), (19.2, 6.3, 12.2),
               (41.5, 28.6, 12.2), (16.5, 3.6, 12.2), (41.5, 28.4, 12.2), (54.4, 41.4, 12.2)],
    "local2": [(26.4, 9.4, 15.3), (17.2, 0.0, 15.3), (16.9, 0.0, 15.3), (16.9, 0.0, 15.3), (19.4, 6.5, 12.2),
               (25.6, 12.7, 12.2), (17.0, 4.1, 12.2), (17.4, 4.4, 12.2), (14.0, 1.0, 12.2)],
    "local1": [(45.2, 28.3, 15.3), (57.0, 28.0, 27.5), (44.4, 15.3, 27.5), (50.6, 15.6, 33.6), (25.9, 13.0, 12.2),
               (13.1, 0.2, 12.2), (13.3, 0.4, 12.2), (57.2, 44.2, 12.2), (44.9, 31.9, 12.2)],
}
TOPOS = ["3x3", "4x3", "3x4", "6x2", "2x6", "12x1", "1x12", "7x2", "2x7"]
THESIS_T51 = {9000: [88, 88, 77, 152, 80, 369, 105, 156, 74], 12000: [148, 171, 156, 270, 155, 654, 205, 312, 162],
              18000: [423, 441, 430, 658, 438, 1487, 541, 763, 531], 24000: [916, 890, 905, 1275, 907, 2711, 1123, 2069, 886],
              30000: [1674, 1559, 1620, 2142, 1632, 4441, 1974, 2950, 1806],
              36000: [3281, 2494, 2651, 3279, 2643, 6688, 3173, 3906, 2486]}
THESIS_T52 = {9000: [180, 145, 159, 145, 173, 197, 297, 176, 167], 12000: [372, 297, 332, 308, 356, 394, 576, 356, 341],
              18000: [1244, 897, 953, 916, 1025, 1610, 1542, 981, 952],
              24000: [2835, 1994, 2129, 3253, 2201, 3452, 3137, 2030, 2011]}
# Tables 5.3-5.12 (5x5 -> 6x6 -> 7x7 -> 8x8; N = 21000 / 42000).
THESIS_T53 = {"5x5->6x6": (48.94, 41.271, 190.90, 152.696), "6x6->7x7": (53.25, 36.652, 213.45, 142.351),
              "7x7->8x8": (49.98, 42.410, 199.93, 163.122)}
THESIS_EXEC = {"life": {5: (1.624, 6.453), 6: (1.130, 4.473), 7: (0.833, 3.302), 8: (0.640, 2.532)},
               "pdgemv": {5: (2.1, 8.7), 6: (1.5, 5.7), 7: (1.1, 4.2), 8: (1.8, 3.3)},
               "pdgemm": {5: (1146, 6778), 6: (1000, 5307), 7: (1048, 4891), 8: (1116, None)}}
# payoff (glob, loc) and resize cost (glob, loc) for N = 21000, then N = 42000
THESIS_PAYOFF = {"life": [(100, 84, 97, 78), (180, 124, 183, 122), (259, 220, 260, 211)],
                 "pdgemv": [(80, 68, 64, 51), (144, 99, 148, 99), (-68, -58, 203, 165)],
                 "pdgemm": [(1, 1, 1, 1), (-2, -1, 1, 1), (-1, -1, 1, 1)]}
THESIS_COST = {"life": [(44, 37, 43, 35), (64, 44, 65, 44), (79, 67, 79, 65)],
               "pdgemv": [(34, 29, 34, 27), (50, 34, 51, 34), (28, 24, 62, 51)],
               "pdgemm": [(1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)]}
# by power 4, 2, 2, 1 (the thesis's row order)
THESIS_T63 = {"alone": 94.12, "uniform": [23.32, 46.48, 46.68, 92.30], "proportional": [41.548, 41.256, 41.556, 41.356]}
# Tables 6.7 / 6.17: TPP -> (glob T_Th, glob actual, glob TPP used, loc T_Th, loc actual, loc TPP, mixed T_Th, mixed actual)
THESIS_T67 = {1600: (188.2, 201.1, 1597.5, 184.0, 178.6, 1528.2, 183.3, 179.8),
              1400: (264.9, 266.9, 1399.8, 215.9, 229.9, 1325.7, 214.9, 220.5),
              1200: (250.5, 243.8, 1198.7, 217.8, 215.6, 1180.9, 215.9, 215.5),
              1000: (274.3, 289.8, 999.1, 273.5, 272.6, 924.9, 272.7, 270.5),
              800: (309.6, 299.6, 799.9, 282.1, 277.0, 760.8, 282.1, 277),
              600: (357.4, 393.6, 590.6, 326.0, 330.7, 564, 326.2, 330),
              400: (488.2, 468.9, 398.6, 396.3, 384.2, 374.5, 396.3, 384.2),
              200: (508.5, 499.2, 186.6, 487.3, 491.4, 161.8, 487.3, 491.8)}
THESIS_T617 = {2000: (129.0, 123.8, 1984.84, 133.4, 134.8, 1975.44, 132.2, 132.5),
               1600: (160.0, 172.7, 1599.68, 176.4, 202.9, 1532.38, 170.7, 197.4),
               1400: (165.0, 174.6, 1399.82, 165.2, 174.2, 1374.43, 165.2, 174.2),
               1200: (178.6, 188.6, 1198.52, 184.1, 193.6, 1152.14, 184.1, 193.6),
               1000: (297.3, 295.2, 994.75, 204.6, 212.8, 926.65, 204.6, 212.8),
               800: (244.7, 252.9, 794.095, 234.8, 228.7, 725.82, 234.8, 228.7),
               600: (254.7, 256.8, 595.81, 250.7, 246.8, 567.88, 250.7, 246.8),
               400: (299.6, 300.4, 399.82, 298.4, 293.7, 361.87, 298.4, 293.7),
               200: (322.2, 313.8, 193.71, 331.9, 331.1, 189.32, 331.9, 331.1)}
THESIS_INITIAL_TTH = {"2a": 622.9, "2b": None}
# Table 6.20: TPP -> (glob T_Th s, glob grid, glob TPP used, loc T_Th s, loc grid, loc TPP used)
THESIS_T620 = [(30, 4.2, "3x5", 29.76, 4.2, "4x4", 28.25), (45, 2.9, "4x5", 44.71, 2.9, "5x5", 43.60),
               (28, 2.4, "4x6", 27.98, 2.5, "5x6", 22.26), (57, 1.7, "5x6", 56.77, 1.8, "6x8", 54.96)]


def grid_text(g):
    """A grid as "RxC": driver runs of schema 2 write {"rows": R, "cols": C}."""
    return f"{g['rows']}x{g['cols']}" if isinstance(g, dict) else g


def load(path):
    with open(path) as f:
        d = json.load(f)
    # a driver's run (schema malleable.run/2): grids back to "RxC" for the tables below
    if isinstance(d, dict) and str(d.get("schema", "")).startswith("malleable.run/"):
        for s in d.get("iterations", []) + d.get("segments", []):
            s["grid"] = grid_text(s["grid"])
        for r in d.get("resizes", []):
            r["from"], r["to"] = grid_text(r["from"]), grid_text(r["to"])
    return d


def fmt(x, nd=2):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return "never"
    return f"{x:.{nd}f}"


def pct_imp(slow, fast):
    """The thesis's %imp: how much longer the slower strategy takes, in % of the faster."""
    if slow is None or fast is None or fast <= 0:
        return None
    return 100.0 * (slow - fast) / fast


def merge_runs(reps):
    """Repeated runs of one resize schedule: per expansion the fastest t_r (the whole resize
    record of that run), per grid the mean of the runs' mean t_p."""
    out = {"resizes": [], "segments": []}
    for k in range(len(reps[0]["resizes"])):
        out["resizes"].append(min((d["resizes"][k] for d in reps), key=lambda r: r["t_redist_s"]))
    for k, seg in enumerate(reps[0]["segments"]):
        s = dict(seg)
        for key in ("mean_dedicated_s", "mean_wall_s", "median_dedicated_s", "median_wall_s"):
            if key in seg:
                s[key] = sum(d["segments"][k][key] for d in reps) / len(reps)
        # t_p: the median iteration time when the drivers report it (robust to one disturbed
        # iteration), else the mean
        s["tp_dedicated_s"] = s.get("median_dedicated_s", s["mean_dedicated_s"])
        s["tp_wall_s"] = s.get("median_wall_s", s["mean_wall_s"])
        out["segments"].append(s)
    out["runs"] = len(reps)
    return out


def table(headers, rows):
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


class Report:
    def __init__(self, raw, out, mode, seconds, root):
        self.raw, self.out, self.mode, self.seconds, self.root = raw, out, mode, seconds, root
        self.md = []
        self.checks = []  # (name, ok, detail)
        self.timing_checks = set()  # names of checks on measured times (never fail the run)
        self.summary = []  # one verdict per table group, computed from the data
        self.img = os.path.join(out, "img")

    def check(self, name, ok, detail="", timing=False):
        """A computed verdict. timing=True: it compares measured times (noisy on 2 shared
        cores); it is reported like the others but does not fail the run, which only data
        checks do (the project's rule: speed targets live in benchmarks, not in tests)."""
        self.checks.append((name, bool(ok), detail))
        if timing:
            self.timing_checks.add(name)

    def p(self, *lines):
        self.md.extend(lines)

    def gnuplot(self, name, script):
        path = os.path.join(self.img, name)
        full = (f'set terminal pngcairo size 900,560 font "Sans,10" noenhanced\nset output "{path}"\n'
                'set format y "%g"\nset grid\n' + script)
        script_path = os.path.join(self.raw, name + ".gp")
        with open(script_path, "w") as f:
            f.write(full)
        r = subprocess.run(["gnuplot", script_path], capture_output=True, text=True)
        if r.returncode != 0:
            self.check(f"plot {name}", False, r.stderr.strip()[:200])
            return None
        return f"img/{name}"

    def data(self, name, rows):
        path = os.path.join(self.raw, name)
        with open(path, "w") as f:
            for r in rows:
                f.write(" ".join("NaN" if v is None else str(v) for v in r) + "\n")
        return path

    # ---------------------------------------------------------------------------------
    def machine(self):
        cpu = "unknown"
        try:
            for line in open("/proc/cpuinfo"):
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        ncpu = os.cpu_count()
        mem = ""
        try:
            for line in open("/proc/meminfo"):
                if line.startswith("MemTotal"):
                    mem = f"{int(line.split()[1]) / 1048576:.1f} GiB"
        except OSError:
            pass
        mpi = subprocess.run(["mpiexec", "--version"], capture_output=True, text=True).stdout.splitlines()
        mpi = mpi[0] if mpi else "?"
        osname = ""
        try:
            for line in open("/etc/os-release"):
                if line.startswith("PRETTY_NAME"):
                    osname = line.split("=", 1)[1].strip().strip('"')
        except OSError:
            pass
        git = subprocess.run(["git", "-C", self.root, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        ls = open(os.path.join(self.raw, "load_start.txt")).read().strip()
        le = open(os.path.join(self.raw, "load_end.txt")).read().strip()
        load1 = float(re.search(r"load average: ([\d.]+)", ls).group(1))
        self.ncpu = ncpu
        self.p(f"- machine: `{platform.node()}`, {ncpu} hardware threads (`nproc`), CPU `{cpu}`, {mem} RAM, {osname}",
               f"- MPI: {mpi}; every run is `mpiexec --oversubscribe --bind-to none -n K` with "
               "`OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 "
               "OMPI_MCA_btl_vader_single_copy_mechanism=none OPENBLAS_NUM_THREADS=1`",
               f"- K ranges from 1 to {self.max_ranks()} ranks on {ncpu} cores: every run with more than {ncpu} "
               f"ranks is **oversubscribed** ({self.max_ranks() / ncpu:.1f}x at most)",
               f"- source: git `{git}`; mode `{self.mode}`; the whole script took {self.seconds} s; "
               f"generated {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
               f"- load at start: `{ls}`", f"- load at end: `{le}`")
        if load1 > 0.75 * ncpu:
            self.p("- **The machine was otherwise loaded while these numbers were measured** (other builds and "
                   "test runs shared the cores; 1-minute load average above at the start). Times are noisier and "
                   "longer than on an idle machine; ratios measured side by side in one job are the robust part.")

    def max_ranks(self):
        best = 1
        for f in glob.glob(os.path.join(self.raw, "resize_*_r*.json")):
            best = max([best] + [seg["procs"] for seg in load(f)["segments"]])
        for line in open(os.path.join(self.raw, "commands.tsv")):
            m = re.search(r" -n (\d+) ", line.split("\t")[3])
            if m and "mpiexec" in line:
                best = max(best, int(m.group(1)))
        return best

    # ---------------------------------------------------------------------------------
    def table41(self):
        rows = load(os.path.join(self.raw, "table41.json"))["table41"]
        self.p("## Table 4.1 - data moved, Local1 vs Local2 (and Global, optimal)", "",
               "A p x p grid in block distribution (one block per process row/column, §4.5) of an N x N matrix "
               f"(N = {rows[0]['n']}, divisible by every p and p + r) grows by r process columns. **Exact** element "
               "counts come from redist's plan (`gridmap::account`), not from a formula; beside them the thesis's "
               "closed forms (§4.5) and the thesis's Table 4.1 ratio.", "")
        lab = {}
        hdr = ["p", "r", "Local1 moved", "Local2 moved", "Global moved", "optimal moved", "exact L1/L2",
               "closed-form L1/L2", "thesis L1/L2", "Global/Local2", "verdict"]
        out = []
        plot = {}
        for r in rows:
            p, rr = r["p"], r["r"]
            key = "r = p" if rr == p else "r = p/2" if 2 * rr == p else "r = p/4" if 4 * rr == p else "r = 1" if rr == 1 else None
            exact = r["moved_local1"] / r["moved_local2"]
            closed = r["closed_ratio"]
            thesis = THESIS_T41.get(key)
            integral = p % (2 * rr) == 0  # the Local2 closed form is exact when p/2r is an integer
            ok_l1 = abs(r["moved_local1"] - r["closed_local1"]) <= 1e-9 * r["closed_local1"]
            ok_l2 = (not integral) or abs(r["moved_local2"] - r["closed_local2"]) <= 1e-9 * r["closed_local2"]
            self.check(f"Table 4.1 p={p} r={rr}: Local2 moves less than Local1", r["moved_local2"] < r["moved_local1"])
            self.check(f"Table 4.1 p={p} r={rr}: optimal moves no more than Local2", r["moved_optimal"] <= r["moved_local2"])
            self.check(f"Table 4.1 p={p} r={rr}: exact Local1 equals the closed form n(2nr-n)/2r", ok_l1)
            if integral:
                self.check(f"Table 4.1 p={p} r={rr}: exact Local2 equals the closed form (p/2r integral)", ok_l2)
            if integral:
                verdict = "exact = closed form"
            else:
                verdict = (f"closed form undercounts Local2 by {100 * (1 - r['closed_local2'] / r['moved_local2']):.0f}% "
                           "(p/2r not integral)")
            if thesis and p == max(x["p"] for x in rows):
                verdict += f"; thesis {thesis} vs ours {exact:.2f}"
            out.append([p, f"{rr} ({key})" if key else rr, r["moved_local1"], r["moved_local2"], r["moved_global"],
                        r["moved_optimal"], f"{exact:.2f}", f"{closed:.2f}", thesis if thesis else "-",
                        f"{r['moved_global'] / r['moved_local2']:.2f}", verdict])
            if key:
                plot.setdefault(key, []).append((p, exact, closed))
        self.p(table(hdr, out), "")
        maxp = max(x["p"] for x in rows)
        top = {}
        for x in rows:
            if x["p"] == maxp:
                k = ("r = p" if x["r"] == maxp else "r = p/2" if 2 * x["r"] == maxp else
                     "r = p/4" if 4 * x["r"] == maxp else "r = 1")
                top[k] = x["moved_local1"] / x["moved_local2"]
        t41_ok = all(ok for n, ok, _ in self.checks if n.startswith("Table 4.1"))
        self.summary.append(
            f"**Table 4.1 - {'match' if t41_ok else 'MISS'}.** Exact plan counts equal the thesis's closed forms "
            "wherever its derivation is exact (Local1 always, Local2 when p/2r is an integer); at p = "
            f"{maxp} the exact Local1/Local2 ratios are " + ", ".join(f"{k}: {v:.2f}" for k, v in top.items()) +
            " vs the thesis's 2.6 / 3 / 3.3 / 2, which are the p -> infinity limits (8/3, 3, 10/3, 2) of its "
            "formulas. For r = p the thesis's Local2 formula undercounts (half a processor per division), so the "
            "true ratio stays below 2.6. Local2 < Local1 and optimal <= Local2 in every case; the optimal "
            "assignment finds exactly Local2's volume (Local2 is already optimal for these expansions).")
        gl = [x["moved_global"] / x["moved_local2"] for x in rows]
        opt_eq = sum(1 for x in rows if x["moved_optimal"] == x["moved_local2"])
        self.p(f"Verdict: **{'match' if t41_ok else 'MISS'}** (every check below passes: "
               f"{'yes' if t41_ok else 'no'}). Local2 never moves more than Local1; the optimal placement (linear "
               f"assignment on the overlap) equals Local2's volume in {opt_eq} of {len(rows)} cases and is never worse; "
               f"Global moves {min(gl):.1f}x to {max(gl):.1f}x Local2's data.", "")
        # plot
        lines = []
        for i, (key, pts) in enumerate(sorted(plot.items())):
            path = self.data(f"t41_{i}.dat", sorted(pts))
            lines.append(f'"{path}" using 1:2 with linespoints lw 2 title "exact, {key}"')
            lines.append(f'"{path}" using 1:3 with lines dt 2 title "closed form, {key}"')
        img = self.gnuplot("table41_ratio.png", "set title 'Table 4.1: Local1/Local2 data moved vs p'\n"
                           "set xlabel 'p (initial p x p grid)'\nset ylabel 'Local1 / Local2'\nset logscale x 2\n"
                           "set key outside right\nplot " + ", ".join(lines) + "\n")
        if img:
            self.p(f"![Table 4.1 ratios]({img})", "")

    # ---------------------------------------------------------------------------------
    def redist(self):
        files = sorted(glob.glob(os.path.join(self.raw, "redist_*.json")))
        runs = [load(f) for f in files]
        self.p("## Tables 4.2 / 4.3 - redistribution time, Local1 / Local2 / Global", "",
               "One job per (N, transition) runs every placement with every redist schedule and ScaLAPACK's "
               "PDGEMR2D (the caterpillar the thesis used), best of the repetitions, max over ranks, wall seconds. "
               "Block distribution (one block per process row/column) on both grids. `memcpy floor` = time to "
               "memcpy all moved bytes on one core. `default` is redist's measured default schedule. "
               f"Sizes are scaled from the thesis's 12000-24000 to what {self.ncpu} oversubscribed cores allow; "
               "compare ratios, not absolute seconds.", "")
        scheds = ["caterpillar", "circulant", "matching", "allatonce", "default", "pdgemr2d"]
        hdr = ["N", "P1->P2", "placement", "MiB moved", "msgs"] + scheds + ["memcpy floor", "PDGEMR2D / default"]
        rows = []
        summary = []
        speedups = []
        for d in runs:
            p1 = str(int(d["from"].split("x")[0]) * int(d["from"].split("x")[1]))
            p2 = str(int(d["to"].split("x")[0]) * int(d["to"].split("x")[1]))
            self.check(f"redist N={d['n']} {p1}->{p2}: every schedule and PDGEMR2D delivered the right matrix",
                       d["wrong_elements"] == 0, f"{d['wrong_elements']} wrong elements")
            by = {}
            for c in d["cases"]:
                t = {r["schedule"]: r.get("best_s") for r in c["runs"]}
                by[c["placement"]] = (c, t)
                sp = t["pdgemr2d"] / t["default"] if t.get("default") and t.get("pdgemr2d") else None
                if sp:
                    speedups.append(sp)
                rows.append([d["n"], f"{p1}->{p2}", c["placement"], f"{c['bytes_moved'] / 2**20:.1f}", c["messages"]]
                            + [fmt(t.get(s), 3) for s in scheds] + [fmt(c["memcpy_floor_s"], 4), fmt(sp, 2)])
            if "local1" in by and "local2" in by:
                self.check(f"redist N={d['n']} {p1}->{p2}: Local2 moves less data than Local1",
                           by["local2"][0]["bytes_moved"] < by["local1"][0]["bytes_moved"])
            if "global" in by and "local2" in by:
                self.check(f"redist N={d['n']} {p1}->{p2}: Local2 moves less data than Global",
                           by["local2"][0]["bytes_moved"] < by["global"][0]["bytes_moved"])
            best = {pl: min(v for k, v in t.items() if v is not None and k != "pdgemr2d") for pl, (c, t) in by.items()}
            summary.append((d["n"], p1, p2, by, best))
        self.p(table(hdr, rows), "")
        # %imp table in the thesis's form
        self.p("Percentage improvement of Local2 (the thesis's %imp = (T_other - T_Local2) / T_Local2), with "
               "PDGEMR2D as the thesis measured it and with our best schedule; thesis values at N = 12000 / 18000 / "
               "24000 quoted for the same transition.", "")
        hdr = ["N", "P1->P2", "PDGEMR2D: L1 / L2 / Glob (s)", "%imp vs L1", "%imp vs Glob",
               "best schedule: L1 / L2 / Glob (s)", "%imp vs L1", "%imp vs Glob", "thesis %imp vs L1 (12k/18k/24k)",
               "thesis %imp vs Glob"]
        rows = []
        for n, p1, p2, by, best in summary:
            t = {pl: by[pl][1]["pdgemr2d"] for pl in by}
            th = THESIS_T42.get((p1, p2))
            th1 = " / ".join(f"{pct_imp(v[0], v[1]):.0f}" for v in th.values()) if th else "-"
            th2 = " / ".join(f"{pct_imp(v[2], v[1]):.0f}" for v in th.values()) if th else "-"
            rows.append([n, f"{p1}->{p2}", f"{t['local1']:.3f} / {t['local2']:.3f} / {t['global']:.3f}",
                         fmt(pct_imp(t["local1"], t["local2"]), 0), fmt(pct_imp(t["global"], t["local2"]), 0),
                         f"{best['local1']:.3f} / {best['local2']:.3f} / {best['global']:.3f}",
                         fmt(pct_imp(best["local1"], best["local2"]), 0), fmt(pct_imp(best["global"], best["local2"]), 0),
                         th1, th2])
        self.p(table(hdr, rows), "")
        if speedups:
            self.p(f"redist's default schedule vs PDGEMR2D over all {len(speedups)} cases: "
                   f"min {min(speedups):.2f}x, median {sorted(speedups)[len(speedups) // 2]:.2f}x, "
                   f"max {max(speedups):.2f}x faster.", "")
        imps_l1 = [pct_imp(b["local1"], b["local2"]) for _, _, _, _, b in summary]
        imps_g = [pct_imp(b["global"], b["local2"]) for _, _, _, _, b in summary]
        pd_l1 = [pct_imp(by["local1"][1]["pdgemr2d"], by["local2"][1]["pdgemr2d"]) for _, _, _, by, _ in summary]
        pd_g = [pct_imp(by["global"][1]["pdgemr2d"], by["local2"][1]["pdgemr2d"]) for _, _, _, by, _ in summary]
        faster = sum(1 for x in imps_l1 + imps_g if x > 0)
        self.summary.append(
            f"**Tables 4.2 / 4.3 - Local2 fastest in {faster} of {len(imps_l1) + len(imps_g)} comparisons.** With our "
            f"best schedule Local2 beats Local1 by {min(imps_l1):.0f}% to {max(imps_l1):.0f}% and Global by "
            f"{min(imps_g):.0f}% to {max(imps_g):.0f}%; with PDGEMR2D (as the thesis measured) by {min(pd_l1):.0f}% to "
            f"{max(pd_l1):.0f}% and {min(pd_g):.0f}% to {max(pd_g):.0f}% (thesis: 18% to 47% vs Local1, 12% to 87% vs "
            "Global). Local2 moves less data in every case. redist's default schedule runs at "
            f"{min(speedups):.1f}x to {max(speedups):.1f}x the speed of PDGEMR2D in the same job (median "
            f"{sorted(speedups)[len(speedups) // 2]:.1f}x; the target is 2x: {sum(1 for x in speedups if x < 2.0)} of "
            f"{len(speedups)} cases are below it). Why magnitudes differ: on 2 "
            "cores with shared memory a transfer is a memory copy by oversubscribed ranks, so the total copy work and "
            "the time-slicing of 9-16 ranks on 2 cores bound the time, not the busiest process's network link as on "
            "the thesis's Ethernet cluster.")
        self.redist_verdict = (summary, speedups)
        # plots: time vs N per schedule, per transition
        for p1, p2 in sorted({(s[1], s[2]) for s in summary}):
            pts = sorted([s for s in summary if s[1] == p1 and s[2] == p2], key=lambda s: s[0])
            lines = []
            for pl, dash in (("local2", 1), ("global", 2)):
                rowsd = []
                for n, _, _, by, _ in pts:
                    c, t = by[pl]
                    rowsd.append([n] + [t.get(s) for s in scheds] + [c["memcpy_floor_s"]])
                path = self.data(f"redist_{p1}_{p2}_{pl}.dat", rowsd)
                for k, s in enumerate(scheds):
                    lines.append(f'"{path}" using 1:{k + 2} with linespoints dt {dash} lc {k + 1} lw 2 '
                                 f'title "{s}, {pl}"')
                if pl == "local2":
                    lines.append(f'"{path}" using 1:{len(scheds) + 2} with linespoints dt 3 lc rgb "black" '
                                 f'title "memcpy floor, local2"')
            img = self.gnuplot(f"redist_{p1}to{p2}.png",
                               f"set title 'Redistribution {p1} -> {p2} processes: time vs N (solid Local2, dashed Global)'\n"
                               "set xlabel 'N'\nset ylabel 'seconds (best of reps, max over ranks)'\nset logscale y\n"
                               "set key outside right\nplot " + ", ".join(lines) + "\n")
            if img:
                self.p(f"![redistribution {p1}->{p2}]({img})", "")

    def split(self):
        runs = [load(f) for f in sorted(glob.glob(os.path.join(self.raw, "redist_2x2_3x3_*.json")))]
        runs = [d for d in runs if any("split" in r for c in d["cases"] for r in c["runs"])]
        if not runs:
            return
        d = runs[-1]
        self.p(f"## Tables 4.4-4.6 - per process waiting vs transferring (N = {d['n']}, 4 -> 9)", "",
               "The thesis measured 15000 x 15000 with the caterpillar; we scale N down. redist's executor, with "
               "`split_wait_transfer`, exchanges an empty message with each step's partners before moving data, so "
               "per process the time until its partners are ready (T_sync) is measured apart from the time moving "
               "data (T_transfer, local copies included). The same placements are run with the caterpillar schedule "
               "(as the thesis), with the contention-free matching schedule the thesis proposed, and with all "
               "transfers posted at once (no steps, so no per-step waiting). Times in ms.", "")
        res = {}
        for c in d["cases"]:
            if c["placement"] not in ("global", "local1", "local2"):
                continue
            for r in c["runs"]:
                if "split" in r:
                    res[(c["placement"], r["schedule"])] = r["split"]
        for pl in ("global", "local2", "local1"):
            tnum = {"global": "4.4", "local2": "4.5", "local1": "4.6"}[pl]
            hdr = ["proc", "thesis total / sync / transfer (s)"]
            sch = [s for s in ("caterpillar", "matching", "allatonce") if (pl, s) in res]
            for s in sch:
                hdr.append(f"{s}: total / sync / transfer (ms)")
            rows = []
            for k in range(9):
                th = THESIS_SPLIT[pl][k]
                row = [k, f"{th[0]} / {th[1]} / {th[2]}"]
                for s in sch:
                    sp = res[(pl, s)]
                    row.append(f"{1e3 * sp['total_s'][k]:.1f} / {1e3 * sp['wait_s'][k]:.1f} / {1e3 * sp['transfer_s'][k]:.1f}")
                rows.append(row)
            self.p(f"**Table {tnum} ({pl})**", "", table(hdr, rows), "")
        # the 160% claim
        self.p("### The thesis's prediction: Local2 160% better than Global if waiting vanished", "",
               "The thesis took the maximum T_transfer per placement (Global 39.8 s, Local1 33.6 s, Local2 15.3 s) and "
               "predicted Local2 would beat Global by 160% and Local1 by 120% once synchronisation waiting was gone. "
               "Ours, from the same split measurement and from the actual redistribution time of the best schedule:", "")
        rows = []
        best = {}
        for c in d["cases"]:
            best[c["placement"]] = min((r["best_s"], r["schedule"]) for r in c["runs"] if r.get("best_s"))
        for s in ("caterpillar", "matching", "allatonce"):
            if ("global", s) in res and ("local2", s) in res and ("local1", s) in res:
                mg = max(res[("global", s)]["transfer_s"])
                m2 = max(res[("local2", s)]["transfer_s"])
                m1 = max(res[("local1", s)]["transfer_s"])
                wg = max(res[("global", s)]["wait_s"])
                w2 = max(res[("local2", s)]["wait_s"])
                rows.append([f"max T_transfer, {s}", f"{1e3 * mg:.1f} / {1e3 * m1:.1f} / {1e3 * m2:.1f} ms",
                             f"{pct_imp(mg, m2):.0f}%", f"{pct_imp(m1, m2):.0f}%",
                             f"max T_sync Global {1e3 * wg:.1f} ms, Local2 {1e3 * w2:.1f} ms"])
        rows.append(["actual time, best schedule",
                     f"{1e3 * best['global'][0]:.1f} ({best['global'][1]}) / {1e3 * best['local1'][0]:.1f} "
                     f"({best['local1'][1]}) / {1e3 * best['local2'][0]:.1f} ({best['local2'][1]}) ms",
                     f"{pct_imp(best['global'][0], best['local2'][0]):.0f}%",
                     f"{pct_imp(best['local1'][0], best['local2'][0]):.0f}%", ""])
        rows.append(["thesis (prediction)", "39.8 / 33.6 / 15.3 s", "160%", "120%", ""])
        self.p(table(["measure", "Global / Local1 / Local2", "Local2 vs Global", "Local2 vs Local1", "note"], rows), "")
        self.split_result = (best, res)
        moved = {c["placement"]: c["bytes_moved"] for c in d["cases"]}
        cat = [pl for pl in ("global", "local1", "local2") if (pl, "caterpillar") in res]
        share = max((max(res[(pl, "caterpillar")]["wait_s"]) / max(res[(pl, "caterpillar")]["total_s"]) for pl in cat),
                    default=0)
        self.summary.append(
            "**Tables 4.4-4.6 - the thesis's diagnosis holds; its 160% prediction is not reached here.** With the "
            f"caterpillar, the most-waiting process waits {100 * share:.0f}% of the slowest process's time (thesis: "
            "41.4 of 54.4 s, 76%); the matching and all-at-once schedules cut the waiting. Local2 vs Global with the "
            f"best schedule: {pct_imp(best['global'][0], best['local2'][0]):.0f}% (thesis predicted 160%); vs Local1 "
            f"{pct_imp(best['local1'][0], best['local2'][0]):.0f}% (predicted 120%). The prediction assumes time "
            "proportional to the busiest process's data over its own link; here 9 ranks share 2 cores and one memory "
            f"system, so the total bytes copied bound the time, and Global moves only {moved['global'] / moved['local2']:.2f}x "
            f"Local2's bytes (Local1 {moved['local1'] / moved['local2']:.2f}x).")

    # ---------------------------------------------------------------------------------
    def topologies(self):
        self.p("## Tables 5.1 / 5.2 - PDGETRF and PDGEMM on the topologies of 9, 12 and 14 processes", "",
               f"**{self.ncpu} cores cannot show compute scaling past {self.ncpu} processes**: the wall time of a "
               "9-14 rank job on them measures oversubscription, not the topology. So each cell gives the "
               "*dedicated-core estimate* (max over ranks of the process CPU time per iteration, what one core per "
               "rank would take; it includes the CPU a rank burns while polling for messages) and, after the "
               "slash, the wall time. Seconds per iteration (for PDGETRF one factorisation + solve). N scaled "
               "from 9000-36000 to what fits here. The thesis's seconds are quoted below each block.", "")
        for app, thesis in (("pdgetrf", THESIS_T51), ("pdgemm", THESIS_T52)):
            files = glob.glob(os.path.join(self.raw, f"topo_{app}_n*_*.json"))
            ns = sorted({int(re.search(r"_n(\d+)_", f).group(1)) for f in files})
            rows = []
            ded_by_n = {}
            for n in ns:
                row = [f"ours N={n}"]
                ded = {}
                for g in TOPOS:
                    f = os.path.join(self.raw, f"topo_{app}_n{n}_{g}.json")
                    if not os.path.exists(f):
                        row.append("-")
                        continue
                    d = load(f)
                    self.check(f"{app} N={n} on {g}: result check", d["check"]["ok"], d["check"]["message"])
                    seg = d["segments"][-1]
                    ded[g] = seg["mean_dedicated_s"]
                    row.append(f"{seg['mean_dedicated_s']:.3f} / {seg['mean_wall_s']:.3f}")
                ded_by_n[n] = ded
                rows.append(row)
            for n, vals in thesis.items():
                rows.append([f"thesis N={n}"] + [str(v) for v in vals])
            self.p(f"**{'Table 5.1 (PDGETRF)' if app == 'pdgetrf' else 'Table 5.2 (PDGEMM)'}**", "",
                   table(["", *TOPOS], rows), "")
            # verdicts on the orderings the thesis draws
            verdicts = []
            for n, ded in ded_by_n.items():
                if len(ded) < len(TOPOS):
                    continue
                bestg = min(ded, key=ded.get)
                worst = max(ded, key=ded.get)
                hz = sum(1 for a, b in (("2x6", "6x2"), ("1x12", "12x1"), ("2x7", "7x2")) if ded[a] < ded[b])
                sq = min(ded["4x3"], ded["3x4"]) < min(ded["6x2"], ded["2x6"], ded["12x1"], ded["1x12"])
                verdicts.append(f"N={n}: fastest {bestg}, slowest {worst}; near-square 12-process grid beats the "
                                f"elongated ones: {'yes' if sq else 'no'}; horizontally dominant wins {hz} of 3 pairs")
            thesis_best = {k: TOPOS[v.index(min(v))] for k, v in thesis.items()}
            self.summary.append(f"**Table {'5.1 (PDGETRF)' if app == 'pdgetrf' else '5.2 (PDGEMM)'} - qualitative "
                                "only** (2 cores cannot show compute scaling; dedicated-core estimate): "
                                + "; ".join(verdicts) + ". Thesis: fastest "
                                + ", ".join(f"{g} at N={n}" for n, g in thesis_best.items()) + ".")
            self.p("Ours (dedicated-core estimate): " + "; ".join(verdicts) + ".",
                   "Thesis: fastest " + ", ".join(f"{g} at N={n}" for n, g in thesis_best.items()) +
                   "; 12x1 slowest everywhere (PDGETRF); horizontally dominant grids preferred.", "")

    # ---------------------------------------------------------------------------------
    def resizes(self):
        self.p("## Tables 5.3-5.12 - expansions: redistribution time, time per iteration, payoff point, resize cost", "",
               "The thesis expands 5x5 -> 6x6 -> 7x7 -> 8x8 at N = 21000 / 42000. We expand "
               + " -> ".join(self.grids()) + " at the scaled sizes below, with Global and with Local2 "
               f"placement. Every job starts with {self.resize_world()}. Payoff point = "
               "ceil(t_r / (t_p1 - t_p2)), resize cost = ceil(t_r / t_p2) (§5.3), with t_r the redistribution time - "
               "what the thesis's own numbers use (Table 5.5: 48.94 s / (1.624 - 1.130) s = 99.1 -> 100; Table 5.6: "
               "48.94 / 1.130 -> 44) - and t_p the mean time per iteration on a grid; the whole resize time t_r "
               "(spawn + redistribution + other, DRMS split) is shown beside it. On "
               f"{self.ncpu} cores the wall-clock t_p *grows* with the grid, so the wall payoff is 'never'; the "
               "payoff and cost below use the **dedicated-core estimate** of t_p (max per-rank CPU time) and the "
               "measured wall t_r. As in the thesis (whose Tables 5.5/5.6 use one execution time per grid from Tables "
               "5.4/5.7/5.10), both placements use the same t_p per grid: the mean over all runs of both placements. "
               "Each schedule runs several times (Global and Local2 alternating, see the command list); t_r is the "
               "fastest redistribution of those runs for that expansion. Single values stay noisy on this oversubscribed machine.", "")
        apps = ["life", "pdgemv", "pdgemm"]
        plot_rows = {}
        stats = {}
        for app in apps:
            files = glob.glob(os.path.join(self.raw, f"resize_{app}_n*_global_r*.json"))
            ns = sorted({int(re.search(r"_n(\d+)_", f).group(1)) for f in files})
            rows = []
            for n in ns:
                merged = {}
                for pl in ("global", "local2"):
                    reps = [load(f) for f in sorted(glob.glob(os.path.join(self.raw, f"resize_{app}_n{n}_{pl}_r*.json")))]
                    for d in reps:
                        self.check(f"{app} N={n} {pl}: result check after resizes", d["check"]["ok"], d["check"]["message"])
                        okres = all(r["ok"] for r in d["resizes"])
                        self.check(f"{app} N={n} {pl}: every expansion succeeded", okres and len(d["resizes"]) > 0)
                    merged[pl] = merge_runs(reps)
                g, l = merged["global"], merged["local2"]
                segs_g = {s["grid"]: s for s in g["segments"]}
                segs_l = {s["grid"]: s for s in l["segments"]}
                for k, (rg, rl) in enumerate(zip(g["resizes"], l["resizes"])):
                    ch = f"{rg['from']}->{rg['to']}"
                    # As the thesis (Tables 5.4-5.6): one t_p per grid for both placements - here the mean
                    # of the two runs' dedicated-core means - and each placement's own t_r.
                    tp1 = (segs_g[rg["from"]]["tp_dedicated_s"] + segs_l[rg["from"]]["tp_dedicated_s"]) / 2
                    tp2 = (segs_g[rg["to"]]["tp_dedicated_s"] + segs_l[rg["to"]]["tp_dedicated_s"]) / 2
                    tpay = THESIS_PAYOFF[app][k] if k < 3 else None
                    tcost = THESIS_COST[app][k] if k < 3 else None
                    thesis_ch = ["5x5->6x6", "6x6->7x7", "7x7->8x8"][k] if k < 3 else "-"
                    # t_r = the redistribution time, as the thesis's own numbers imply (Table 5.5:
                    # 48.94 / (1.624 - 1.130) = 99.1 -> 100; Table 5.6: 48.94 / 1.130 -> 44).
                    pg = math.ceil(rg["t_redist_s"] / (tp1 - tp2)) if tp1 > tp2 else None
                    pl_ = math.ceil(rl["t_redist_s"] / (tp1 - tp2)) if tp1 > tp2 else None
                    cg, cl = math.ceil(rg["t_redist_s"] / tp2), math.ceil(rl["t_redist_s"] / tp2)
                    imp_p = pct_imp(pg, pl_) if (pg and pl_ and pg > 0 and pl_ > 0) else None
                    rows.append([n, ch, f"{rg['bytes_moved'] / 2**20:.1f} / {rl['bytes_moved'] / 2**20:.1f}",
                                 f"{1e3 * rg['t_redist_s']:.1f} / {1e3 * rl['t_redist_s']:.1f}",
                                 f"{1e3 * rg['t_total_s']:.0f} / {1e3 * rl['t_total_s']:.0f} (spawn {1e3 * rg['t_spawn_s']:.0f} / {1e3 * rl['t_spawn_s']:.0f})",
                                 f"{1e3 * segs_g[rg['from']]['tp_dedicated_s']:.2f} -> {1e3 * segs_g[rg['to']]['tp_dedicated_s']:.2f} ; "
                                 f"{1e3 * segs_l[rg['from']]['tp_dedicated_s']:.2f} -> {1e3 * segs_l[rg['to']]['tp_dedicated_s']:.2f}",
                                 f"{1e3 * segs_g[rg['from']]['tp_wall_s']:.1f} -> {1e3 * segs_g[rg['to']]['tp_wall_s']:.1f}",
                                 f"{fmt(pg, 0) if pg is not None else 'never'} / {fmt(pl_, 0) if pl_ is not None else 'never'}",
                                 fmt(imp_p, 0),
                                 f"{fmt(cg, 0)} / {fmt(cl, 0)}",
                                 thesis_ch,
                                 f"{tpay[0]} / {tpay[1]} ; {tpay[2]} / {tpay[3]}" if tpay else "-",
                                 f"{tcost[0]} / {tcost[1]} ; {tcost[2]} / {tcost[3]}" if tcost else "-"])
                    plot_rows.setdefault((app, n), []).append((k, ch, pg, pl_))
                    stats.setdefault(app, []).append((rg["bytes_moved"], rl["bytes_moved"], rg["t_redist_s"],
                                                      rl["t_redist_s"], pg, pl_, cg, cl))
            hdr = ["N", "expansion", "MiB moved G / L", "t_redist G / L (ms)", "whole resize G / L (ms)",
                   "t_p dedicated (ms): G run ; L run", "t_p wall (ms, G run)", "payoff G / L (dedicated)",
                   "%imp payoff", "resize cost G / L", "thesis expansion", "thesis payoff G / L (21k ; 42k)",
                   "thesis cost G / L (21k ; 42k)"]
            self.p(f"**{app}**", "", table(hdr, rows), "")
        # thesis Table 5.3 and exec tables quoted
        self.p("Thesis, quoted: Table 5.3 redistribution Tglo / Tloc (s) at 21000: " +
               ", ".join(f"{k} {v[0]} / {v[1]}" for k, v in THESIS_T53.items()) + "; at 42000: " +
               ", ".join(f"{k} {v[2]} / {v[3]}" for k, v in THESIS_T53.items()) + ". Execution time per iteration "
               "(Tables 5.4, 5.7, 5.10) on 5x5 / 6x6 / 7x7 / 8x8 at 21000: " +
               "; ".join(f"{a} " + " / ".join(str(v[0]) for v in THESIS_EXEC[a].values()) for a in apps) + " s.", "")
        self.resize_plot = plot_rows
        parts = []
        for app in apps:
            st = stats.get(app, [])
            if not st:
                continue
            less = sum(1 for x in st if x[1] < x[0])
            fast = sum(1 for x in st if x[3] < x[2])
            pays = [v for x in st for v in (x[4], x[5]) if v is not None]
            never = sum(1 for x in st for v in (x[4], x[5]) if v is None)
            better = sum(1 for x in st if x[4] is not None and x[5] is not None and x[5] <= x[4])
            parts.append(f"{app}: Local2 moves less data in {less} of {len(st)} expansions and redistributes faster in "
                         f"{fast} of {len(st)}; dedicated-core payoff {min(pays) if pays else '-'} to "
                         f"{max(pays) if pays else '-'} iterations ({never} 'never'), Local2's payoff no worse than "
                         f"Global's in {better} of {len(st)}")
        self.summary.append(
            "**Tables 5.3-5.12 - shape partly reproduced, on the dedicated-core clock only.** " + "; ".join(parts) +
            ". Thesis: Local beats Global on every expansion (payoff 17% to 50% better for Life and PDGEMV; PDGEMM pays "
            "off in 1 iteration either way). Where we differ, why: our t_r are milliseconds to a few hundred "
            "milliseconds on an oversubscribed, loaded machine, so single expansions can reverse; the dedicated-core "
            "t_p of PDGEMV (one matrix-vector product per iteration, little work) is dominated by communication and "
            "the CPU a waiting rank burns, so it barely falls with the grid; PDGEMM's t_p is large, so its payoff is "
            "short whatever the placement; and on the wall clock no expansion pays off, as more ranks than cores "
            "cannot run faster.")
        # one colour per (program, N), as scripts/bench/scale_payoff.py payoff-plot draws it from the tables
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import scale_payoff  # its payoff-plot part (script: the gnuplot commands)
        paths = {key: self.data(f"payoff_{key[0]}_{key[1]}.dat", [(i + 1, pg, pl) for i, ch, pg, pl in pts])
                 for key, pts in plot_rows.items()}
        img = self.gnuplot("payoff.png", scale_payoff.script(plot_rows, self.changes(), lambda app, n: paths[(app, n)]))
        if img:
            self.p(f"![payoff point per expansion]({img})", "")

    def resize_world(self):
        """How the drivers grew: spawning (blacs-dyn) or inside a fixed world."""
        path = os.path.join(self.raw, "resize_world.txt")
        how, _, world = (open(path).read().strip() if os.path.exists(path) else "? ?").partition(" ")
        spawn = 0.0
        nps = set()
        for f in glob.glob(os.path.join(self.raw, "resize_*_r*.json")):
            spawn = max([spawn] + [r.get("t_spawn_s", 0) for r in load(f)["resizes"]])
        for line in open(os.path.join(self.raw, "commands.tsv")):
            if line.startswith("resize_"):
                m = re.search(r" -n (\d+) ", line)
                if m:
                    nps.add(m.group(1))
        if how == "spawn":
            return (f"{'/'.join(sorted(nps))} ranks and grows by MPI_Comm_spawn through blacs-dyn (REPRO_SPAWN=1; "
                    f"the drivers report their world as '{world}'); spawning takes up to {1e3 * spawn:.0f} ms per "
                    "expansion here")
        return (f"all {'/'.join(sorted(nps))} ranks up front and the grid grows inside that world, nothing is "
                f"spawned (drivers' world backend: '{world}'). Open MPI 4.1.4 + PMIx 4.2 hang in about one "
                "MPI_Comm_spawn in 10-20 on this host (docs/reference/blacs-dyn.md), and the thesis's payoff uses only the "
                "redistribution time; `REPRO_SPAWN=1 scripts/bench/reproduce.sh` grows by spawning instead. "
                "PDGEMV and PDGEMM use `--dist block` (one block per process row/column, the thesis's layout)")

    def grids(self):
        f = sorted(glob.glob(os.path.join(self.raw, "resize_life_n*_global_r*.json")))
        if not f:
            return []
        d = load(f[0])
        return [s["grid"] for s in d["segments"]]

    def changes(self):
        g = self.grids()
        return [f"{a}->{b}" for a, b in zip(g, g[1:])]

    # ---------------------------------------------------------------------------------
    def table63(self):
        self.p("## Table 6.3 - uniform vs power-proportional distribution, powers 1, 2, 2, 4", "")
        m = load(os.path.join(self.raw, "t63_map.json"))["mapping"]
        self.p(f"gridmap's mapping of powers 1, 2, 2, 4 on 2x2, N = 2000: rows {m['rows']}, columns {m['cols']} "
               "(thesis Table 6.2b: 667 / 1333 both ways).", "")
        self.check("Table 6.2b: gridmap gives rows and columns 667 / 1333",
                   m["rows"] == [667, 1333] and m["cols"] == [667, 1333], f"{m['rows']} {m['cols']}")
        pa = os.path.join(self.raw, "t63_alone.json")
        pb = os.path.join(self.raw, "t63_both.json")
        if not (os.path.exists(pa) and os.path.exists(pb)):
            self.p("(apps' life_hetero was not built; measured columns skipped)", "")
            return
        alone = load(pa)[0]
        both = {r["mode"]: r for r in load(pb)}
        u = {q["power"]: [] for q in both["uniform"]["ranks"]}
        rows = []
        order = sorted(range(4), key=lambda k: -both["uniform"]["ranks"][k]["power"])
        th_i = 0
        for k in order:
            qu = both["uniform"]["ranks"][k]
            qp = both["proportional"]["ranks"][k]
            rows.append([qu["power"], f"{alone['ranks'][0]['update_ms']:.2f}" if th_i == 0 else "-",
                         f"{qu['update_ms']:.2f} ({qu['rows']}x{qu['cols']})", f"{qp['update_ms']:.2f} ({qp['rows']}x{qp['cols']})",
                         THESIS_T63["alone"] if th_i == 0 else "-", THESIS_T63["uniform"][th_i], THESIS_T63["proportional"][th_i]])
            th_i += 1
        self.p("Per-process update time per generation (ms, CPU time of the update = a dedicated core's time), "
               "measured by apps' `life_hetero` (work emulated by repeating the update max_power/power times, as "
               "the thesis's 1000/PP):", "",
               table(["power", "ours: power 4 alone", "ours: uniform", "ours: proportional", "thesis: alone",
                      "thesis: uniform", "thesis: proportional"], rows), "")
        uni = [q["update_ms"] for q in both["uniform"]["ranks"]]
        pro = [q["update_ms"] for q in both["proportional"]["ranks"]]
        a = alone["ranks"][0]["update_ms"]
        self.p(f"Ratios: uniform slowest/fastest ours {max(uni) / min(uni):.2f} vs thesis {92.30 / 23.32:.2f}; "
               f"proportional max/min ours {max(pro) / min(pro):.2f} vs thesis {41.556 / 41.256:.2f}; proportional "
               f"iteration / power-4-alone ours {max(pro) / a:.2f} vs thesis {41.556 / 94.12:.2f}; uniform iteration "
               f"/ proportional ours {max(uni) / max(pro):.2f} vs thesis {92.30 / 41.556:.2f}.", "")
        self.check("Table 6.3: the proportional distribution's slowest process beats the uniform one's",
                   max(pro) < max(uni), f"{max(pro):.2f} vs {max(uni):.2f} ms", timing=True)
        self.check("Table 6.3: with proportional blocks the four processes are within 25% of each other",
                   max(pro) / min(pro) < 1.25, f"{max(pro) / min(pro):.2f}", timing=True)
        ok63 = max(pro) < max(uni) and max(pro) / min(pro) < 1.25
        self.summary.append(
            f"**Table 6.3 - {'match' if ok63 else 'MISS'}.** Uniform blocks: slowest/fastest process "
            f"{max(uni) / min(uni):.2f}x (thesis 3.96x, ideal 4x); power-proportional blocks: spread "
            f"{max(pro) / min(pro):.2f}x (thesis 1.01x); uniform iteration / proportional iteration {max(uni) / max(pro):.2f}x "
            f"(thesis 2.22x); four processors with proportional blocks vs the power-4 processor alone "
            f"{max(pro) / a:.2f}x the time (thesis 0.44x)."
            + (" Per-process CPU time of 4 ranks time-sliced on 2 cores is inflated by cache and memory-bandwidth "
               "sharing, which compresses the uniform spread below 4x." if max(uni) / min(uni) < 3.8 else ""))
        self.p(self.summary[-1].replace("**Table 6.3 - ", "Verdict: **"), "")

    # ---------------------------------------------------------------------------------
    def hetero(self):
        for e, thesis, tnum in (("2a", THESIS_T67, "6.7"), ("2b", THESIS_T617, "6.17")):
            f = os.path.join(self.raw, f"het_{e}.json")
            if not os.path.exists(f):
                continue
            ours = load(f)["exp"]
            trules = load(os.path.join(self.raw, f"het_{e}_thesis.json"))["exp"]
            init = ours["initial"]
            self.p(f"## Table {tnum} - heterogeneous selection under a TPP budget (experiment {e})", "",
                   f"Initial 2x2 grid of powers {init['powers']} (N = 2000): ours rows {init['rows']}, columns "
                   f"{init['cols']}, T_Th {init['t_th_ms']:.1f} ms"
                   + (f" (thesis: rows 1819 / 181, columns 1115 / 885, T_Th 622.9 ms)." if e == "2a" else
                      " (thesis: rows 1197 / 803, columns 1111 / 889).") +
                   " The scheduler offers the thesis's 30 powers. T_Th = 0.096 x max(rows x cols / PP) ms, the "
                   "thesis's own measure (§6.4.2). 'ours' = gridmap's defaults (exact coordinate ascent on the "
                   "throughput after the SVD); 'thesis rules' = the same without the coordinate ascent (columns from "
                   "the rank-1 vector, swap search kept: not the faithful `--thesis` rules of the Tables 6.4, 6.8-6.15 "
                   "section below). Local takes the fastest line that fits in "
                   "both, as §6.3 describes. Adaptive (beyond the thesis) "
                   "picks whichever predicts the shorter time counting the data each choice moves.", "")
            rows = []
            wins = 0
            total = 0
            plot = []
            tr_rows = {int(r["tpp"]): r for r in trules["rows"]}
            for r in ours["rows"]:
                tpp = int(r["tpp"])
                th = thesis.get(tpp)
                for s in ("global", "local", "mixed", "adaptive"):
                    self.check(f"Table {tnum} TPP {tpp} {s}: TPP used within the budget", r[s]["tpp_used"] <= tpp + 1e-6,
                               f"{r[s]['tpp_used']}")
                best_ours = min(r[s]["t_th_ms"] for s in ("global", "local", "mixed"))
                best_th = min(th[0], th[3], th[6]) if th else None
                if th:
                    total += 1
                    wins += best_ours <= best_th
                live = {}
                for s in ("global", "local", "mixed"):
                    lf = os.path.join(self.raw, f"hetlife_{e}_{s}_{tpp}.json")
                    if os.path.exists(lf):
                        live[s] = load(lf)
                t = tr_rows[tpp]
                rows.append([tpp,
                             " / ".join(f"{r[s]['t_th_ms']:.1f}" for s in ("global", "local", "mixed")),
                             " / ".join(f"{t[s]['t_th_ms']:.1f}" for s in ("global", "local", "mixed")),
                             f"{th[0]} / {th[3]} / {th[6]}" if th else "-",
                             " / ".join(f"{r[s]['tpp_used']:.0f}" for s in ("global", "local", "mixed")),
                             f"{th[2]} / {th[5]} / {th[5]}" if th else "-",
                             " / ".join(r[s]["grid"] for s in ("global", "local", "mixed")),
                             f"{r['adaptive']['strategy']} {r['adaptive']['t_th_ms']:.1f}",
                             " / ".join(f"{1e3 * live[s]['dedicated_s']:.1f}" for s in ("global", "local", "mixed")) if len(live) == 3 else "-",
                             f"{th[1]} / {th[4]} / {th[7]}" if th else "-",
                             f"{100 * (best_th - best_ours) / best_th:+.0f}%" if th else "-"])
                plot.append((tpp, r["global"]["t_th_ms"], r["local"]["t_th_ms"], r["mixed"]["t_th_ms"],
                             r["adaptive"]["t_th_ms"], th[0] if th else None, th[3] if th else None,
                             t["global"]["t_th_ms"], t["local"]["t_th_ms"]))
            self.p(table(["TPP", "ours T_Th G / L / M (ms)", "thesis rules T_Th G / L / M", "thesis T_Th G / L / M",
                          "ours TPP used G / L / M", "thesis TPP used G / L / (M=L)", "ours grid G / L / M",
                          "adaptive pick", "ours measured Life G / L / M (ms, dedicated)", "thesis actual G / L / M (ms)",
                          "best T_Th: ours vs thesis"], rows), "")
            # measured vs predicted consistency
            lives = {}
            for x in glob.glob(os.path.join(self.raw, f"hetlife_{e}_*.json")):
                d = load(x)
                lives[tuple(d["label"].split()[1:])] = d
            follow = "no measured runs in this mode"
            if lives:
                ratios = [l["dedicated_s"] / l["t_th_units"] for l in lives.values()]
                mean = sum(ratios) / len(ratios)
                spread = max(abs(x / mean - 1) for x in ratios)
                agree = pairs = 0
                for r in ours["rows"]:
                    tpp = str(int(r["tpp"]))
                    ss = [x for x in ("global", "local", "mixed") if (x, tpp) in lives]
                    for a in range(len(ss)):
                        for b in range(a + 1, len(ss)):
                            ta, tb = r[ss[a]]["t_th_ms"], r[ss[b]]["t_th_ms"]
                            if abs(ta / tb - 1) <= 0.05:
                                continue  # T_Th does not separate them
                            pairs += 1
                            ma, mb = lives[(ss[a], tpp)]["dedicated_s"], lives[(ss[b], tpp)]["dedicated_s"]
                            agree += (ta < tb) == (ma < mb)
                follow = (f"measured time / T_Th is constant within {100 * spread:.0f}% over {len(lives)} runs, and "
                          + (f"the measurement orders two strategies as T_Th does in {agree} of {pairs} pairs that "
                             "T_Th separates by more than 5%" if pairs else
                             "no two strategies' T_Th differ by more than 5% in a row, so their order is not tested"))
                self.p(f"Measured emulated-power Life ({len(lives)} runs, R = 320, grids as chosen; dedicated-core "
                       f"time = max over processes of the update's CPU time): {follow} (mean {1e6 * mean:.3f} us per "
                       "T_Th unit). The thesis found the same for its Table 6.6: T_Th predicts the measured time.", "")
                self.check(f"Table {tnum}: measured Life time tracks T_Th within 35%", spread < 0.35, f"{spread:.2f}",
                           timing=True)
            self.p(f"By the thesis's measure our best strategy's T_Th is at least as good as the thesis's best in "
                   f"{wins} of {total} TPP rows.", "")
            gl_wins = sum(1 for r in ours["rows"] if r["global"]["t_th_ms"] <= r["local"]["t_th_ms"])
            th_loc = sum(1 for v in thesis.values() if v[3] < v[0])
            tr_wins = sum(1 for r in trules["rows"] if int(r["tpp"]) in thesis and
                          min(r[x]["t_th_ms"] for x in ("global", "local", "mixed")) <= min(thesis[int(r["tpp"])][k] for k in (0, 3, 6)))
            tr_loc = [100 * (r["local"]["t_th_ms"] / thesis[int(r["tpp"])][3] - 1) for r in trules["rows"] if int(r["tpp"]) in thesis]
            self.summary.append(
                f"**Table {tnum} - {'beat' if wins == total else 'mixed'} by the thesis's own measure.** Our best "
                f"T_Th is at least as good as the thesis's best in {wins} of {total} TPP rows; with the thesis's "
                f"rules alone (no coordinate ascent, Local's fastest-line rule) in {tr_wins} of {total}, and that "
                f"Local's T_Th is {min(tr_loc):+.0f}% to {max(tr_loc):+.0f}% off the thesis's Local. The thesis's Local "
                f"beats its Global in {th_loc} of {len(thesis)} rows; our Global is at least as good as our Local in "
                f"{gl_wins} of {len(ours['rows'])} rows: gridmap's Global takes the squarest p x q for its P, which for "
                "a prime P is 1 x P, and under T_Th (which ignores communication) a single row is always balanced; "
                "the thesis's Global also chose 1 x 11 at TPP 2000 but avoided 7 x 1 grids by hand. Adaptive picks "
                f"the smaller predicted time (T_Th plus data movement). Emulated-power Life: {follow}.")
            path = self.data(f"het_{e}.dat", sorted(plot))
            img = self.gnuplot(f"hetero_tth_{e}.png",
                               f"set title 'Table {tnum}: T_Th vs TPP (experiment {e})'\nset xlabel 'TPP offered'\n"
                               "set ylabel 'T_Th (ms)'\nset key outside right\n"
                               f'plot "{path}" using 1:2 with linespoints lw 2 title "ours Global", '
                               f'"{path}" using 1:3 with linespoints lw 2 title "ours Local", '
                               f'"{path}" using 1:4 with linespoints lw 2 title "ours Mixed", '
                               f'"{path}" using 1:5 with points pt 7 ps 1.5 title "ours Adaptive", '
                               f'"{path}" using 1:8 with linespoints dt 3 title "thesis rules Global", '
                               f'"{path}" using 1:9 with linespoints dt 3 title "thesis rules Local", '
                               f'"{path}" using 1:6 with linespoints dt 2 lw 2 title "thesis Global", '
                               f'"{path}" using 1:7 with linespoints dt 2 lw 2 title "thesis Local"\n')
            if img:
                self.p(f"![T_Th vs TPP, experiment {e}]({img})", "")

    def table620(self):
        f = os.path.join(self.raw, "het_3.json")
        if not os.path.exists(f):
            return
        ours = load(f)["exp"]
        tr = load(os.path.join(self.raw, "het_3_thesis.json"))["exp"]
        self.p("## Table 6.20 - a series of expansions (experiment 3)", "",
               f"Initial 4x3 grid with Table 6.18's twelve powers (ours: rows {ours['initial']['rows']}, columns "
               f"{ours['initial']['cols']}; thesis 752 / 735 / 358 / 155 and 839 / 695 / 466), N = 2000, TPPs 30, "
               "45, 28, 57 in turn; each strategy keeps its own grid. **The thesis does not print the scheduler's "
               "20-power lists**; ours are seeded stand-ins in the same range 0.1-10, a fresh list per step (the same "
               "for every strategy): " + "; ".join(str(l) for l in ours["free_lists"]) +
               ". So only the shape of the comparison can be compared, not the numbers. "
               "T_Th in seconds (0.096 x max rows x cols / PP ms).", "")
        rows = []
        for k, th in enumerate(THESIS_T620):
            row = [th[0]]
            for s in ("global", "local", "mixed", "adaptive"):
                st = ours[s][k] if k < len(ours[s]) else None
                if st is None or "error" in st:
                    row.append(st.get("error", "-")[:60] if st else "-")
                else:
                    row.append(f"{st['t_th_ms'] / 1e3:.2f} s, {st['grid']}, {st['tpp_used']:.2f}")
            for s in ("global", "local"):
                st = tr[s][k] if k < len(tr[s]) else None
                row.append(f"{st['t_th_ms'] / 1e3:.2f} s, {st['grid']}" if st and "error" not in st else "-")
            row.append(f"{th[1]} s, {th[2]}, {th[3]}")
            row.append(f"{th[4]} s, {th[5]}, {th[6]}")
            rows.append(row)
        steps = [(g, l) for g, l in zip(ours["global"], ours["local"]) if "error" not in g and "error" not in l]
        more = sum(1 for g, l in steps if l["p"] * l["q"] >= g["p"] * g["q"])
        less = sum(1 for g, l in steps if l["tpp_used"] <= g["tpp_used"] + 1e-9)
        faster = sum(1 for g, l in steps if l["t_th_ms"] <= g["t_th_ms"])
        self.summary.append(
            "**Table 6.20 - not comparable number for number**: the thesis's free lists are not printed, so seeded "
            "stand-ins are used; the same columns are reported (T_Th, grid chosen, TPP used per step). Thesis: Local "
            "uses more processors but less TPP than Global at about the same T_Th. Ours: Local uses at least as many "
            f"processors in {more} of {len(steps)} steps, no more TPP in {less} of {len(steps)}, and a T_Th at least "
            f"as good in {faster} of {len(steps)}.")
        self.p(table(["TPP", "ours Global: T_Th, grid, TPP used", "ours Local", "ours Mixed", "ours Adaptive",
                      "thesis rules Global", "thesis rules Local", "thesis Global", "thesis Local"], rows), "")

    # ---------------------------------------------------------------------------------
    def verdicts(self):
        self.p("## Summary: where we match, beat or miss the thesis, and why", "",
               "Each line is computed from this run's data (the wording adapts to the numbers).", "")
        self.p(*[f"- {x}" for x in self.summary], "")

    def checks_section(self):
        failed = [c for c in self.checks if not c[1]]
        data_failed = [c for c in failed if c[0] not in self.timing_checks]
        timing_missed = [c for c in failed if c[0] in self.timing_checks]
        self.p("## Checks made on the data", "",
               f"{len(self.checks) - len(failed)} of {len(self.checks)} checks pass"
               + (" - **FAILED: " + "; ".join(f"{n} ({d})" for n, _, d in data_failed) + "**" if data_failed else ".")
               + (" Timing checks outside their target in this run (measured times on shared cores; they do not "
                  "fail the run): " + "; ".join(f"{n} ({d})" for n, _, d in timing_missed) + "." if timing_missed else ""),
               "")
        # The list goes to the data folder beside the page (docs/data/reproduce/checks.txt).
        d = os.path.join(self.out, "data", "reproduce")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "checks.txt"), "w") as f:
            f.write(f"# the checks scripts/bench/reproduce.sh made on the numbers of its run\n")
            for n, ok, det in self.checks:
                kind = " (timing)" if n in self.timing_checks else ""
                f.write(f"{'PASS' if ok else 'FAIL'}{kind}: {n}" + (f" ({det})" if det and not ok else "") + "\n")
        self.p("The list: [docs/data/reproduce/checks.txt](data/reproduce/checks.txt).", "")
        return not data_failed

    def commands(self):
        d = os.path.join(self.out, "data", "reproduce")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "commands.txt"), "w") as f:
            f.write("# every run of scripts/bench/reproduce.sh: wall seconds, exit code, command line\n")
            for line in open(os.path.join(self.raw, "commands.tsv")):
                name, secs, rc, cmd = line.rstrip("\n").split("\t", 3)
                cmd = cmd.replace(self.root + "/", "")
                f.write(f"{secs:>6}s rc={rc}  {cmd}\n")
        self.p("## Exact command lines", "",
               "Every run, its wall seconds and exit code, in order: [docs/data/reproduce/commands.txt]"
               "(data/reproduce/commands.txt) (each run's output and JSON are kept in the raw "
               "directory the script prints at its end). "
               "Environment for all: `OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
               "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 "
               "OMPI_MCA_btl_vader_single_copy_mechanism=none OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1`.", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", default="full")
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--root", default=".")
    ap.add_argument("--build", default="")
    ap.add_argument("--invocation", default="scripts/bench/reproduce.sh")
    ap.add_argument("--data", default="", help="cluster and Slurm data (default ROOT/docs/data)")
    a = ap.parse_args()
    r = Report(a.raw, a.out, a.mode, a.seconds, a.root)
    r.p("# Reproducing the thesis's experiments (Chinnusamy 2004, chapters 4-6)", "",
        f"Generated by `{a.invocation}` (build tree `{os.path.relpath(a.build, a.root) if a.build else '?'}`) - do not edit by "
        "hand; rerun the script. Each section's first line says when, at which commit, by which command and into "
        "which data it was measured: the sections of that run say `reproduce.sh`, the others came from their own "
        "scripts and runs; numbers labelled *thesis* are "
        "quoted from M. Chinnusamy, *Data and Processor Mapping Strategies for Dynamically Resizable Parallel "
        "Applications* (Virginia Tech, 2004), measured on a cluster with one process per processor. Our sizes are "
        "scaled down; compare ratios and orderings, not absolute seconds.", "")
    # The targets table heads the page; it is written by hand from the sections it names and
    # carried over from the page this run replaces (between its two markers).
    old = os.path.join(a.out, "measurements", "results.md")
    if os.path.exists(old):
        m = re.search(r"<!-- targets:.*?<!-- /targets -->", open(old).read(), re.S)
        if m:
            r.p(*m.group(0).split("\n"), "")
    r.p("## Machine and set-up", "")
    r.machine()
    r.p("")
    body_start = len(r.md)
    sections = [r.table41, r.redist, r.split, r.topologies, r.resizes, r.table63, r.hetero, r.table620]
    for s in sections:
        try:
            s()
        except Exception as e:  # a missing or malformed input fails the report, visibly
            import traceback
            traceback.print_exc()
            r.check(f"report section {s.__name__}", False, f"{type(e).__name__}: {e}")
    fpath = os.path.join(a.raw, "failed.txt")
    failed = [x for x in open(fpath).read().split() if x] if os.path.exists(fpath) else []
    retried = [line.split("\t")[0] for line in open(os.path.join(a.raw, "commands.tsv")) if line.split("\t")[2] != "0"]
    r.check("every run succeeded (after at most one retry)", not failed, "failed: " + ", ".join(failed))
    if retried:
        r.p(f"Runs that failed once and were retried: {', '.join(retried)} (both attempts are in the command list).", "")
    body = r.md[body_start:]
    r.md = r.md[:body_start]
    r.verdicts()
    r.md.extend(body)
    # Measured apart, on the emulated cluster, by their own scripts (reproduce.sh --cluster
    # reruns them): the nodes and links, the Slurm.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cluster_report
    import slurm_report
    import provenance
    import splice_sections
    data = a.data or os.path.join(a.root, "docs", "data")
    # The sections measured apart go to their topic pages (splice_sections.TOPIC); this page
    # keeps the Slurm section and one line per topic section.
    md_out = os.path.join(a.out, "measurements", "results.md")
    apart = []
    for mod, sub in ((cluster_report, "cluster"), (slurm_report, "slurm")):
        text = mod.render(os.path.join(data, sub))
        if text:
            text = splice_sections.measured(text, data, sub)
            if sub in splice_sections.TOPIC:
                splice_sections.splice_into(splice_sections.page(md_out, sub), text.split("\n", 1)[0], text, data)
                apart.append((sub, text.split("\n", 1)[0]))
            else:
                r.md.extend(text.rstrip("\n").split("\n") + [""])
    # the benchmarks write their sections as markdown (splice_sections.STATIC).
    for sub, heading, text in splice_sections.static_sections(data):
        splice_sections.splice_into(splice_sections.page(md_out, sub), heading, text, data)
        apart.append((sub, heading))
    if apart:
        r.p("## Measured apart, on the topic pages", "",
            "Not measured: an index of the sections their own benchmarks render onto the topic pages.", "")
        for sub, heading in apart:
            r.p(f"- {heading[3:]}: [{splice_sections.TOPIC[sub]}]({splice_sections.TOPIC[sub]})")
        r.p("")
    ok = r.checks_section()
    r.commands()
    # Every section of this run starts with the run's "Measured:" line (docs/measurements/);
    # the cluster, Slurm and spliced sections carry their own.
    git = subprocess.run(["git", "-C", a.root, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or "0000000"
    r.md = provenance.with_sections(r.md, f"Measured: {datetime.now(timezone.utc).strftime('%Y-%m-%d')}, commit {git}, "
                                    f"`{a.invocation}`, data: not committed (raw JSON in the build tree's reproduce-raw/)")
    # The report sits in OUT/measurements/ (docs/measurements/results.md), the plots in OUT/img/.
    md = os.path.join(a.out, "measurements", "results.md")
    os.makedirs(os.path.dirname(md), exist_ok=True)
    with open(md, "w") as f:
        f.write(splice_sections.relink("\n".join(r.md) + "\n", a.out, md))
    print(f"reproduce: wrote {md} ({len(r.checks)} checks, "
          f"{sum(1 for c in r.checks if not c[1])} failed)")
    for n, okc, d in r.checks:
        if not okc:
            kind = "OUTSIDE TARGET (timing, does not fail the run)" if n in r.timing_checks else "FAIL"
            print(f"  {kind}: {n} {d}", file=sys.stderr)
    return 0 if ok else 1



# ---- thesis-tables (`scripts/bench/report.py thesis-tables ARGS`, its arguments as when it was a script of its own)
DOC_THESIS_TABLES = """Tables 6.4, 6.8-6.15 (and 6.18): the thesis's published mappings beside gridmap's
`--thesis` (the heuristic as the thesis ran it) and gridmap's default, computed by running
build/gridmap/malleable-gridmap --json; the section is spliced into docs/measurements/results.md
(replacing only its own section, as splice_sections.py does).

    report.py thesis-tables [--gridmap build/gridmap/malleable-gridmap] [--results docs/measurements/results.md] [--print]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from splice_sections import splice  # noqa: E402

HEADING = "## Tables 6.4, 6.8-6.15: the thesis's heuristic and ours"
FREE = "298,95,35,11,30,28,39,218,39,91,290,279,249,315,210,64,209,284,131,84,176,267,66,232,114,138,157,251,250,174"
F = 0.096  # T_Th = 0.096 x max(rows x cols / PP) ms (§6.4.2)

# The thesis's published mappings: arrangement (row-major), rows, cols, T_opt, new power
# used, T_Th as published (None: not printed, computed from its sizes).
THESIS = {
    "6.4": dict(grid=(2, 2), powers=[313, 279, 34, 25], rows=[1819, 181], cols=[1115, 885],
                t_opt=[313, 248, 31, 25], used=None, tth=622.9),
    "6.15": dict(grid=(2, 2), powers=[326, 275, 227, 175], rows=[1197, 803], cols=[1111, 889],
                 t_opt=[325.7, 260.4, 218.7, 174.9], used=None, tth=None),
    "6.18": dict(grid=(4, 3), powers=[9.9, 8.8, 8.5, 9.7, 8.7, 7, 6.7, 3.9, 2.6, 2, 1.8, 1.7],
                 rows=[752, 735, 358, 155], cols=[839, 695, 466],
                 t_opt=[9.9, 8.2, 5.5, 9.7, 8.0, 5.4, 4.7, 3.9, 2.6, 2, 1.7, 1.1], used=None, tth=None),
    "6.8": dict(grid=(2, 3), powers=[315, 284, 279, 313, 34, 25], rows=[1310, 690], cols=[1478, 302, 220],
                t_opt=[315, 64.3, 47, 166, 33.9, 24.8], used=599, tth=None),
    # The text of Table 6.10 is garbled; these are the processors it names, in the one
    # arrangement its sizes fit (sorted row-major).
    "6.10": dict(grid=(2, 4), powers=[315, 313, 279, 114, 95, 66, 34, 25], rows=[1639, 361],
                 cols=[714, 683, 348, 255], t_opt=None, used=590.56, tth=357.4),
    "6.11": dict(grid=(3, 2), powers=[313, 279, 34, 25, 315, 249], rows=[950, 95, 955], cols=[1116, 884],
                 t_opt=[313, 247.8, 31.3, 24.8, 314.6, 249], used=564, tth=326.0),
    "6.13": dict(grid=(3, 2), powers=[313, 249, 34, 25, 315, 279], rows=[950, 95, 955], cols=[1118, 882],
                 t_opt=[313.0, 247.3, 31.4, 24.8, 315, 248.7], used=564, tth=326.2),
}


def run(gridmap, *args):
    out = subprocess.run([gridmap, "--json", *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def time_of(t):
    q = t["grid"][1]
    return max(t["rows"][k // q] * t["cols"][k % q] / p for k, p in enumerate(t["powers"]))


def fmt_list(v, q=None, nd=0):
    s = [f"{x:.{nd}f}" if isinstance(x, float) or nd else str(x) for x in v]
    if q is None:
        return " / ".join(s)
    return " / ".join(" ".join(s[i:i + q]) for i in range(0, len(s), q))


def num(x):
    return f"{x:g}" if float(x) != int(x) else str(int(x))


def row(label, t, ref=None):
    p, q = t["grid"]
    dev = "-"
    if ref is not None and t is not ref:
        if tuple(t["grid"]) == tuple(ref["grid"]) and [float(x) for x in t["powers"]] == [float(x) for x in ref["powers"]]:
            dev = str(max(abs(a - b) for a, b in zip(t["rows"] + t["cols"], ref["rows"] + ref["cols"])))
        else:
            dev = "other arrangement"
    tth = t.get("tth") or F * time_of(t)
    tth_s = f"{tth:.1f}" + ("" if t.get("tth") or t is not ref else " (from its sizes)")
    used = t.get("used")
    return (f"| {label} | {p}x{q} | {' / '.join(' '.join(num(x) for x in t['powers'][i * q:(i + 1) * q]) for i in range(p))} "
            f"| {fmt_list(t['rows'])} | {fmt_list(t['cols'])} "
            f"| {' / '.join(' '.join(f'{x:.1f}' for x in t['t_opt'][i * q:(i + 1) * q]) for i in range(p)) if t.get('t_opt') else '-'} "
            f"| {num(round(used, 2)) if used is not None else '-'} | {tth_s} | {dev} |")


def ours_mapping(m, used=None):
    return dict(grid=(m["grid"]["rows"], m["grid"]["cols"]), powers=m["powers"], rows=m["rows"], cols=m["cols"],
                t_opt=m["t_opt"], used=used, tth=F * m["iteration_time"])


def render(gridmap):
    head = ("| | grid | powers (row by row) | rows | columns | T_opt | new power used | T_Th (ms) | max size deviation from the thesis |\n"
            "|---|---|---|---|---|---|---|---|---|")
    out = [HEADING, "",
           "Not measured: computed by `scripts/bench/report.py thesis-tables` from `malleable-gridmap --json` (plans and "
           "T_Th, the same on every machine)", "",
           "The thesis's SVD heuristic (§6.2.1) as it ran it, reconstructed from its tables: rows from the rank-1 "
           "approximation (`r_i = s a_i`), columns from the feasibility step `c_j = min_i PP_ij / r_i` (the widest "
           "columns that keep every `r_i t_ij c_j <= 1`), the T_opt refinement driven by those sizes, no coordinate "
           "ascent or swap search (`--thesis`, `HeteroOptions::thesis()`); in selection Global's replacement step "
           "as at TPP 600 (`SelectionOptions::thesis()`: the under-used new processor replaced by the slowest that "
           "reaches its T_opt, the budget left refilled fastest first but never into a single row or column, then "
           "one processor more near an equal share each). 'ours' is gridmap's default (exact coordinate ascent, swap "
           "search, improving replacement). T_Th = 0.096 x max(rows x cols / PP) ms. Generated by "
           "`scripts/bench/report.py thesis-tables` from `malleable-gridmap --json`.", ""]
    # Initial mappings.
    pairs = []  # (default, --thesis) T_Th per row
    out += ["### Initial mappings (Tables 6.4/6.5, 6.15/6.16, 6.18/6.19)", "", head]
    for name, grid in (("6.4", "2x2"), ("6.15", "2x2"), ("6.18", "4x3")):
        ref = THESIS[name]
        powers = ",".join(num(x) for x in ref["powers"])
        th = ours_mapping(run(gridmap, "hetero", "--powers", powers, "--grid", grid, "--thesis"))
        de = ours_mapping(run(gridmap, "hetero", "--powers", powers, "--grid", grid))
        out += [row(f"Table {name}: thesis", ref, ref), row(f"Table {name}: ours `--thesis`", th, ref),
                row(f"Table {name}: ours default", de, ref)]
        pairs.append((de["tth"], th["tth"]))
    out += [""]
    # TPP 600 case study from Table 6.4's grid.
    out += ["### TPP 600 from Table 6.4's grid (Tables 6.8-6.14)", "",
            "The scheduler offers the thesis's 30 powers; the initial grid is mapped by the same rules as the "
            "selection (`--thesis` or default).", "", head]
    base = ["select", "--powers", "313,279,34,25", "--grid", "2x2", "--tpp", "600", "--free", FREE]
    cases = (("6.8/6.9 Global, no replacement", "6.8", ["--strategy", "global", "--no-replacement"]),
             ("6.10 Global with replacement", "6.10", ["--strategy", "global"]),
             ("6.11/6.12 Local", "6.11", ["--strategy", "local"]),
             ("6.13/6.14 Mixed", "6.13", ["--strategy", "mixed"]))
    notes = []
    for label, name, extra in cases:
        ref = THESIS[name]
        got = {}
        for mode, flags in (("`--thesis`", ["--thesis"]), ("default", [])):
            s = run(gridmap, *base, *extra, *flags)["selections"][0]
            got[mode] = ours_mapping(s["mapping"], s["tpp_used"])
            notes.append(f"{label}, ours {mode}: added {', '.join(num(x) for x in s['chosen_powers'])}")
        out += [row(f"Table {label}: thesis", ref, ref), row(f"ours `--thesis`", got["`--thesis`"], ref),
                row(f"ours default", got["default"], ref)]
        pairs.append((got["default"]["tth"], got["`--thesis`"]["tth"]))
    out += ["", "Processors added: " + "; ".join(notes) + ".", "",
            "Tables 6.4, 6.8 and 6.15 are reproduced within 2 rows/columns, Table 6.8 with the thesis's "
            "arrangement (the refinement turns the sorted start [[315, 313, 284], [279, 34, 25]] into "
            "[[315, 284, 279], [313, 34, 25]]). The replacement step picks the thesis's processors (284 -> 66, "
            "then 95 and 114 instead of 218, which would give 1 x 7) and sizes within 3 of Table 6.10. Local and "
            "Mixed are not within 2: the thesis's Local kept the old columns (1115/885) and sized rows by "
            "feasibility (950/95/955), not by the SVD its text describes, and took 249 where our columns make "
            "251 the nearest; Table 6.18's powers are printed to one decimal, too coarse to size 4x3 within 2. "
            f"The default's T_Th is at most the thesis heuristic's in {sum(d <= t * (1 + 1e-9) for d, t in pairs)} "
            f"of {len(pairs)} rows.", ""]
    return "\n".join(out)


def main_thesis_tables():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    ap = argparse.ArgumentParser(description=DOC_THESIS_TABLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gridmap", default=os.path.join(root, "build", "gridmap", "malleable-gridmap"))
    ap.add_argument("--results", default=os.path.join(root, "docs", "measurements", "results.md"))
    ap.add_argument("--print", action="store_true", help="print the section instead of splicing it")
    a = ap.parse_args()
    section = render(a.gridmap)
    if a.print:
        print(section)
        return 0
    text = open(a.results).read()
    if not any(l.startswith(HEADING) for l in text.split("\n")):
        # New section: after the chapter-6 tables, before the cluster section (else splice's anchor).
        lines = text.split("\n")
        at = next((i for i, l in enumerate(lines) if l.startswith("## On the emulated cluster")), None)
        if at is not None:
            text = "\n".join(lines[:at] + section.rstrip("\n").split("\n") + [""] + lines[at:])
        else:
            text = splice(text, HEADING, section)
    else:
        text = splice(text, HEADING, section)
    with open(a.results, "w") as f:
        f.write(text)
    print(f"report.py thesis-tables: {a.results}: section \"{HEADING[3:]}\" refreshed")
    return 0


# The subcommands: the scripts folded in above, each run as it was (scripts/bench/subcommands.py).
if __name__ == "__main__":
    import subcommands
    sys.exit(subcommands.run(main, {
        "thesis-tables": main_thesis_tables,
    }))
