#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On the emulated cluster: two nodes lost at once. pdgemm 2x4 on node1-4 (2
# processes each) keeps the local level every iteration, the partner level every 2 (the
# ring node1 -> node2 -> node3 -> node4 -> node1) and the global HDF5 file every 5.
# Through malleable-run --hosts node1,...,node4 --on-failure restart (run inside a
# surviving node), held in iteration 13 (RESIZE_FAULT=pause-in-iteration), two nodes are
# lost at once (cluster.sh lose: every process of both SIGKILLed, the job's and Open MPI's
# daemon, links down, unreachable) and their storage removed (their memory is gone).
# mpiexec names one of them or none; malleable-run must find both (its probe of the other
# hosts) and relaunch on the two others (4 processes, 2x2, --restart-levels):
#   node1 + node3 lost: their partners (node2, node4) survive: iteration 12 rebuilt from
#     4 local and 4 partner copies, 0 bytes from the global checkpoint (its directory
#     moved away at the kill: no file-system read possible);
#   node2 + node3 lost: node2's copies were on node3: its ranks 2,3 are in no level, the
#     job restarts from the global checkpoint of iteration 10 and says so.
# By hand (mpiexec --restart-levels, as malleable-run would), from a job of 12 iterations:
# node2 + node3 lost without a global checkpoint: refused on every process (exit 3).
# Each relaunch runs one iteration (a stop file, made while the job is held, before the
# loss, so before any relaunch) and passes the driver's result check against serial
# OpenBLAS. Leaves nothing behind (the level directories, Open MPI's
# shared-memory segments of the aborted jobs, the cluster).
# Usage: lost_two_nodes_levels.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
cluster_begin 4
work=$(mktemp -d)
levels=$(mktemp -d /dev/shm/malleable-two-nodes-levels.XXXXXX)
# Open MPI's shared-memory segments of the nodes' processes (their hostnames), left in
# /dev/shm by the jobs aborted here: only the ones this test made go (under the lock).
vader_before=$(ls /dev/shm | grep -E '^vader_segment\.node[0-9]+\.' || true)
vader_clean() {
  local f
  for f in $(ls /dev/shm | grep -E '^vader_segment\.node[0-9]+\.' || true); do
    grep -qxF "$f" <<<"$vader_before" || rm -f "/dev/shm/$f"
  done
}
trap 'rc=$?; kill $(jobs -p) 2>/dev/null || true; rm -rf "$work" "$levels" "$levels".*; vader_clean; cluster_end $rc' EXIT
export RESIZE_HISTORY=off
prog=$BUILD/apps/pdgemm_resizable
common=(-n 240 --nb 16 --keep 3)

echo "== write: 8 processes on node1-4, 12 iterations"
mpirun_on node1 -n 8 --host node1:2,node2:2,node3:2,node4:2 -x RESIZE_HISTORY=off -x OPENBLAS_NUM_THREADS=1 \
  timeout 120 "$prog" "${common[@]}" -i 12 -g 2x4 --checkpoint "$work/global" --checkpoint-every 5 \
  --checkpoint-local 1 --checkpoint-partner 2 --checkpoint-local-dir "$levels" >"$work/write.log" 2>&1 ||
  { cat "$work/write.log"; fail "the first job failed"; }
[[ -f $levels/node4/pdgemm.partner.r4-8.v000012 && -f $levels/node2/pdgemm.partner.r0-8.v000012 ]] ||
  fail "the partner copies are not on the ring's next node: $(ls "$levels"/*)"
cp -a "$levels" "$levels.c"

relaunch() {  # <log> <hosts> <levels dir> <global dir> -> exit status in $rc
  local log=$1 hosts=$2 dir=$3 global=$4 first=${2%%:*}
  rm -f "$work/stop" "$work/go"
  touch "$work/stop"  # one iteration, then stop
  rc=0
  mpirun_on "$first" -n 4 --host "$hosts" -x RESIZE_HISTORY=off -x OPENBLAS_NUM_THREADS=1 \
    timeout 120 "$prog" "${common[@]}" -i 100000 -g 2x2 --restart-levels --checkpoint "$global" \
    --checkpoint-local-dir "$dir" --stop-file "$work/stop" >"$log" 2>&1 || rc=$?
}

echo "== node2 and node3 lost, no global checkpoint: refused on every process"
rm -rf "$levels.c/node2" "$levels.c/node3"
relaunch "$work/c.log" node1:2,node4:2 "$levels.c" "$work/global.gone.c"
grep -m2 "restart refused" "$work/c.log" || true
[[ $rc -eq 3 ]] || { cat "$work/c.log"; fail "expected exit 3 (restart refused), got $rc"; }
[[ $(grep -c "restart refused: restart from levels in $levels.c: no version is complete across the levels on these nodes or in the global checkpoints of" "$work/c.log") -eq 4 ]] ||
  { cat "$work/c.log"; fail "not refused on all 4 processes with the reason"; }

