#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A small simulated workload: 300 Lublin-Feitelson jobs on 64 nodes, rigid
# and half malleable. Checks: every job ends, metrics are sane (utilisation in (0, 1],
# waits >= 0, no resizes when rigid), the run is deterministic, --rigid on the malleable
# file equals the file generated rigid, and bad input fails with a message.
# Usage: small_run.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
gen="$src/scripts/bench/workload/generate.py"
python3 "$gen" --nodes 64 --jobs 300 --seed 5 --malleable-share 0.5 --range double -o "$tmp/m.json" || exit 1
python3 "$gen" --nodes 64 --jobs 300 --seed 5 --malleable-share 0 -o "$tmp/r.json" || exit 1
run() { "$bin" --workload "$1" --costs "$src/sim/costs/scale.json" "${@:2}" 2>>"$tmp/err"; }
run "$tmp/m.json" --out "$tmp/m1.out" --records "$tmp/m.csv" || { cat "$tmp/err"; echo FAILED; exit 1; }
run "$tmp/m.json" --out "$tmp/m2.out" || { echo FAILED; exit 1; }
run "$tmp/r.json" --out "$tmp/r.out" || { echo FAILED; exit 1; }
run "$tmp/m.json" --rigid --out "$tmp/mr.out" || { echo FAILED; exit 1; }
python3 - "$tmp" <<'PY' || { echo FAILED; exit 1; }
import csv, json, sys
d = sys.argv[1]
m, m2, r, mr = (json.load(open(f"{d}/{n}.out")) for n in ("m1", "m2", "r", "mr"))
assert m == m2, "not deterministic"
assert r == mr, "--rigid differs from the rigid file"
for x in (m, r):
    assert x["jobs"] == 300, x
    assert 0 < x["utilisation"] <= 1.0 + 1e-9, x
    assert 0 <= x["median_wait_s"] and 0 <= x["mean_wait_s"] < x["mean_turnaround_s"], x
    assert x["bounded_slowdown"] >= 1, x
assert r["resizes_per_job"] == 0 and r["resize_time_s_per_job"] == 0, r
rows = list(csv.DictReader(open(f"{d}/m.csv")))
assert len(rows) == 300
for row in rows:
    assert float(row["submit_s"]) <= float(row["start_s"]) <= float(row["end_s"]), row
    if row["malleable"] == "0":
        assert row["resizes"] == "0" and row["min_held"] == row["max_held"], row
assert m["resizes_per_job"] > 0, "no malleable job resized"
print(f"rigid turnaround {r['mean_turnaround_s']:.0f} s, 50% malleable {m['mean_turnaround_s']:.0f} s, "
      f"resizes/job {m['resizes_per_job']:.2f}")
PY
# Bad input: a clear message and a failing status.
echo '{"nodes": 4, "jobs": [{"id": "x", "nodes": 9}]}' > "$tmp/bad.json"
if "$bin" --workload "$tmp/bad.json" 2>"$tmp/bad.err"; then echo "FAILED: bad workload accepted"; exit 1; fi
grep -q "job x" "$tmp/bad.err" || { cat "$tmp/bad.err"; echo "FAILED: no message naming the job"; exit 1; }
echo "PASS: small workload (300 jobs, 64 nodes) rigid and 50% malleable"
