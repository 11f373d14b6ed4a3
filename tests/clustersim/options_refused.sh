#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every option is honoured or refused (sim/src/main.cpp, refused()): an option that only
# another option gives a meaning to is refused without it, exit 2, a message naming the
# option it needs, nothing run (no --out file written); with the option it needs, the same
# command runs. Then starts_narrowed end to end: counted where a pass held a job below its
# limit's floor, not at submission, so the same job counts in one arm and not in another:
#   M  malleable, 4 nodes asked ([2, 8]), 400 node-seconds, limit 110 s: 100 s on 4
#      nodes keeps its limit, 133 s on 3 does not (its floor is 4);
#   R  rigid, submitted first: 5 of the 8 nodes (3 idle when M comes: held, counted) or 4
#      (4 idle: M starts on its floor, nothing narrowed); with --time-limits off M starts
#      on 3 and nothing is counted either.
# Then --range-start slurm (Slurm's own start of the range): M starts on the 3 idle nodes
# whatever its limit, nothing narrowed, and is ended at its limit. Then per-user limits
# (--user-max-jobs) on four small jobs, --infer-user-limits, and fair-share
# (--fair-share-weight) on three. Then the options without an effect in the run
# they were given to (the arbiter's weights off their policy or lever, --interval and the
# levers under --policy none, the malleable-only options where no job is malleable), values
# past physical sense (an option's refused; a log's record dropped, counted and said), an
# empty file, a directory and a missing file named, and a sacct log's own refusals.
# Usage: options_refused.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
workload() {  # workload FILE R_NODES
  cat >"$1" <<JSON
{"nodes": 8, "jobs": [
 {"id": "R", "submit_s": 0, "nodes": $2, "min_nodes": $2, "max_nodes": $2, "malleable": false,
  "work_node_s": 1000000, "serial_fraction": 0, "iterations": 1},
 {"id": "M", "submit_s": 1, "nodes": 4, "min_nodes": 2, "max_nodes": 8, "malleable": true,
  "work_node_s": 400, "serial_fraction": 0, "iterations": 10, "limit_s": 110}]}
JSON
}
workload "$tmp/w5.json" 5
workload "$tmp/w4.json" 4
kth=$src/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf
swf=(--swf "$kth" --cores-per-node 1 --swf-jobs 20)
fail=0
# refuse NEEDS -- ARGS...: refused, naming NEEDS and the option; nothing written.
refuse() {
  local needs=$1 option=$3
  shift 2
  rm -f "$tmp/o.json"
  if "$bin" "$@" --out "$tmp/o.json" >"$tmp/out" 2>"$tmp/err"; then
    echo "FAILED: accepted: $*"; fail=1; return
  fi
  if ! grep -qF -- "$option" "$tmp/err" || ! grep -qF -- "$needs" "$tmp/err"; then
    echo "FAILED: $* : the message names neither $option nor $needs:"; cat "$tmp/err"; fail=1
  fi
  [[ -e $tmp/o.json ]] && { echo "FAILED: $* ran (wrote --out)"; fail=1; }
  echo "refused: $* -> $(cat "$tmp/err")"
}
honour() {  # honour ARGS...: runs, writes its metrics
  rm -f "$tmp/o.json"
  "$bin" "$@" --out "$tmp/o.json" 2>"$tmp/err" && [[ -s $tmp/o.json ]] ||
    { echo "FAILED: refused or failed: $*"; cat "$tmp/err"; fail=1; }
}
w=(--workload "$tmp/w5.json")
refuse "--backfill conservative" -- --bf-resolution 60 "${w[@]}"
refuse "--backfill conservative" -- --bf-resolution 60 --backfill easy "${w[@]}"
honour --bf-resolution 60 --backfill conservative "${w[@]}"
refuse "--backfill conservative" -- --bf-origin 12 "${w[@]}"
refuse "--prime-time" -- --prime-max-h 2 "${swf[@]}"
honour --prime-max-h 2 --prime-time 8-17 "${swf[@]}"
refuse "--outages infer" -- --outage-min-h 2 "${swf[@]}"
refuse "--outages infer" -- --outage-window-h 24 --outages none "${swf[@]}"
honour --outage-min-h 2 --outage-window-h 24 --outages infer "${swf[@]}"
refuse "--arrival-scale" -- --outages infer --arrival-scale 0.5 "${swf[@]}"
refuse "--start-ranges" -- --range-top requested "${w[@]}"
refuse "--start-ranges" -- --range-top efficient --range-efficiency 0.5 "${w[@]}"
honour --range-top requested --start-ranges "${w[@]}"
refuse "--range-top efficient" -- --range-efficiency 0.6 --start-ranges "${w[@]}"
refuse "--range-top efficient" -- --range-efficiency 0.6 --start-ranges --range-top max "${w[@]}"
honour --range-efficiency 0.6 --start-ranges --range-top efficient "${w[@]}"
refuse "--speedup measured" -- --speedup-file "$src/sim/speedup/apps.json" "${swf[@]}"
refuse "--speedup measured" -- --speedup-file "$src/sim/speedup/apps.json" --speedup amdahl "${swf[@]}"
honour --speedup-file "$src/sim/speedup/apps.json" --speedup measured "${swf[@]}"
refuse "--speedup amdahl" -- --serial 0.01 0.1 --speedup measured --speedup-file "$src/sim/speedup/apps.json" "${swf[@]}"
honour --serial 0.01 0.1 "${swf[@]}"
refuse "--policy arbiter or decide" -- --start min --policy none "${w[@]}"
refuse "--policy arbiter or decide" -- --start one --policy none "${w[@]}"
honour --start min --policy arbiter "${w[@]}"
honour --start full --policy none "${w[@]}"
refuse "--time-limits on" -- --limit-follows-size --time-limits off "${w[@]}"
refuse "--start-ranges" -- --limit-follows-size --policy none "${w[@]}"
refuse "--no-give-back" -- --limit-follows-size --no-give-back "${w[@]}"
refuse "--rigid" -- --limit-follows-size --rigid "${w[@]}"
honour --limit-follows-size --policy none --start-ranges "${w[@]}"
honour --limit-follows-size --policy arbiter "${w[@]}"
refuse "--start-ranges" -- --range-start slurm --policy none "${w[@]}"
refuse "--time-limits on" -- --range-start slurm --start-ranges --time-limits off "${w[@]}"
honour --range-start slurm --start-ranges --policy none "${w[@]}"
honour --range-start guarded --start-ranges --limit-follows-size "${w[@]}"
# starts_narrowed, three arms of the same job M.
narrowed() {  # narrowed WORKLOAD ARGS...: the run's starts_narrowed
  "$bin" --workload "$1" --start-ranges --policy none "${@:2}" --out "$tmp/n.json" 2>"$tmp/err" ||
    { cat "$tmp/err"; echo "FAILED: did not run"; exit 1; }
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['starts_narrowed'])" "$tmp/n.json"
}
held=$(narrowed "$tmp/w5.json") room=$(narrowed "$tmp/w4.json") off=$(narrowed "$tmp/w5.json" --time-limits off)
echo "starts_narrowed: held at 3 idle $held, 4 idle $room, limits off $off"
[[ $held == 1 && $room == 0 && $off == 0 ]] || { echo "FAILED: starts_narrowed $held $room $off (want 1 0 0)"; fail=1; }
# Slurm's own start of the range (--range-start slurm): M starts at once on the 3 idle nodes,
# whatever its limit, nothing narrowed, and it is ended at its 110-s limit (133 s of work there).
slurm=$(narrowed "$tmp/w5.json" --range-start slurm --records "$tmp/n.csv")
python3 - "$tmp/n.json" "$tmp/n.csv" "$slurm" <<'PY' || { echo "FAILED: --range-start slurm"; fail=1; }
import csv, json, sys
m, rows, narrowed = json.load(open(sys.argv[1])), {r["id"]: r for r in csv.DictReader(open(sys.argv[2]))}, sys.argv[3]
r = rows["M"]
assert narrowed == "0" and r["start_nodes"] == "3" and float(r["start_s"]) < 2, (narrowed, r)
assert r["killed"] == "1" and abs(float(r["end_s"]) - float(r["start_s"]) - 110) < 1, r
assert m["killed_malleable"] == 1, m
print(f"--range-start slurm: M started at {float(r['start_s']):.0f} s on 3 nodes, ended at its 110-s limit")
PY
# Per-user limits end to end: three 100-s jobs of user 1 and one of user 2 on 8 idle nodes;
# --user-max-jobs 1 runs user 1's one after another (held, counted), user 2's at once.
cat >"$tmp/u.json" <<'JSON'
{"nodes": 8, "jobs": [
 {"id": "a", "submit_s": 0, "nodes": 2, "min_nodes": 2, "max_nodes": 2, "malleable": false, "work_node_s": 200,
  "serial_fraction": 0, "iterations": 1, "user": 1},
 {"id": "b", "submit_s": 0, "nodes": 2, "min_nodes": 2, "max_nodes": 2, "malleable": false, "work_node_s": 200,
  "serial_fraction": 0, "iterations": 1, "user": 1},
 {"id": "c", "submit_s": 0, "nodes": 2, "min_nodes": 2, "max_nodes": 2, "malleable": false, "work_node_s": 200,
  "serial_fraction": 0, "iterations": 1, "user": 1},
 {"id": "d", "submit_s": 1, "nodes": 2, "min_nodes": 2, "max_nodes": 2, "malleable": false, "work_node_s": 200,
  "serial_fraction": 0, "iterations": 1, "user": 2}]}
