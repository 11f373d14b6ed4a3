#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# --start recipe in the simulator (docs/guide/slurm.md's recipe: a launch per node Slurm
# gave, each node but the first able to leave) against --start full (one launch on every
# node, none of which can leave), on a 4-node machine:
#   A  malleable, [1, 4], asked 4, 800 node-seconds in 80 iterations, limit 2000 s: starts
#      on all 4 nodes;
#   B  rigid, 3 nodes, submitted at 50 s while A holds all 4.
# Under the recipe A gives B 3 of its nodes (down to its minimum) and B starts at once;
# under full A holds its 4 to its end and B waits for it.
# Usage: start_recipe.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
cat >"$tmp/w.json" <<'JSON'
{"nodes": 4, "jobs": [
 {"id": "A", "submit_s": 0, "nodes": 4, "min_nodes": 1, "max_nodes": 4, "malleable": true,
  "work_node_s": 800, "serial_fraction": 0, "iterations": 80, "limit_s": 2000},
 {"id": "B", "submit_s": 50, "nodes": 3, "min_nodes": 3, "max_nodes": 3, "malleable": false,
  "work_node_s": 300, "serial_fraction": 0, "iterations": 1, "limit_s": 300}]}
JSON
echo '{"spawn_fixed_s": 0.01, "spawn_per_node_s": 0.001, "release_s": 0.001, "other_s": 0.01,
       "data_bytes_per_node": 1e6, "launch_s": 0}' >"$tmp/costs.json"
run() {  # run LABEL ARGS...
  "$bin" --workload "$tmp/w.json" --costs "$tmp/costs.json" --start-ranges --policy arbiter \
    --interval 0 --give-gain-share 0 --out "$tmp/$1.json" --records "$tmp/$1.csv" \
    "${@:2}" 2>"$tmp/$1.err" || { cat "$tmp/$1.err"; echo "FAILED: $1 did not run"; exit 1; }
}
run recipe --start recipe
run full --start full
python3 - "$tmp" <<'PY' || { echo FAILED; exit 1; }
import csv, sys
d = sys.argv[1]
rec = {n: {r["id"]: r for r in csv.DictReader(open(f"{d}/{n}.csv"))} for n in ("recipe", "full")}
ra, rb, fa, fb = rec["recipe"]["A"], rec["recipe"]["B"], rec["full"]["A"], rec["full"]["B"]
assert int(ra["min_held"]) == 1, ra  # gave back down to its minimum
assert float(rb["start_s"]) < 60, rb  # B started at once on the nodes given back
assert int(fa["min_held"]) == 4, fa  # none of a single launch's nodes can leave
assert float(fb["start_s"]) >= float(fa["end_s"]) - 1e-6, (fa, fb)  # B waited for A's end
print(f"recipe: A down to {ra['min_held']} node(s), B started at {float(rb['start_s']):.1f} s; "
      f"full: A held {fa['min_held']}, B started at {float(fb['start_s']):.1f} s (A ended {float(fa['end_s']):.1f} s)")
PY
echo PASS
