#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The seed statistics on a small trace, end to end: workload.sh arms on 300 jobs of KTH
# (the prime-time rule, 60-s passes, time limits kept), three arms, three seeds; the
# report's mean ratio and 95% interval recomputed here from the runs' metrics (Student's
# t, 2 degrees of freedom: 4.303), the rigid arm run once, no malleable job killed.
# Usage: seed_stats_trace.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
build=$(dirname "$(dirname "$bin")")
OUT=$tmp/arms JOBS=300 FIRST=5000 SEEDS="1 2 3" SHARES=0.5 ARMS="rigid moldable_requested malleable" PRIME=8-17 \
  bash "$src/scripts/bench/workload.sh" arms "$build" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo FAILED; exit 1; }
python3 - "$tmp/arms" <<'PY' || { cat "$tmp/log"; echo FAILED; exit 1; }
import csv, json, math, statistics, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/runs.tsv"), delimiter="\t"))
assert sum(r["arm"] == "rigid" for r in rows) == 1, rows
for arm in ("moldable_requested", "malleable"):
    assert sorted(r["seed"] for r in rows if r["arm"] == arm) == ["1", "2", "3"], (arm, rows)
rigid = json.load(open(f"{d}/rigid.json"))["mean_turnaround_s"]
ratios = [rigid / json.load(open(f"{d}/malleable_0.5_s{s}.json"))["mean_turnaround_s"] for s in (1, 2, 3)]
m = statistics.fmean(ratios)
half = 4.303 * statistics.stdev(ratios) / math.sqrt(3)
text = open(f"{d}/arms.md").read()
row = next(l for l in text.splitlines() if l.startswith("| both (malleable)"))
want = f"{m:.3f}x [{m - half:.3f}, {m + half:.3f}]"
assert want in row, (want, row)
assert ("better" if m - half > 1 else "worse" if m + half < 1 else "no difference") in row, row
assert all(json.load(open(f"{d}/malleable_0.5_s{s}.json"))["killed_malleable"] == 0 for s in (1, 2, 3))
print(f"malleable over rigid {want} (3 seeds, 300 jobs of KTH)")
PY
echo "PASS: seed statistics on a small trace"
