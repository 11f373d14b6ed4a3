#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A resize by restart onto a node an expansion merged into the allocation: the relaunch's
# processes must run there. A batch job (sbatch --no-kill -N 1 -w node1, 4 tasks) runs
# malleable-run --hosts slurm with the PDGEMM driver and the Slurm policy: node2 is
# idle, the policy obtains it (salloc expand, merged into the job) and spawns 4 processes
# there, the last of which stalls before its MPI_Init (BLACS_DYN_FAULT=stall-newcomer-in-init),
# so the spawn's deadline (RESIZE_SPAWN_DEADLINE=10) passes and malleable-run relaunches
# on node1,node2 (2x4) from the checkpoint before the spawn. The job's Slurm environment
# still names node1 alone (SLURM_JOB_NODELIST, set at its start): Open MPI's Slurm
# allocator then put all 8 processes on node1, the policy found node2 "running nothing" and
# grew onto it at every relaunch, doubling the processes. Required: 4 processes of the job
# on node2 after the relaunch, no further growth or launch, the driver's check OK.
# Usage: slurm_relaunch_merged.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
slurm_begin "merged malleable-expand" 2
stalled_spawn_job merged "--max-restarts 3" ""
wait_for "$out" "malleable-run: launch 2: 8 processes on node1:4,node2:4, -g 2x4 --restart $d/pdgemm-$(printf %06d "$k").h5" 60
wait_for "$out" "\] iter +$((k + 3)) +grid 2x4 " 90 >/dev/null
on2=$(pids_on node2 pdgemm_resizable | wc -w)
on1=$(pids_on node1 pdgemm_resizable | wc -w)
echo "after the relaunch: $on1 processes of the job on node1, $on2 on node2"
((on1 == 4 && on2 == 4)) || fail "the relaunch onto node1,node2 runs $on1 processes on node1 and $on2 on node2, expected 4 and 4"
# A few of the policy's decisions on the grown job before it stops: the policy is asked at
# a remap point once 0.5 s (RESIZE_SLURM_INTERVAL) of the job's clock has passed since its
# last ask, so iterations on the grown grid whose walls add up to 3 s hold at least 5 of
# them (the job's own progress, read from its lines: an event, not a wait of the test's).
grown_ms() {
  awk '/malleable-run: launch 2:/ { on = 1 }
       on && /\] iter +[0-9]+ +grid 2x4 / { for (i = 1; i < NF; ++i) if ($i == "wall") s += $(i + 1) }
       END { printf "%d", s }' "$out"
}
for ((i = 0; i < 1200; ++i)); do (($(grown_ms) >= 3000)) && break; sleep 0.05; done
(($(grown_ms) >= 3000)) || fail "the grown job did not run 3 s of iterations within 60 s ($(grown_ms) ms)"
touch "$d/stop"
slurm_wait_end "$job" 60
grep -E "malleable-run:|\[slurm\]|stop requested|result check" "$out"
launches=$(grep -o "malleable-run: launch [0-9]*: [0-9]* processes" "$out" | awk '{print $4}' | tr '\n' ' ')
[[ $launches == "4 8 " ]] || fail "launches with '$launches' processes, expected 4 8"
after=$(awk '/malleable-run: launch 2:/ { on = 1 } on' "$out")
! grep -E "growing onto held node|Slurm granted|runs none of this job's processes" <<<"$after" ||
  fail "after the relaunch the policy grew again or found node2 running nothing"
grep -q "result check.*OK" "$out" || fail "no result check OK: $(grep -o 'result check.*' "$out")"
none_left pdgemm_resizable node1 node2
echo "relaunched onto the merged node2 after the expansion's deadline: 4 processes on each node, no growth after; check OK"
echo "PASS"