JSON
for arm in free limited; do
  args=()
  [[ $arm == limited ]] && args=(--user-max-jobs 1)
  "$bin" --workload "$tmp/u.json" "${args[@]}" --out "$tmp/u_$arm.json" --records "$tmp/u_$arm.csv" 2>"$tmp/err" ||
    { cat "$tmp/err"; echo "FAILED: user limits ($arm) did not run"; fail=1; }
done
python3 - "$tmp" <<'PY' || fail=1
import csv, json, sys
d = sys.argv[1]
start = {arm: {r["id"]: float(r["start_s"]) for r in csv.DictReader(open(f"{d}/u_{arm}.csv"))} for arm in ("free", "limited")}
m = json.load(open(f"{d}/u_limited.json"))
ok = (start["free"] == {"a": 0, "b": 0, "c": 0, "d": 1} and start["limited"]["a"] == 0 and start["limited"]["d"] == 1
      and start["limited"]["b"] >= 100 and start["limited"]["c"] >= start["limited"]["b"] + 100
      and m["user_limit_held"] == 2 and "user_limit_held" not in json.load(open(f"{d}/u_free.json")))
print(f"user limits: starts {start}, held {m['user_limit_held']}")
if not ok:
    print("FAILED: --user-max-jobs 1 did not hold user 1's jobs one after another")
    sys.exit(1)
