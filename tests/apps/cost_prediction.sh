#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every resize records the redistribution time the calibrated cost model predicts
# (redist/cost_model.hpp) beside the measured one:
#   with a cost model file: t_redist_predicted_s is a positive number on each resize, and
#     with every cost doubled it doubles (the model is linear in its parameters);
#   without one (no file), with a malformed one (said on stderr) or with the PDGEMR2D mover
#     (the model is redist's): null.
# Usage: cost_prediction.sh <mpiexec> <driver>
set -uo pipefail
mpiexec=$1 driver=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"  # work, fail, fails, flags
model() {  # model <file> <scale>
  python3 - "$1" "$2" <<'PY'
import json, sys
s = float(sys.argv[2])
json.dump({"format": "malleable-redist-cost-model", "version": 1,
           "message_intra_node_s": 2e-6 * s, "byte_intra_node_s": 2e-10 * s,
           "message_inter_node_s": 2e-6 * s, "byte_inter_node_s": 2e-10 * s,
           "step_s": 1e-5 * s, "call_s": 1e-3 * s, "local_copy_byte_s": 1e-10 * s,
           "sleep_step_s": 0.0, "sleep_byte_s": 0.0, "cores_per_node": 2,
           "inter_node_measured": False}, open(sys.argv[1], "w"))
PY
}
run() {  # run <json out> [extra args]
  local out=$1
  shift
  "$mpiexec" --oversubscribe --bind-to none -n 4 "$driver" -n 480 --nb 32 -i 4 -p scripted \
    -s 1:expand:2x3:local2,2:shrink:2x2 -q --json "$out" "$@"
}
predicted() {  # the resizes' cost-model predictions, one per line ("None": none; a run
  # without a model may predict from the resize history instead, t_redist_by "history")
  python3 -c "import json,sys; [print(r['t_redist_predicted_s'] if r['predicted']['t_redist_by'] == 'cost model' else None) for r in json.load(open(sys.argv[1]))['resizes']]" "$1"
}

model "$work/m1.json" 1
model "$work/m2.json" 2
REDIST_COST_MODEL=$work/m1.json run "$work/r1.json" >"$work/r1.log" 2>&1 || fail "the run with a cost model failed"
REDIST_COST_MODEL=$work/m2.json run "$work/r2.json" >"$work/r2.log" 2>&1 || fail "the run with the doubled model failed"
python3 - "$work/r1.json" "$work/r2.json" <<'PY' || fail "predictions with a model"
import json, sys
a = json.load(open(sys.argv[1]))["resizes"]
b = json.load(open(sys.argv[2]))["resizes"]
assert len(a) == 2 and len(b) == 2, (a, b)
for x, y in zip(a, b):
    p, q = x["t_redist_predicted_s"], y["t_redist_predicted_s"]
    assert p is not None and p > 0, x
    assert abs(q - 2 * p) <= 1e-9 * q, (p, q)  # linear in the parameters, same plans
    print(f"{x['action']} {x['from']['rows']}x{x['from']['cols']} -> {x['to']['rows']}x{x['to']['cols']}: "
          f"measured {1e3 * x['t_redist_s']:.1f} ms, predicted {1e3 * p:.1f} ms")
PY

REDIST_COST_MODEL=$work/none.json run "$work/r3.json" >/dev/null 2>&1 || fail "the run without a model failed"
[[ $(predicted "$work/r3.json" | sort -u) == None ]] || fail "a prediction without a cost model file"

echo '{"format": "malleable-redist-cost-model", "version": 1}' >"$work/bad.json"
REDIST_COST_MODEL=$work/bad.json run "$work/r4.json" >"$work/r4.log" 2>&1 || fail "the run with a malformed model failed"
grep -q "the cost model $work/bad.json is not used" "$work/r4.log" || fail "a malformed model file is not reported"
[[ $(predicted "$work/r4.json" | sort -u) == None ]] || fail "a prediction from a malformed model"

REDIST_COST_MODEL=$work/m1.json run "$work/r5.json" -r pdgemr2d >/dev/null 2>&1 || fail "the PDGEMR2D run failed"
[[ $(predicted "$work/r5.json" | sort -u) == None ]] || fail "a redist prediction for the PDGEMR2D mover"

((fails == 0)) && echo "PASS" || exit 1
