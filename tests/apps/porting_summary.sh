#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A porting guide's malleable program (docs/guide/porting.md) through an expansion and a shrink:
# it must pass its own result check, print the drivers' summary through the library
# (Session::summary / resize_print_summary: its result check, "n/a" for the compute clock
# it did not meter, the host's core count, sizes in MiB) and write a JSON run
# (Session::write_json / resize_write_json) that malleable-plot draws.
# Usage: porting_summary.sh <mpiexec> <program> <malleable-plot>
set -euo pipefail
mpiexec=$1 program=$2 plot=$3
app=$(basename "$program")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $app: $*"; exit 1; }
"$mpiexec" --oversubscribe --bind-to none -n 4 "$program" 3:expand:2x3,6:shrink:2x2 "$work/run.json" >"$work/out.txt" 2>&1 ||
  { cat "$work/out.txt"; fail "the program exited non-zero"; }
out=$work/out.txt
grep -Eq "== summary: $app .*policy scripted( 3:expand:2x3,6:shrink:2x2)?, redistribution redist" "$out" ||
  { cat "$out"; fail "no summary line naming the program and its policy"; }
grep -Eiq "result check: max error +[0-9.e+-]+ \(tol 1e-12\): OK" "$out" || { cat "$out"; fail "the summary does not show the result check"; }
cores=$(nproc --all)
grep -q "this host has $cores hardware threads" "$out" || { cat "$out"; fail "the summary does not report the host's $cores cores"; }
# No kernel metering in these programs: the compute clock is n/a, never 0.00.
grep -Eq "^   2x3 .* n/a +n/a$" "$out" || { cat "$out"; fail "the compute clock that was off is not n/a"; }
grep -q "moved MiB" "$out" || { cat "$out"; fail "the resize table does not give sizes in MiB"; }
grep -Eq "^ +3  2x2->2x3 " "$out" && grep -Eq "^ +6  2x3->2x2 " "$out" || { cat "$out"; fail "the two resizes are not in the summary"; }
# The JSON: what the drivers write, and malleable-plot draws it.
python3 - "$work/run.json" "$app" <<'PY' || fail "the JSON record"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "malleable.run/2", j["schema"]
assert j["app"] == sys.argv[2], j["app"]
assert j["check"]["ok"] is True and "max error" in j["check"]["message"], j["check"]
assert len(j["iterations"]) == 8 and len(j["resizes"]) == 2, (len(j["iterations"]), len(j["resizes"]))
assert [r["to"] for r in j["resizes"]] == [{"rows": 2, "cols": 3}, {"rows": 2, "cols": 2}], j["resizes"]
assert j["host_cores"] > 0
PY
grep -q "8 iterations, 2 resizes" <<<"$("$plot" "$work/run.json" -o "$work/run.png")" || fail "malleable-plot did not draw the run"
grep -q "89 50 4e 47 0d 0a 1a 0a" <<<"$(head -c 8 "$work/run.png" | od -An -tx1)" || fail "malleable-plot wrote no PNG"
echo "PASS: $app: summary, JSON and plot"