# Through malleable-run --on-failure restart: 8 processes on node1-4 (2x4), held
# in iteration 13 (RESIZE_FAULT=pause-in-iteration); every process of two nodes (the job's
# and Open MPI's daemon) SIGKILLed at once and their storage removed; malleable-run runs
# inside a surviving node and must relaunch on the two others with --restart-levels.
lost_two() {  # <case> <lost node> <lost node> <node running malleable-run> <global dir kept: 0|1>
  local name=$1 x=$2 y=$3 runner=$4 keep_global=$5 dir=$levels.$1 d=$work/global.$1 log=$work/$1.log job rc
  mkdir -p "$dir" "$d"
  rm -f "$work/stop" "$work/go"
  "$CLUSTER" exec "$runner" env RESIZE_FAULT=pause-in-iteration:13:120:$work/go MALLEABLE_MPIEXEC="mpiexec --oversubscribe --bind-to none" \
    timeout 150 "$BUILD/bin/malleable-run" -n 8 --hosts node1,node2,node3,node4 --on-failure restart -- \
    "$prog" "${common[@]}" -g 2x4 -i 100000 --checkpoint "$d" --checkpoint-every 5 \
    --checkpoint-local 1 --checkpoint-partner 2 --checkpoint-local-dir "$dir" --stop-file "$work/stop" >"$log" 2>&1 &
  job=$!
  wait_for "$log" "fault injection - every process pauses 120 s in iteration 13" 90 >/dev/null
  [[ $(pids_on "$x" pdgemm_resizable | wc -w) -eq 2 && $(pids_on "$y" pdgemm_resizable | wc -w) -eq 2 ]] ||
    fail "$name: expected 2 processes of the job on $x and on $y"
  # While every process is held (it reads nothing, writes nothing, checks no stop file
  # until the pause ends): the lost nodes' storage removed, the global checkpoint out of
  # reach, and the stop file there before the loss, so that the relaunch, which can only
  # start after it, runs exactly one iteration (touched after the lost-node line, the
  # relaunch ran iterations 11-13 before it existed under load: a race the test lost).
  rm -rf "$dir/$x" "$dir/$y"  # their memory is gone
  ((keep_global)) || mv "$d" "$d.unreachable"  # no global checkpoint can be read
  touch "$work/stop"
  "$CLUSTER" lose "$x" "$y"  # every process of both (the job's, Open MPI's daemon) killed at once, unreachable
  touch "$work/go"  # the survivors go on once both nodes are lost (the pause's release file)
  lost=$(wait_for "$log" "malleable-run: lost node" 60) || { cat "$log"; fail "$name: no lost-node message within 60 s"; }
  echo "$lost"
  rc=0
  wait $job || rc=$?
  [[ $rc -eq 0 ]] || { cat "$log"; fail "$name: malleable-run exit $rc"; }
  grep -q "lost node $x $y " <<<"$lost" || { cat "$log"; fail "$name: the message does not name $x and $y: $lost"; }
  grep -E "restarting from|restart from levels|stop requested|result check" "$log" || true
  # the relaunch stopped after its first iteration: the stop file was there before it began
  [[ $(grep -c "stop requested" "$log") -eq 1 ]] || { cat "$log"; fail "$name: expected one stop (the relaunch's)"; }
}

echo "== malleable-run: node1 and node3 lost at once: their partners node2 and node4 keep their copies"
# (Open MPI maps the ranks of a --host list from the node mpiexec runs on: run from node4,
# node4 holds ranks 0,1 and the ring is node4 -> node1 -> node2 -> node3 -> node4, so
# node1's copies are on node2 and node3's on node4 as well.)
lost_two a node1 node3 node4 0
grep -q "malleable-run: restarting from the checkpoint levels on node2,node4: 4 processes, grid 2x2" "$work/a.log" ||
  { cat "$work/a.log"; fail "not relaunched from the levels on node2,node4 (2x2)"; }
grep -q "at iteration 12: 4 old processes from local copies, 4 from partner copies, 0 bytes from the global checkpoint; 8 -> 4 processes, now on 2x2" \
  "$work/a.log" || { cat "$work/a.log"; fail "not rebuilt from 4 local and 4 partner copies of iteration 12"; }
grep -q "global checkpoint" <(grep -v "0 bytes from the global checkpoint" "$work/a.log") && fail "the global checkpoint was used"
grep -q "result check: B = (sA)^13 B0: .*OK" "$work/a.log" || { cat "$work/a.log"; fail "result check after node1+node3 lost"; }

"$CLUSTER" down >/dev/null && "$CLUSTER" up 4 9>&- >/dev/null  # node1 back (under the lock)
echo "== malleable-run: node2 and node3 lost at once: node2's copies were on node3 -> the global checkpoint"
lost_two b node2 node3 node1 1
grep -q "malleable-run: restarting from the checkpoint levels on node1,node4: 4 processes, grid 2x2" "$work/b.log" ||
  { cat "$work/b.log"; fail "not relaunched from the levels on node1,node4 (2x2)"; }
grep -q "the blocks of 2 of 8 old processes (ranks 2,3) are in no level; reading iteration 10 from the global checkpoint" \
  "$work/b.log" || { cat "$work/b.log"; fail "no fallback to the global checkpoint of iteration 10 for ranks 2,3"; }
grep -q "result check: B = (sA)^11 B0: .*OK" "$work/b.log" || { cat "$work/b.log"; fail "result check after node2+node3 lost"; }
echo "PASS"
