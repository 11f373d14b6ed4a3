#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A site's own log end to end: malleable-clustersim --sacct on the small
# hand-written accounting log tests/clustersim/data/site.sacct (8 nodes): the rigid replay
# holds each kept job's NNodes for its Elapsed from its submission on (its ids the log's,
# array and het jobs included), the counts of what was dropped (steps, jobs not ended, the
# cancelled one, the one past the machine, the one past ten years) in --trace-report; a
# malleable arm runs on the same jobs; --help names the fields and gives the two commands;
# a malformed line is refused with its line number; the second of the two commands
# (workload.sh arms on the sacct log) writes its report. A few seconds.
# Usage: sacct_replay.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
log=$src/tests/clustersim/data/site.sacct
fail=0
"$bin" --sacct "$log" --nodes 8 --out "$tmp/r.json" --records "$tmp/r.csv" --trace-report "$tmp/rep.json" \
  2>"$tmp/err" || { cat "$tmp/err"; echo "FAILED: the rigid replay did not run"; exit 1; }
grep -q "skipped 3 job step(s)" "$tmp/err" && grep -q "dropped 3 job(s) not ended" "$tmp/err" &&
  grep -q "warning: 1 record(s) with a run or requested time past ten years dropped" "$tmp/err" ||
  { cat "$tmp/err"; echo "FAILED: the counts are not said"; fail=1; }
"$bin" --sacct "$log" --nodes 8 --malleable-share 1 --start-ranges --out "$tmp/m.json" --records "$tmp/m.csv" \
  2>"$tmp/err" || { cat "$tmp/err"; echo "FAILED: the malleable arm did not run"; exit 1; }
python3 - "$tmp" "$log" <<'PY' || fail=1
import csv, json, sys
d, log = sys.argv[1:]
r, m, rep = (json.load(open(f"{d}/{n}.json")) for n in ("r", "m", "rep"))
s = rep["sacct"]
assert (s["lines"], s["steps"], s["not_ended"], s["jobs"]) == (21, 3, 3, 15), s
assert (rep["records"], rep["kept"], rep["cancelled"], rep["too_large"], rep["implausible"]) == (15, 12, 1, 1, 1), rep
assert rep["machine_nodes"] == 8 and rep["recorded"]["waits_known"], rep
rows = {row["id"]: row for row in csv.DictReader(open(f"{d}/r.csv"))}
want = {"j1001": (2, 600), "j1002": (4, 1800), "j1004": (1, 150), "j1005": (8, 1800), "j1006": (2, 480),
        "j1007": (1, 60), "j1008_3": (1, 300), "j1009+0": (1, 420), "j1009+1": (1, 420), "j1015": (3, 300),
        "j1016": (2, 300), "j1017": (1, 900)}
assert set(rows) == set(want), sorted(rows)
for i, (nodes, run) in want.items():
    row = rows[i]
    assert int(row["start_nodes"]) == nodes and abs(float(row["node_s"]) - nodes * run) < 1e-6, row
    assert float(row["start_s"]) >= float(row["submit_s"]) and row["killed"] == "0", row
assert float(rows["j1002"]["submit_s"]) == 60, rows["j1002"]  # 08:01:00 after the first at 08:00:00
assert r["jobs"] == 12 and m["jobs"] == 12 and m["resizes_per_job"] >= 0, (r, m)
mal = [row for row in csv.DictReader(open(f"{d}/m.csv")) if row["malleable"] == "1"]
assert len(mal) == 12, mal
print(f"sacct log: 12 of 15 jobs kept; rigid mean wait {r['mean_wait_s']:.0f} s (the log's "
      f"{rep['recorded']['mean_wait_s']:.0f} s), all malleable {m['mean_wait_s']:.0f} s")
PY
# --help: the fields and the command.
"$bin" --help >"$tmp/help" 2>&1
for want in "--sacct" "JobIDRaw,User,Partition,Submit,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqNodes,ReqCPUS,State" \
            "sacct -a -X -P -S" "malleable-clustersim --sacct site.sacct --nodes N"; do
  grep -qF -- "$want" "$tmp/help" || { echo "FAILED: --help does not say $want"; fail=1; }
done
# A malformed line: refused with its line number and the reason, nothing run.
{ head -n 3 "$log"; echo "1099|zed|batch|2024-03-04T08:00:00|2024-03-04T08:00:05|Unknown|00:10:00|01:00:00|2|64|2|64|LOST"; } >"$tmp/bad.sacct"
if "$bin" --sacct "$tmp/bad.sacct" --nodes 8 --out "$tmp/bad.json" 2>"$tmp/bad.err"; then
  echo "FAILED: an unknown state accepted"; fail=1
fi
grep -q "sacct line 4: State 'LOST' is not a Slurm 22.05 job state" "$tmp/bad.err" ||
  { cat "$tmp/bad.err"; echo "FAILED: no line and reason"; fail=1; }
[[ -e $tmp/bad.json ]] && { echo "FAILED: ran on a malformed log"; fail=1; }
# The second command: the arms on the site's log.
build=$(dirname "$(dirname "$bin")")
TRACE=$log NODES=8 NAME=site OUT=$tmp/arms SEEDS="1 2" SHARES=0.5 ARMS="rigid malleable" \
  bash "$src/scripts/bench/workload.sh" arms "$build" >"$tmp/arms.log" 2>&1 || { cat "$tmp/arms.log"; echo "FAILED: workload.sh arms on the sacct log"; fail=1; }
grep -q "| both (malleable)" "$tmp/arms/arms.md" 2>/dev/null || { cat "$tmp/arms.log"; echo "FAILED: no report"; fail=1; }
[[ $fail == 0 ]] || { echo FAILED; exit 1; }
echo "PASS: sacct replay"
