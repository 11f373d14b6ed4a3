#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Adapting to load while running, on the heterogeneous Life driver
# with measured powers: rank 3 is made 6 times slower in iterations FROM..TO (emulated
# load). Speeds and the policy's iteration time are on the emulated clock (each rank reports
# updates x 100 ns, --speed-clock emulated --adapt-clock reported), so what is asserted holds
# on any machine however loaded: measured CPU or wall time of 4 ranks on 2 shared cores is
# not equal even without a load (a fresh-clone run once saw powers [1.0, 0.60, 0.98, 0.61]).
# The resize history is kept in memory (RESIZE_HISTORY=off), so other runs on
# the machine do not change the predictions. Checks, from the run's JSON:
#   - the board is right (the driver's own check against the serial run, exit status 0);
#   - the estimate follows the load: rank 3's measured power is below 0.5 within 3
#     iterations of the load's start, and back above 0.75 within 4 of its end;
#   - the policy adapted while the load lasted (a regrid after FROM that gives rank 3 a
#     smaller share or takes it off the grid) and went back after it (the last grid holds
#     all 4 processes with powers within 25% of each other);
#   - every regrid records its prediction (iteration time after, resize time) beside the
#     measured outcome;
#   - a run with the same load and --policy fixed never regrids.
# Usage: adaptive_load.sh <mpiexec> <driver> [extra driver args]
set -uo pipefail
mpiexec=$1 driver=$2
shift 2
extra=("$@")
from=6 to=25 iters=60
. "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"  # work, fail, fails, flags
export RESIZE_HISTORY=off
run() {  # run <json> <policy>
  "$mpiexec" ${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none} -n 4 "$driver" -n 480 -g 2x2 -i $iters --base-reps 40 \
    --powers measured --load "3@$from-$to:x6" --speed-clock emulated --adapt-clock reported --meter-kernels \
    --policy "$2" --json "$1" "${extra[@]}"
}
run "$work/adapted.json" adaptive >"$work/adapted.log" 2>&1 || fail "the adaptive run failed (exit $?)"
grep -E "adaptive policy|regrid|result check" "$work/adapted.log"
run "$work/fixed.json" fixed >"$work/fixed.log" 2>&1 || fail "the fixed run failed (exit $?)"
python3 - "$work/adapted.json" "$work/fixed.json" $from $to <<'PY' || fail "checks on the runs' JSON"
import json, sys
a, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
lo, hi = int(sys.argv[3]), int(sys.argv[4])
bad = []
def power3(run, it):
    for s in run["iterations"]:
        if s["iteration"] == it and "powers" in s:
            return s["powers"][3]
    return None
# The estimate follows the load within a few iterations (the fixed run: nothing moves).
p_in = power3(f, lo + 2)
p_out = power3(f, hi + 4)
print(f"fixed run: rank 3 power {power3(f, lo - 1):.2f} before, {p_in:.2f} at iteration {lo + 2}, {p_out:.2f} at {hi + 4}")
if not (p_in is not None and p_in < 0.5): bad.append(f"estimate did not follow the load: {p_in}")
if not (p_out is not None and p_out > 0.75): bad.append(f"estimate did not follow the recovery: {p_out}")
if any(r["action"] == "regrid" for r in f.get("resizes", [])): bad.append("the fixed run regridded")
# The adaptive run: adapted during the load, went back after it.
regrids = [r for r in a.get("resizes", []) if r["action"] == "regrid" and r["ok"]]
for r in regrids:
    p = r["predicted"]
    print(f"regrid after {r['after_iteration']}: {r['from']['rows']}x{r['from']['cols']} -> "
          f"{r['to']['rows']}x{r['to']['cols']}; predicted iteration {p['t_iteration_after_s']}, "
          f"resize {p['t_total_s']}; measured {r['measured']['t_iteration_after_s']}, {r['measured']['t_total_s']}")
    if p["t_iteration_after_s"] is None or p["t_iteration_after_s"] <= 0: bad.append(f"regrid {r['after_iteration']}: no predicted iteration time")
    if p["t_redist_s"] is None and p["reasoning"] == "": bad.append(f"regrid {r['after_iteration']}: no prediction")
during = [r for r in regrids if lo <= r["after_iteration"] <= hi]
if not during: bad.append(f"no regrid during the load (iterations {lo}-{hi})")
after = [r for r in regrids if r["after_iteration"] > hi]
last = a["iterations"][-1]
if last["procs"] != 4: bad.append(f"the last grid holds {last['procs']} processes, not 4")
pw = last.get("powers", [])
if not pw or min(pw) < 0.95 * max(pw): bad.append(f"last iteration's measured powers not back to equal: {pw}")
seg = a["segments"]
print(f"adaptive run: {len(regrids)} regrids ({len(during)} during the load, {len(after)} after); last grid "
      f"{last['grid']['rows']}x{last['grid']['cols']}")
for b in bad: print("FAILED:", b)
sys.exit(1 if bad else 0)
PY
if [[ $fails -gt 0 ]]; then
  echo "---- adaptive log"; tail -40 "$work/adapted.log"
  exit 1
fi
echo "PASS"
