#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 35 on the emulated cluster: two nodes lost at once. pdgemm 2x4 on node1-4 (2
# processes each) keeps the local level every iteration, the partner level every 2 (the
# ring node1 -> node2 -> node3 -> node4 -> node1) and the global HDF5 file every 5, for 12
# iterations. Then two nodes' storage is removed (their memory is gone) and the job is
# launched again on the other two with --restart-levels, as malleable-run would:
#   node1 + node3 lost: their partners (node2, node4) survive: iteration 12 rebuilt from
#     4 local and 4 partner copies, 0 bytes from the global checkpoint (its directory gone);
#   node2 + node3 lost: node2's copies were on node3: its ranks 2,3 are in no level, the
#     job restarts from the global checkpoint of iteration 12 (written at the end) and says so;
#   the same without the global directory: refused on every process (exit 3), saying why.
# (Each case its own global directory: a relaunch writes its own last checkpoint there.)
# Each relaunch runs one iteration (a stop file) and passes the driver's result check
# against serial OpenBLAS. Leaves nothing behind (the level directories, the cluster).
# Usage: lost_two_nodes_levels.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
cluster_begin 4
work=$(mktemp -d)
levels=$(mktemp -d /dev/shm/malleable-two-nodes-levels.XXXXXX)
trap 'rc=$?; rm -rf "$work" "$levels" "$levels".*; cluster_end $rc' EXIT
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
cp -a "$levels" "$levels.b"
cp -a "$levels" "$levels.c"

relaunch() {  # <log> <hosts> <levels dir> <global dir> -> exit status in $rc
  local log=$1 hosts=$2 dir=$3 global=$4 first=${2%%:*}
  rm -f "$work/stop"
  touch "$work/stop"  # one iteration, then stop
  rc=0
  mpirun_on "$first" -n 4 --host "$hosts" -x RESIZE_HISTORY=off -x OPENBLAS_NUM_THREADS=1 \
    timeout 120 "$prog" "${common[@]}" -i 100000 -g 2x2 --restart-levels --checkpoint "$global" \
    --checkpoint-local-dir "$dir" --stop-file "$work/stop" >"$log" 2>&1 || rc=$?
}

echo "== node1 and node3 lost: their partners node2 and node4 keep their copies"
rm -rf "$levels/node1" "$levels/node3"
relaunch "$work/a.log" node2:2,node4:2 "$levels" "$work/global.gone.a"
grep -E "restart from levels|result check" "$work/a.log" || true
[[ $rc -eq 0 ]] || { cat "$work/a.log"; fail "the relaunch on node2,node4 failed ($rc)"; }
grep -q "at iteration 12: 4 old processes from local copies, 4 from partner copies, 0 bytes from the global checkpoint; 8 -> 4 processes, now on 2x2" \
  "$work/a.log" || { cat "$work/a.log"; fail "not rebuilt from 4 local and 4 partner copies of iteration 12"; }
grep -q "result check: B = (sA)^13 B0: .*OK" "$work/a.log" || { cat "$work/a.log"; fail "result check after node1+node3 lost"; }

echo "== node2 and node3 lost: node2's copies were on node3 -> the global checkpoint"
rm -rf "$levels.b/node2" "$levels.b/node3"
relaunch "$work/b.log" node1:2,node4:2 "$levels.b" "$work/global"
grep -E "restart from levels|result check" "$work/b.log" || true
[[ $rc -eq 0 ]] || { cat "$work/b.log"; fail "the relaunch on node1,node4 failed ($rc)"; }
grep -q "the blocks of 2 of 8 old processes (ranks 2,3) are in no level; reading iteration 12 from the global checkpoint" \
  "$work/b.log" || { cat "$work/b.log"; fail "no fallback to the global checkpoint of iteration 12 for ranks 2,3"; }
grep -q "result check: B = (sA)^13 B0: .*OK" "$work/b.log" || { cat "$work/b.log"; fail "result check after node2+node3 lost"; }

echo "== node2 and node3 lost, no global checkpoint: refused on every process"
rm -rf "$levels.c/node2" "$levels.c/node3"
relaunch "$work/c.log" node1:2,node4:2 "$levels.c" "$work/global.gone.c"
grep -m2 "restart refused" "$work/c.log" || true
[[ $rc -eq 3 ]] || { cat "$work/c.log"; fail "expected exit 3 (restart refused), got $rc"; }
[[ $(grep -c "restart refused: restart from levels in $levels.c: no version is complete across the levels on these nodes or in the global checkpoints of" "$work/c.log") -eq 4 ]] ||
  { cat "$work/c.log"; fail "not refused on all 4 processes with the reason"; }
echo "PASS"
