#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The expansion fallback on the emulated cluster: a job of 4 processes on node1 expands
# 2x2 -> 3x3 onto node2 (schedule "@node2") after iteration 2, but node2 is gone
# (cluster.sh lose node2: its processes killed, its link down), so the launch there is
# refused or never answers. Under malleable-run (on node1, --checkpoint) the
# expansion must complete as a resize by restart: launches of 4 then 9 processes (the
# relaunch on node1: the launcher is given no --hosts), the driver's check against serial OpenBLAS, final
# checksums equal to the same resizes in place on node1 without a fault, and no process of
# the job left on node1. Prints how the expansion died and the time from the checkpoint
# before the spawn to the relaunch's first iteration.
# Usage: spawn_refused.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
cluster_begin 2
work=$(mktemp -d)
trap 'rc=$?; rm -rf "$work"; cluster_end $rc' EXIT
export RESIZE_HISTORY=off RESIZE_SPAWN_DEADLINE=10
P=("$BUILD/apps/pdgemm_resizable" -n 240 --nb 16 -i 6)
ref=$(mpirun_on node1 -n 4 "${P[@]}" -p scripted -s 2:expand:3x3,4:shrink:2x2 -q --checksums 2>&1) ||
  fail "the in-place run on node1: $ref"
"$CLUSTER" lose node2 >/dev/null
rc=0
# The job's launches hold node1 only (--host node1:9): Open MPI starts a daemon on node2
# only for the expansion onto it (blacs-dyn's "add-host"), and that launch is refused.
stamp_both "$work/log" "$CLUSTER" exec node1 env MALLEABLE_MPIEXEC="mpiexec --oversubscribe --bind-to none --host node1:9" \
  timeout 240 "$BUILD/bin/malleable-run" -n 4 -- "${P[@]}" -p scripted -s 2:expand:3x3:local2@node2,4:shrink:2x2 \
  --checkpoint "$work/ck" --checksums || rc=$?
wait_for "$work/log" "stderr closed" 30 >/dev/null
cut -d' ' -f2- "$work/log" | grep -E "malleable-run|before the spawn|expansion by spawn|result check|FAILED" || true
[[ $rc -eq 0 ]] || fail "malleable-run exit $rc: $(cut -d' ' -f2- "$work/log")"
launches=$(grep -o "malleable-run: launch [0-9]*: [0-9]* processes" "$work/log" | awk '{print $4}' | tr '\n' ' ')
[[ $launches == "4 9 " ]] || fail "launches with '$launches' processes, expected 4 9"
grep -q "result check: B = (sA)^6 B0: .*OK" "$work/log" || fail "result check"
sums() { grep -o 'checksum .*' | sort; }
[[ -n $(sums <<<"$ref") && $(sums <"$work/log") == $(sums <<<"$ref") ]] || fail "checksums differ from the in-place run's"
how=$(grep -oE "launch 1( ended with status [0-9]+ during an expansion by spawn|: the expansion by spawn did not complete by its deadline)|the expansion by spawn failed \(.*\): resizing by restart instead" "$work/log" | head -1)
[[ -n $how ]] || fail "no message of the fallback"
none_left pdgemm_resizable node1
t0=$(grep -m1 "before the spawn after iter 2" "$work/log" | cut -d' ' -f1)
t1=$(awk '/malleable-run: launch 2:/ { on = 1 } on && /\[pdgemm\] iter +3 / { print $1; exit }' "$work/log")
echo "node2 refused the expansion ($how): resize by restart, launches of $launches processes, checksums equal to the in-place run; checkpoint before the spawn -> computing on 3x3 in $(secs "$t0" "$t1") s"
echo "PASS"
