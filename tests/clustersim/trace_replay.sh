#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A short replay of a real trace (sim/traces/NASA-iPSC-1993-3.1-cln.swf, a window of 300
# cleaned jobs on its 128 nodes): the three arms on the same jobs (rigid; moldable: a node
# range at the start, no resizes; malleable: resizes by the project's arbitration).
# Checks: every job ends, the arms are deterministic, rigid and moldable never resize,
# the rigid replay holds exactly the trace's node-seconds (plus the costs file's launch
# time per job), the malleable arm resizes, and a malformed record fails naming its line
# and field. The second trace (sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf, 300 jobs on
# its 100 nodes), which records waits and requested times: the replay reads them (the
# recorded mean wait is known and positive), the rigid replay holds its node-seconds, and
# no job starts before it is submitted. Usage: trace_replay.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
trace=$src/sim/traces/NASA-iPSC-1993-3.1-cln.swf
common=(--swf "$trace" --cores-per-node 1 --swf-first 2000 --swf-jobs 300 --seed 3 --costs "$src/sim/costs/emulated.json")
run() { "$bin" "${common[@]}" "$@" 2>>"$tmp/err" || { cat "$tmp/err"; echo FAILED; exit 1; }; }
run --malleable-share 0 --out "$tmp/r.json" --records "$tmp/r.csv" --trace-report "$tmp/rep.json"
run --malleable-share 0.5 --start-ranges --range-top requested --policy none --out "$tmp/mo.json"
run --malleable-share 0.5 --start-ranges --range-top requested --policy arbiter --interval 60 --out "$tmp/ma.json" --records "$tmp/ma.csv"
run --malleable-share 0.5 --start-ranges --range-top requested --policy arbiter --interval 60 --out "$tmp/ma2.json"
python3 - "$tmp" "$trace" <<'PY' || { echo FAILED; exit 1; }
import csv, json, sys
d, trace = sys.argv[1:]
r, mo, ma, ma2, rep = (json.load(open(f"{d}/{n}.json")) for n in ("r", "mo", "ma", "ma2", "rep"))
assert ma == ma2, "not deterministic"
assert rep["kept"] == 300 and rep["machine_nodes"] == 128, rep
for x in (r, mo, ma):
    assert x["jobs"] == 300, x
    assert 0 < x["utilisation"] <= 1.0 + 1e-9, x
    assert 0 <= x["mean_wait_s"] < x["mean_turnaround_s"], x
assert r["resizes_per_job"] == 0 and mo["resizes_per_job"] == 0, (r, mo)
assert ma["resizes_per_job"] > 0, "the malleable arm never resized"
# The trace's own jobs: the rigid replay holds each job's recorded nodes for its recorded
# run time (plus 1 s of launch, emulated.json's launch_s).
jobs = {}
for line in open(trace):
    f = line.split()
    if f and not f[0].startswith(";"):
        jobs["j" + f[0]] = (int(f[4]), float(f[3]))
for row in csv.DictReader(open(f"{d}/r.csv")):
    nodes, run = jobs[row["id"]]
    assert abs(float(row["node_s"]) - nodes * (run + 1.0)) <= 1e-5 * nodes * (run + 1), row  # the CSV keeps 6 digits
    assert int(row["start_nodes"]) == nodes, row
print(f"rigid {r['mean_turnaround_s']:.0f} s, moldable {mo['mean_turnaround_s']:.0f} s, malleable "
      f"{ma['mean_turnaround_s']:.0f} s (resizes/job {ma['resizes_per_job']:.2f}); recorded utilisation "
      f"{rep['recorded']['utilisation']:.3f}, simulated {r['utilisation']:.3f}")
PY
# The second trace: recorded waits and requested times (the estimates).
kth=$src/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf
"$bin" --swf "$kth" --cores-per-node 1 --swf-first 5000 --swf-jobs 300 --seed 3 --costs "$src/sim/costs/emulated.json" \
  --malleable-share 0 --out "$tmp/k.json" --records "$tmp/k.csv" --trace-report "$tmp/krep.json" 2>>"$tmp/err" ||
  { cat "$tmp/err"; echo FAILED; exit 1; }
python3 - "$tmp" "$kth" <<'PY' || { echo FAILED; exit 1; }
import csv, json, sys
d, trace = sys.argv[1:]
k, rep = json.load(open(f"{d}/k.json")), json.load(open(f"{d}/krep.json"))
assert rep["kept"] == 300 and rep["machine_nodes"] == 100, rep
assert rep["recorded"]["waits_known"] and rep["recorded"]["mean_wait_s"] > 0, rep["recorded"]
assert k["jobs"] == 300 and 0 < k["utilisation"] <= 1.0 + 1e-9, k
jobs = {}
for line in open(trace):
    f = line.split()
    if f and not f[0].startswith(";"):
        jobs["j" + f[0]] = (int(f[4]), float(f[3]))
rows = list(csv.DictReader(open(f"{d}/k.csv")))
assert len(rows) == 300, len(rows)
for row in rows:
    nodes, run = jobs[row["id"]]
    assert abs(float(row["node_s"]) - nodes * (run + 1.0)) <= 1e-5 * nodes * (run + 1), row
    assert float(row["start_s"]) >= float(row["submit_s"]) - 1e-6, row
print(f"KTH: recorded mean wait {rep['recorded']['mean_wait_s']:.0f} s, simulated {k['mean_wait_s']:.0f} s")
PY
# A malformed record: a clear message naming the line and the field, a failing status.
{ echo "; MaxNodes: 8"; echo "1 0 -1 1o 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1"; } > "$tmp/bad.swf"
if "$bin" --swf "$tmp/bad.swf" 2>"$tmp/bad.err"; then echo "FAILED: bad trace accepted"; exit 1; fi
grep -q "line 2, field 4 (run time)" "$tmp/bad.err" || { cat "$tmp/bad.err"; echo "FAILED: no line and field"; exit 1; }
echo "PASS: trace replay (300 jobs of NASA iPSC/860, 128 nodes), rigid, moldable and malleable; 300 jobs of KTH SP2"
