#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster: job 1 starts on node1 (4 processes), grows onto
# node2 and node3 (4 each, one spawn group per node, spawned at the same time), computes,
# then gives node2 and node3 back whole ("@node2+node3"): every process of job 1 there
# ends. A second, independent MPI job then runs on node2 and node3 while job 1 continues
# on node1. Both results are checked; the time from job 1's shrink to free nodes is
# measured here and printed beside the expansion cost. Job 1 iterates until the test
# creates its --stop-file after job 2 (explicit order, not a guess of how long job 2 takes).
# Usage: give_nodes_back.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
cluster_begin 3 --rate 1gbit
work=$(mktemp -d)
app=pdgemm_resizable

timeout 300 "$CLUSTER" exec node1 mpiexec --oversubscribe --bind-to none -n 4 \
  "$BUILD/apps/$app" -n 640 --nb 64 -i 1000000 -p scripted --stop-file "$work/stop" \
  -s 2:expand:3x4:local2@node2=4+node3=4,20:shrink:2x2@node2+node3 --json "$work/job1.json" \
  >"$work/job1.log" 2>&1 &
job1=$!

# The expansion, then the shrink: job 1's log says each (the processes' places are checked
# from its JSON record at the end). Sampling the processes on node2 and node3 between the
# two raced with the shrink after iteration 20 on a loaded machine.
waitlog() {  # <regex> <seconds> <what>
  local i
  for ((i = 0; i < $2 * 20; ++i)); do
    grep -qE "$1" "$work/job1.log" && return 0
    kill -0 $job1 2>/dev/null || { cat "$work/job1.log"; fail "job 1 ended before $3"; }
    sleep 0.05
  done
  cat "$work/job1.log"
  fail "job 1 did not $3 within $2 s"
}
waitlog "remap after iter 2: expand 2x2 -> 3x4" 60 "growing"
echo "job 1 grew: $(grep -m1 -o "remap after iter 2: expand 2x2 -> 3x4.*" "$work/job1.log" | cut -c1-120)"
# Once job 1 reports the shrink, its processes on node2 and node3 must end (a process that
# exited has no /proc/PID/exe any more, even before its parent reaps it): the time it takes
# is measured; 30 s is the bound for a process that does not end.
waitlog "gave back" 120 "giving the nodes back"
grep "gave back" "$work/job1.log"
t0=$(date +%s.%N)
until_s=$((SECONDS + 30))
while :; do
  left="$(pids_on node2 $app) $(pids_on node3 $app)"
  [[ -z ${left// /} ]] || ((SECONDS >= until_s)) && break
  sleep 0.05
done
[[ -z ${left// /} ]] || fail "processes of job 1 still on the released nodes 30 s after the shrink: $left"
free_ms=$(echo "($(date +%s.%N) - $t0) * 1000" | bc -l)
printf 'node2 and node3 free %.0f ms after job 1 reported the shrink\n' "$free_ms"

# Job 2: independent, on the released nodes only.
mpirun_on node2 -n 4 --host node2:2,node3:2 "$BUILD/apps/$app" -n 320 --nb 32 -g 2x2 -i 3 -q \
  | tee "$work/job2.log" || fail "job 2 on node2 and node3 failed"
grep -q "result check.*OK" "$work/job2.log" || fail "job 2's result check"
kill -0 $job1 2>/dev/null || { cat "$work/job1.log"; fail "job 1 ended before job 2 finished (it must continue meanwhile)"; }
echo "job 2 ran on node2 and node3 while job 1 continued on node1"
touch "$work/stop"

wait $job1 || { tail -40 "$work/job1.log"; fail "job 1 failed"; }
grep "result check" "$work/job1.log"
python3 - "$work/job1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["resizes"]
assert len(r) == 2 and all(x["ok"] for x in r), r
grow, shrink = r
assert grow["rank_hosts"] == ["node1"] * 4 + ["node2"] * 4 + ["node3"] * 4, grow["rank_hosts"]
assert shrink["rank_hosts"] == ["node1"] * 4, shrink["rank_hosts"]
print(f"expansion 2x2 -> 3x4 onto node2 + node3: total {grow['t_total_s']*1e3:.0f} ms, spawn {grow['t_spawn_s']*1e3:.0f} ms")
print(f"shrink 3x4 -> 2x2 giving back node2 + node3: total {shrink['t_total_s']*1e3:.0f} ms, "
      f"exit {shrink['t_spawn_s']*1e3:.0f} ms, redistribution {shrink['t_redist_s']*1e3:.0f} ms")
PY
rm -rf "$work"
echo "PASS"