PY
refuse "--swf" -- --infer-user-limits "${w[@]}"
refuse "--swf" -- --seed 3 "${w[@]}"
refuse "--swf" -- --malleable-share 0.5 "${w[@]}"
refuse "--swf" -- --serial 0.01 0.1 "${w[@]}"
refuse "--swf" -- --prime-time 8-17 "${w[@]}"
refuse "--swf" -- --cores-per-node 2 "${w[@]}"
honour --seed 3 --malleable-share 0.5 "${swf[@]}"
refuse "--fair-share-weight" -- --age-weight 10 "${w[@]}"
refuse "--fair-share-weight" -- --fair-share-half-life-h 24 "${w[@]}"
refuse "--fair-share-weight" -- --priority-max-age-h 24 --fair-share-weight 0 "${w[@]}"
honour --age-weight 10 --fair-share-weight 1000 "${w[@]}"
# Fair-share end to end: user 1 held the 4 nodes 1,000 s; its job a (submitted at 10)
# starts after user 2's b (at 20) with --fair-share-weight, before it without.
cat >"$tmp/f.json" <<'JSON'
{"nodes": 4, "jobs": [
 {"id": "h", "submit_s": 0, "nodes": 4, "min_nodes": 4, "max_nodes": 4, "malleable": false, "work_node_s": 4000,
  "serial_fraction": 0, "iterations": 1, "user": 1},
 {"id": "a", "submit_s": 10, "nodes": 4, "min_nodes": 4, "max_nodes": 4, "malleable": false, "work_node_s": 400,
  "serial_fraction": 0, "iterations": 1, "user": 1},
 {"id": "b", "submit_s": 20, "nodes": 4, "min_nodes": 4, "max_nodes": 4, "malleable": false, "work_node_s": 400,
  "serial_fraction": 0, "iterations": 1, "user": 2}]}
