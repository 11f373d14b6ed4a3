#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The flexible-sleep job follows its model through resizes: on 2, then 4,
# then 2 processes (one per "node", --procs-per-node 1) every iteration sleeps the model's
# time for the nodes it has, t(n) = work / iterations * (serial + (1 - serial) / n), which
# the run JSON records as the iteration's compute; an iteration's wall time is at least
# that (a lower bound whatever the load); the matrices survive both resizes (the driver's
# check, exit 0). Bad model parameters are a usage error (exit 2) on every process.
# Usage: flexsleep_model.sh <mpiexec> <flexsleep_resizable>
set -euo pipefail
mpiexec=$1 exe=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
timeout --signal=KILL 150 $mpiexec ${MALL_MPIEXEC_FLAGS:-} -n 2 "$exe" -n 96 --nb 16 -g 1x2 -i 6 \
  --work 3 --serial 0.2 --procs-per-node 1 -p scripted -s 2:expand:2x2:global,4:shrink:1x2 -q \
  --json "$work/run.json" | tee "$work/out.txt"
grep -q "B = B0 + 6 .*: OK" "$work/out.txt" || { echo "FAILED: the result check"; exit 1; }
python3 - "$work/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
its = run["iterations"]
assert [i["procs"] for i in its] == [2, 2, 4, 4, 2, 2], [i["procs"] for i in its]
assert [r["action"] for r in run["resizes"] if r["ok"]] == ["expand", "shrink"], run["resizes"]
for i in its:
    model = 3 / 6 * (0.2 + 0.8 / i["procs"])
    assert abs(i["compute_s"] - model) < 1e-6, (i, model)
    assert i["wall_s"] >= model * 0.999, (i, model)
print("iterations follow the model:", [(i["procs"], round(i["compute_s"], 3), round(i["wall_s"], 3)) for i in its])
PY
for bad in "--serial 1.5" "--work 0" "--work -3" "--procs-per-node -1"; do
  rc=0
  # shellcheck disable=SC2086
  out=$(timeout --signal=KILL 60 $mpiexec ${MALL_MPIEXEC_FLAGS:-} -n 2 "$exe" -i 2 $bad 2>&1) || rc=$?
  [[ $rc -ne 0 ]] || { echo "FAILED: '$bad' was accepted"; exit 1; }
  grep -qiE "serial|work|procs-per-node" <<<"$out" || { echo "FAILED: '$bad' without a message: $out"; exit 1; }
  echo "'$bad' refused (exit $rc)"
done
echo PASS
