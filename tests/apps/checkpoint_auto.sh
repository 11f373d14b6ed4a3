#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# --checkpoint-every auto --mtbf end to end: pdgemm_resizable on 2x2 with a
# tiny MTBF checkpoints many times; from the numbers the run itself prints for each
# checkpoint (world rank 0: elapsed time since the last checkpoint at this check and at the
# previous check, the interval it used, the previous checkpoint's measured cost C, the MTBF)
# this test asserts that
#   - the first checkpoint comes after iteration 1 (to measure C);
#   - every later interval is Young/Daly's sqrt(2 C MTBF) of the previous checkpoint's C,
#     i.e. equal to the next_interval the previous checkpoint announced;
#   - each checkpoint was taken at the first check where the elapsed time reached that
#     interval (previous check below it, this one at or above it): the cadence;
#   - the files on disk (--keep 0) are exactly the announced iterations, and the result
#     passes the driver's OpenBLAS check;
#   - the run's JSON record ("checkpoints": every, mtbf_s, written[]) holds the same
#     checkpoints: iteration, reason, measured cost and interval, file.
# MTBF 1e-9 s makes the interval a few microseconds, shorter than any iteration, so a
# checkpoint falls due at every check on any machine (with 0.02 s, a quiet machine ran all
# 20 iterations inside one interval and the test failed: it depended on the speed).
# Nothing here depends on how fast the machine is: the test checks the decisions against
# the times the run measured, not against a clock of its own.
# Usage: checkpoint_auto.sh <mpiexec> <pdgemm_resizable>
set -uo pipefail
mpiexec=$1 pdgemm=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RESIZE_HISTORY=off
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
out=$(timeout 150 "$mpiexec" "${flags[@]}" -n 4 "$pdgemm" -n 240 --nb 16 -i 20 -q \
  --checkpoint "$work/ck" --checkpoint-every auto --mtbf 1e-9s --keep 0 --json "$work/run.json" 2>&1)
rc=$?
if [[ $rc -ne 0 ]] || ! grep -q "result check: .*OK" <<<"$out"; then
  echo "FAILED: run exit $rc / check: $out"
  exit 1
fi
grep 'checkpoint-every auto:' <<<"$out"
ls "$work/ck" >"$work/files"
printf '%s\n' "$out" >"$work/out"
python3 - "$work/files" "$work/out" "$work/run.json" <<'PY' || { echo "FAILED: see above"; exit 1; }
import json, math, re, sys
lines = [dict(kv.split("=") for kv in l.split(": ", 1)[1].split())
         for l in open(sys.argv[2]).read().splitlines() if "checkpoint-every auto:" in l]
files = sorted(open(sys.argv[1]).read().split())
bad = []
def fail(msg): bad.append(msg); print("error:", msg)
if not lines: fail("no checkpoint-every auto line")
else:
    if (lines[0]["reason"], lines[0]["iteration"]) != ("first", "1"):
        fail(f"first checkpoint: {lines[0]} (expected after iteration 1, reason first)")
    for prev, cur in zip(lines, lines[1:]):
        f = {k: float(v) for k, v in cur.items() if k != "reason"}
        mtbf, c_prev = f["mtbf"], float(prev["cost"])
        yd = math.sqrt(2 * c_prev * mtbf)
        if float(cur["prev_cost"]) != c_prev:
            fail(f"iteration {cur['iteration']}: used C={cur['prev_cost']}, the previous checkpoint cost {prev['cost']}")
        if abs(f["interval"] - yd) > 1e-12 * yd or cur["interval"] != prev["next_interval"]:
            fail(f"iteration {cur['iteration']}: interval {cur['interval']} != sqrt(2*{c_prev}*{mtbf}) = {yd!r}")
        if cur["reason"] == "interval":
            if not f["since_last"] >= f["interval"]:
                fail(f"iteration {cur['iteration']}: checkpoint at {f['since_last']} s < interval {f['interval']} s")
            if f["previous_check"] >= f["interval"]:
                fail(f"iteration {cur['iteration']}: due already at the previous check ({f['previous_check']} s)")
        elif cur["reason"] != "last" or cur is not lines[-1]:
            fail(f"iteration {cur['iteration']}: unexpected reason {cur['reason']}")
    if lines[-1]["iteration"] != "20":
        fail(f"no checkpoint after the last iteration: {lines[-1]['iteration']}")
    if sum(l["reason"] == "interval" for l in lines) < 1:
        fail("no checkpoint taken by the Young/Daly interval")
    want = sorted("pdgemm-%06d.h5" % int(l["iteration"]) for l in lines)
    if files != want: fail(f"files {files}, announced {want}")
    ck = json.load(open(sys.argv[3])).get("checkpoints")
    if not ck or ck.get("every") != "auto" or ck.get("mtbf_s") != float(lines[0]["mtbf"]):
        fail(f"JSON checkpoints header: {ck and {k: ck[k] for k in ck if k != 'written'}}")
    else:
        got = [(w["after_iteration"], w["reason"], w["seconds"], w["interval_s"], w["file"].rsplit("/", 1)[-1])
               for w in ck["written"]]
        exp = [(int(l["iteration"]), l["reason"], float(l["cost"]),
                None if float(l["interval"]) < 0 else float(l["interval"]), "pdgemm-%06d.h5" % int(l["iteration"]))
               for l in lines]
        if got != exp: fail(f"JSON checkpoints.written {got} != printed {exp}")
n = sum(l["reason"] == "interval" for l in lines)
print(f"{len(lines)} checkpoints ({n} at the Young/Daly interval), files match" if not bad else "")
sys.exit(1 if bad else 0)
PY
echo "PASS"
