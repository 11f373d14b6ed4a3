#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Spawn/exit and other resize times predicted from the history of earlier resizes
# (resize/predict.hpp ResizeHistory), recorded beside the measured ones:
#   - a first run with an empty history predicts nothing for its first expansion and
#     first shrink, and predicts its second expansion and shrink from the first ones
#     (exactly the first ones' measured times: one event each, the median);
#   - the history file then holds the run's 4 resizes (format malleable.resize_history);
#   - a damaged history file is reported on stderr, the run goes on without predictions
#     for its first resizes, and the file is rewritten valid.
# Usage: history_prediction.sh <mpiexec> <driver>
set -uo pipefail
mpiexec=$1 driver=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"  # work, fail, fails, flags
run() {  # run <history file> <json out>
  RESIZE_HISTORY=$1 "$mpiexec" --oversubscribe --bind-to none -n 4 "$driver" -n 240 --nb 16 -i 5 \
    -p scripted -s 1:expand:2x3:local2,2:shrink:2x2,3:expand:2x3:local2,4:shrink:2x2 -q --json "$2"
}
run "$work/h.json" "$work/r1.json" >"$work/r1.log" 2>&1 || fail "the first run failed"
python3 - "$work/r1.json" "$work/h.json" <<'PY' || fail "first run's predictions / history file"
import json, sys
rs = json.load(open(sys.argv[1]))["resizes"]
assert [r["action"] for r in rs] == ["expand", "shrink", "expand", "shrink"], [r["action"] for r in rs]
for r in rs[:2]:
    assert r["predicted"]["t_spawn_s"] is None and r["predicted"]["t_other_s"] is None, r["predicted"]
for first, later in ((rs[0], rs[2]), (rs[1], rs[3])):
    p, m = later["predicted"], first["measured"]
    assert abs(p["t_spawn_s"] - m["t_spawn_s"]) <= 1e-9 + 1e-9 * m["t_spawn_s"], (p, m)
    assert abs(p["t_other_s"] - m["t_other_s"]) <= 1e-9 + 1e-9 * m["t_other_s"], (p, m)
    print(f"{later['action']}: predicted spawn/exit {p['t_spawn_s']*1e3:.1f} ms, measured "
          f"{later['measured']['t_spawn_s']*1e3:.1f} ms")
h = json.load(open(sys.argv[2]))
assert h["format"] == "malleable.resize_history" and len(h["events"]) == 4, h
PY
echo '{"format": "malleable.resize_history", "version": 1, "events": [{"action": "grow"}]}' >"$work/bad.json"
run "$work/bad.json" "$work/r2.json" >"$work/r2.log" 2>&1 || fail "the run with a damaged history failed"
grep -q "resize history is not used" "$work/r2.log" || fail "the damaged history was not reported"
python3 - "$work/r2.json" "$work/bad.json" <<'PY' || fail "damaged history: predictions / rewritten file"
import json, sys
rs = json.load(open(sys.argv[1]))["resizes"]
assert rs[0]["predicted"]["t_spawn_s"] is None, rs[0]["predicted"]
assert rs[2]["predicted"]["t_spawn_s"] is not None, rs[2]["predicted"]
h = json.load(open(sys.argv[2]))
assert len(h["events"]) == 4, h
PY
if [[ $fails -gt 0 ]]; then tail -30 "$work/r1.log" "$work/r2.log"; exit 1; fi
echo "PASS"
