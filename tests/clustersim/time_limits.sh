#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Time limits in the simulator (sim/src/time_limit.hpp, sim_run.hpp), end to end on a
# 4-node machine:
#   A  malleable, 4 nodes asked ([1, 4]), 400 node-seconds in 40 iterations, limit 200 s,
#      started on its minimum (--start min): its limit allows no start below 2 nodes, and
#      it spawns onto its other 2 at once (2.5 s an iteration);
#   B  rigid, 3 nodes for 200 s, submitted at 50 s while A holds all 4: the policy (always giving,
#      --give-gain-share 0) would give B 3 of A's nodes, leaving A 20 iterations on one node
#      (ending at ~250 s, past its limit); with limits kept it may give only 2, so the
#      give-back is refused, counted and logged, and A ends within its limit;
#   C  rigid, 1 node, 100 s of work but a limit of 50 s: ended at its limit, killed.
# Without limits (--time-limits off) A gives the 3 nodes, runs past its limit, and nothing
# is ended: A and C are counted as having run past their limits. Usage: time_limits.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
cat >"$tmp/w.json" <<'JSON'
{"nodes": 4, "jobs": [
 {"id": "A", "submit_s": 0, "nodes": 4, "min_nodes": 1, "max_nodes": 4, "malleable": true,
  "work_node_s": 400, "serial_fraction": 0, "iterations": 40, "limit_s": 200},
 {"id": "B", "submit_s": 50, "nodes": 3, "min_nodes": 3, "max_nodes": 3, "malleable": false,
  "work_node_s": 600, "serial_fraction": 0, "iterations": 1, "limit_s": 300},
 {"id": "C", "submit_s": 600, "nodes": 1, "min_nodes": 1, "max_nodes": 1, "malleable": false,
  "work_node_s": 100, "serial_fraction": 0, "iterations": 1, "limit_s": 50}]}
JSON
echo '{"spawn_fixed_s": 0.01, "spawn_per_node_s": 0.001, "release_s": 0.001, "other_s": 0.01,
       "data_bytes_per_node": 1e6, "launch_s": 0}' >"$tmp/costs.json"
run() {  # run LABEL ARGS...
  "$bin" --workload "$tmp/w.json" --costs "$tmp/costs.json" --start-ranges --start min --policy arbiter \
    --interval 0 --give-gain-share 0 --out "$tmp/$1.json" --records "$tmp/$1.csv" --decisions "$tmp/$1.jsonl" \
    "${@:2}" 2>"$tmp/$1.err" || { cat "$tmp/$1.err"; echo "FAILED: $1 did not run"; exit 1; }
}
run on
run off --time-limits off
python3 - "$tmp" <<'PY' || { echo FAILED; exit 1; }
import csv, json, sys
d = sys.argv[1]
on, off = (json.load(open(f"{d}/{n}.json")) for n in ("on", "off"))
rec = {n: {r["id"]: r for r in csv.DictReader(open(f"{d}/{n}.csv"))} for n in ("on", "off")}
log = [json.loads(line) for line in open(f"{d}/on.jsonl")]
a_on, a_off = rec["on"]["A"], rec["off"]["A"]
# Limits kept: A gives no node past its limit and ends within it; the refusal is counted and logged.
assert on["time_limit_refusals"] >= 1, on
refusals = [x for x in log if x["rule"] == "time-limit" and x["job"] == "A" and x.get("refused", 0) > 0]
assert refusals and "past the time limit" in refusals[0]["why"], log
assert a_on["killed"] == "0" and float(a_on["end_s"]) - float(a_on["start_s"]) <= 200 + 1e-6, a_on
assert int(a_on["min_held"]) >= 2, a_on  # never below the 2 nodes its limit allows
assert on["killed"] == 1 and on["killed_malleable"] == 0 and rec["on"]["C"]["killed"] == "1", on
c = rec["on"]["C"]
assert abs(float(c["end_s"]) - float(c["start_s"]) - 50) < 1e-6, c  # ended at its limit
# Without limits: A gave B 3 nodes, ran past its limit, and nothing was ended.
assert int(a_off["min_held"]) == 1 and float(a_off["end_s"]) - float(a_off["start_s"]) > 200, a_off
assert off["killed"] == 0 and off["time_limit_refusals"] == 0, off
assert off["past_limit"] == 2 and off["past_limit_malleable"] == 1, off  # A and C, counted, not ended
assert on["past_limit"] == 0, on
assert float(rec["off"]["B"]["start_s"]) < float(rec["on"]["B"]["start_s"]), (rec["off"]["B"], rec["on"]["B"])
print(f"A: {float(a_on['end_s']) - float(a_on['start_s']):.1f} s with limits (min {a_on['min_held']} nodes, "
      f"{on['time_limit_refusals']} refusals), {float(a_off['end_s']) - float(a_off['start_s']):.1f} s without "
      f"(min {a_off['min_held']}); C killed at its 50-s limit")
PY
# The limit follows the size (--limit-follows-size): A gives B its 3 nodes as without
# limits, nothing refused, its limit extended by the time on 1 node over 4 (logged in the
# metrics), and it is not ended; C, rigid, is still ended at its 50-s limit.
run follows --limit-follows-size
python3 - "$tmp" <<'PY' || { echo FAILED; exit 1; }
import csv, json, sys
d = sys.argv[1]
m, off = (json.load(open(f"{d}/{n}.json")) for n in ("follows", "off"))
rec = {n: {r["id"]: r for r in csv.DictReader(open(f"{d}/{n}.csv"))} for n in ("follows", "off")}
a = rec["follows"]["A"]
assert m["time_limit_refusals"] == 0 and m["limit_extensions"] >= 1 and m["limit_extension_s"] > 0, m
assert int(a["min_held"]) == 1 and a["killed"] == "0" and float(a["end_s"]) - float(a["start_s"]) > 200, a
assert m["killed"] == 1 and m["killed_malleable"] == 0 and rec["follows"]["C"]["killed"] == "1", m
assert float(rec["follows"]["B"]["start_s"]) == float(rec["off"]["B"]["start_s"]), rec
assert "limit_extensions" not in off, off
print(f"follows: A ran {float(a['end_s']) - float(a['start_s']):.1f} s on down to {a['min_held']} node, "
      f"{m['limit_extensions']} extension(s) adding {m['limit_extension_s']:.1f} s, not ended; C ended at 50 s")
PY
# The tool's own --help (not SimGrid's), and SimGrid's options still reach SimGrid.
"$bin" --help >"$tmp/help.txt" 2>&1 || { cat "$tmp/help.txt"; echo "FAILED: --help"; exit 1; }
grep -q -- "--time-limits" "$tmp/help.txt" && ! grep -q -- "--cfg=<OPTION>" "$tmp/help.txt" ||
  { cat "$tmp/help.txt"; echo "FAILED: --help does not list the tool's options"; exit 1; }
run cfg --cfg=contexts/stack-size:256
if "$bin" --workload "$tmp/w.json" --no-such-option 2>"$tmp/bad.err"; then echo "FAILED: unknown option accepted"; exit 1; fi
echo "PASS: time limits (a give-back refused by the limit, the same give-back with the limit following the size, a job ended at its limit, --help is the tool's)"