JSON
for arm in fcfs fair; do
  args=()
  [[ $arm == fair ]] && args=(--fair-share-weight 1000)
  "$bin" --workload "$tmp/f.json" "${args[@]}" --out "$tmp/f_$arm.json" --records "$tmp/f_$arm.csv" 2>"$tmp/err" ||
    { cat "$tmp/err"; echo "FAILED: fair-share ($arm) did not run"; fail=1; }
done
python3 - "$tmp" <<'PY' || fail=1
import csv, sys
d = sys.argv[1]
s = {arm: {r["id"]: float(r["start_s"]) for r in csv.DictReader(open(f"{d}/f_{arm}.csv"))} for arm in ("fcfs", "fair")}
print(f"fair-share: starts {s}")
if not (s["fcfs"]["a"] < s["fcfs"]["b"] and s["fair"]["b"] < s["fair"]["a"]):
    print("FAILED: fair-share did not start the lighter user's job first")
    sys.exit(1)
PY
# Options without an effect in the run they were given to: refused with
# the reason, nothing run.
refuse "--policy none" -- --interval 30 --policy none "${w[@]}"
refuse "--policy none" -- --no-growth --policy none "${w[@]}"
refuse "--policy none" -- --no-give-back --policy none "${w[@]}"
refuse "--policy none" -- --give-gain-share 0 --policy none "${w[@]}"
refuse "--policy none" -- --min-growth-efficiency 0.2 --policy none --start-ranges "${w[@]}"
refuse "--policy decide" -- --give-gain-share 0 --policy decide "${w[@]}"
refuse "--policy decide" -- --min-growth-efficiency 0.2 --policy decide "${w[@]}"
refuse "--no-give-back" -- --give-gain-share 0 --no-give-back "${w[@]}"
refuse "--no-growth" -- --min-growth-efficiency 0.2 --no-growth "${w[@]}"
honour --give-gain-share 0 --min-growth-efficiency 0.2 --policy arbiter "${w[@]}"
honour --interval 30 --no-growth "${w[@]}"
for o in --start-ranges "--policy none" "--cost-scale 2" --no-expansion "--one-update on" "--interval 5" --no-growth \
         --no-give-back "--start min" "--give-gain-share 0" "--min-growth-efficiency 0.2"; do
  # shellcheck disable=SC2086
  refuse "no job is malleable (--rigid)" -- $o --rigid "${w[@]}"
done
refuse "--rigid" -- --malleable-share 0.5 --rigid "${swf[@]}"
for o in --start-ranges "--policy decide" "--cost-scale 2" --no-expansion "--one-update off" "--iteration-s 30" \
         "--interval 5" "--start one"; do
  # shellcheck disable=SC2086
  refuse "no job is malleable (--malleable-share is 0)" -- $o "${swf[@]}"
done
honour --iteration-s 30 --cost-scale 2 --no-expansion --one-update off --malleable-share 0.5 "${swf[@]}"
# --write-workload writes the iterations (--iteration-s) whatever the share.
"$bin" --iteration-s 30 --malleable-share 0 --write-workload "$tmp/ww.json" "${swf[@]}" 2>"$tmp/err" && [[ -s $tmp/ww.json ]] ||
  { cat "$tmp/err"; echo "FAILED: --iteration-s with --write-workload refused"; fail=1; }
# A workload whose jobs are all rigid: known once it is read.
sed 's/"malleable": true/"malleable": false/; s/"min_nodes": 2, "max_nodes": 8/"min_nodes": 4, "max_nodes": 4/' \
  "$tmp/w5.json" >"$tmp/rigid.json"
