#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Growing by joining on the emulated cluster, without Slurm (docs/guide/joining.md): a job
# of two nodes starts as two launches (malleable-run --job-dir --hosts node1,node2:
# node1's launch, node2's joining it at its start: Open MPI 4.1 keeps every launch on one
# node), grows onto node3 and node4 in one resize (two launches it orders, joined at one
# remap point: 2x4 -> 4x4), computes, gives back node2 and node4 (one of them a node it
# started on: 4x4 -> 2x4 on node1 and node3), computes on while nothing of the job is
# left on node2 and node4, and ends when told; the result is checked against serial
# OpenBLAS, every launch's mpiexec returns 0.
# Usage: join_nodes.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; joins between launches need it)"; exit 77; }
cluster_begin 4 --rate 1gbit
work=$(mktemp -d)
dir=$work/job
app=pdgemm_resizable
export BLACS_DYN_JOIN_TIMEOUT=90 RESIZE_HISTORY=off

"$CLUSTER" exec node1 "$BUILD/bin/malleable-run" --job-dir "$dir" --hosts node1,node2 -n 8 -- \
  "$BUILD/apps/$app" -n 640 --nb 32 -g 2x4 -i 1000000 -p scripted --stop-file "$work/stop" \
  -s 3:expand:4x4:local2@node3=4+node4=4,30:shrink:2x4@node2+node4 --json "$work/job.json" >"$work/job.log" 2>&1 &
job=$!
trap 'kill -9 $job 2>/dev/null; rm -rf "$work"; cluster_end' EXIT

# The start: node2's launch joined node1's before the first iteration.
wait_for "$work/job.log" "^\[pdgemm\] iter +1 " 180 >/dev/null || true
grep -q "the job cannot be joined: this MPI" "$work/job.log" && { echo "SKIPPED: $(grep -m1 -o 'the job cannot be joined: .*' "$work/job.log")"; exit 77; }
grep -q "joined s.*(4 processes on node2) at level 1" "$dir/join.log" || { cat "$work/job.log" "$dir/join.log"; fail "node2's launch did not join at the start"; }
echo "node2's launch joined node1's at the start"
seen2=$(pids_on node2 $app)
[[ -n $seen2 ]] || fail "no process of the job on node2 after the start"

# The growth onto node3 and node4: one resize, two joined launches.
seen3="" seen4=""
for _ in $(seq 1 2400); do
  [[ -z $seen3 ]] && seen3=$(pids_on node3 $app)
  [[ -z $seen4 ]] && seen4=$(pids_on node4 $app)
  [[ -n $seen3 && -n $seen4 ]] && break
  kill -0 $job 2>/dev/null || { cat "$work/job.log"; fail "the job ended before growing"; }
  sleep 0.05
done
[[ -n $seen3 && -n $seen4 ]] || { cat "$work/job.log"; fail "the job did not reach node3 and node4"; }
wait_for "$work/job.log" "expand 2x4 -> 4x4 .*: join " 240

# The give-back of node2 and node4: every process there ends, the job computes on.
wait_for "$work/job.log" "shrink 4x4 -> 2x4 .*gave back node2, ?node4" 240
t0=$(date +%s.%N)
alive() { local p; for p in $seen2 $seen4; do readlink "/proc/$p/exe" >/dev/null 2>&1 && echo "$p"; done; return 0; }
for _ in $(seq 1 400); do [[ -z $(alive) ]] && break; sleep 0.05; done
[[ -z $(alive) ]] || fail "processes of the job still on the given-back nodes 20 s after the shrink: $(alive)"
free_ms=$(echo "($(date +%s.%N) - $t0) * 1000" | bc -l)
left="$(pids_on node2 $app) $(pids_on node4 $app)"
[[ -z ${left// /} ]] || fail "other processes of the job on the given-back nodes: $left"
printf 'node2 and node4 free %.0f ms after the job reported the shrink\n' "$free_ms"
[[ -n $(pids_on node3 $app) ]] || fail "the job's processes on node3 are gone too"
k=$(grep -c "^\[pdgemm\] iter" "$work/job.log")
for _ in $(seq 1 600); do (($(grep -c "^\[pdgemm\] iter" "$work/job.log") >= k + 2)) && break; sleep 0.1; done
(($(grep -c "^\[pdgemm\] iter" "$work/job.log") >= k + 2)) || fail "the job did not compute on after the give-back"
touch "$work/stop"
wait $job || { tail -60 "$work/job.log"; fail "the job failed"; }
cat "$work/job.log"
grep -Eiq "result check.*OK" "$work/job.log" || fail "the result check"
for l in "$dir"/join/*.log; do
  grep -q "ended (it left the job, or the job ended)" "$l" || { cat "$l"; fail "launch $(basename "$l" .log) did not end with status 0"; }
done
none_left $app node1 node2 node3 node4
python3 - "$work/job.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["resizes"]
assert [x["mechanism"] for x in r] == ["join", "exit"] and all(x["ok"] for x in r), r
grow, shrink = r
assert grow["rank_hosts"] == ["node1"] * 4 + ["node2"] * 4 + ["node3"] * 4 + ["node4"] * 4, grow["rank_hosts"]
assert shrink["rank_hosts"] == ["node1"] * 4 + ["node3"] * 4, shrink["rank_hosts"]
print(f"2x4 -> 4x4 onto node3 + node4 by join: merged world {grow['t_spawn_s']*1e3:.0f} ms, whole resize {grow['t_total_s']*1e3:.0f} ms")
print(f"4x4 -> 2x4 giving back node2 + node4: exit {shrink['t_spawn_s']*1e3:.0f} ms, whole resize {shrink['t_total_s']*1e3:.0f} ms")
PY
cat "$dir/join.log"
rm -rf "$work"
echo "PASS"