refuse "none of the jobs read is" -- --policy decide --workload "$tmp/rigid.json"
refuse "none of the jobs read is" -- --start-ranges --workload "$tmp/rigid.json"
honour --workload "$tmp/rigid.json"
refuse "the machine has 8 nodes" -- --user-max-nodes 8 "${w[@]}"
honour --user-max-nodes 7 "${w[@]}"
# Values past physical sense: an option's refused, naming the option and why.
refuse "node count" -- --nodes 0 "${w[@]}"
refuse "node count" -- --nodes 2000000 "${w[@]}"
refuse "ten years" -- --interval 1e9 "${w[@]}"
refuse "ten years" -- --sched-interval 1e9 "${w[@]}"
refuse "ten years" -- --iteration-s 1e12 --malleable-share 0.5 "${swf[@]}"
refuse "1e-6 to 1e6" -- --cost-scale 1e9 "${w[@]}"
refuse "parallel efficiency" -- --min-growth-efficiency 1.5 "${w[@]}"
refuse "not a weight" -- --give-gain-share -0.5 "${w[@]}"
# A log's: dropped, counted and said. A run time of 1e15 s and 64 processors on 8 nodes.
{ echo "; MaxNodes: 8"
  echo "1 0 0 1e15 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1"
  echo "2 5 0 100 64 -1 -1 64 -1 -1 1 1 1 -1 1 -1 -1 -1"
  echo "3 9 0 100 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1"; } >"$tmp/odd.swf"
"$bin" --swf "$tmp/odd.swf" --out "$tmp/odd.json" --trace-report "$tmp/odd_rep.json" 2>"$tmp/err" ||
  { cat "$tmp/err"; echo "FAILED: the odd log did not run"; fail=1; }
grep -q "warning: 1 record(s) with a run or requested time past ten years dropped" "$tmp/err" &&
  grep -q "warning: 1 record(s) asked more nodes than the 8 of the machine" "$tmp/err" ||
  { cat "$tmp/err"; echo "FAILED: the odd records not said"; fail=1; }
python3 -c "
import json, sys
m, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert m['jobs'] == 1 and m['makespan_s'] < 1000 and r['implausible'] == 1 and r['too_large'] == 1, (m, r)
" "$tmp/odd.json" "$tmp/odd_rep.json" || { echo "FAILED: the odd log's counts"; fail=1; }
# An empty file, a directory, a missing file: named as such.
: >"$tmp/empty.swf"
printf '\n \n' >"$tmp/blank.swf"
mkdir -p "$tmp/adir"
said() {  # said TEXT ARGS...: refused, TEXT in the message
  local text=$1
  shift
  if "$bin" "$@" --out "$tmp/o.json" 2>"$tmp/err"; then echo "FAILED: accepted: $*"; fail=1; return; fi
  grep -qF -- "$text" "$tmp/err" || { echo "FAILED: $* : not '$text':"; cat "$tmp/err"; fail=1; }
  echo "refused: $* -> $(cat "$tmp/err")"
}
said "$tmp/empty.swf is empty" --swf "$tmp/empty.swf"
said "$tmp/blank.swf is empty (only blank lines)" --swf "$tmp/blank.swf"
said "$tmp/adir is a directory, not a file" --swf "$tmp/adir"
said "$tmp/adir is a directory, not a file" --workload "$tmp/adir"
said "$tmp/adir is a directory, not a file" --sacct "$tmp/adir" --nodes 8
said "$tmp/none.swf: no such file" --swf "$tmp/none.swf"
said "$tmp/empty.swf is empty" --workload "$tmp/empty.swf"
# A sacct log: --nodes needed; given as --swf, or an SWF given as --sacct, named; no CPU time.
site=$src/tests/clustersim/data/site.sacct
refuse "--nodes" -- --sacct "$site"
said "is sacct output (its first line is a sacct header): give it as --sacct" --swf "$site"
said "is not sacct --parsable2 output" --sacct "$kth" --nodes 100
refuse "--sacct" -- --swf-cpu-as-run --sacct "$site" --nodes 8
honour --sacct "$site" --nodes 8
"$bin" "${swf[@]}" --infer-user-limits >"$tmp/inf.txt" 2>"$tmp/err" && grep -q "the tightest limits the log allows: --user-max-jobs [0-9]" "$tmp/inf.txt" ||
  { cat "$tmp/err" "$tmp/inf.txt"; echo "FAILED: --infer-user-limits"; fail=1; }
[[ $fail == 0 ]] || { echo FAILED; exit 1; }
echo "PASS: options honoured or refused"
