#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Growth onto a node granted after launch, with Open MPI 4.1.4's launcher already running
# daemons on two nodes (it cannot add a third by spawn: the spawn would end the job). A
# PDGEMM job under malleable-run --hosts slurm starts on node1 and node2 (2x2), node3 idle;
# the Slurm policy merges node3 into the job (permit_job_expansion) and grows by restart
# onto it: malleable-run relaunches the job on node[1-3] (2x3), inside its allocation, and
# the emulated cluster's enforcement (scripts/cluster-rsh) refuses nothing. The result
# check must pass.
# Usage: slurm_grow_by_restart_merged.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
slurm_begin grow 3 --slots 2
log=/run/malleable-cluster/slurm/log/adopt.log
slurm_job_script "$work/job.sh" \
  "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=3 RESIZE_SLURM_SHARED=off" \
  "exec $BUILD/bin/malleable-run -n 4 --hosts slurm -- $BUILD/apps/pdgemm_resizable -n 240 --nb 16 -g 2x2 -i 1000000 -p slurm \\" \
  "  --checkpoint $d --keep 2 --stop-file $d/stop"
job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable --no-kill -J grow -N 2 -w node[1-2] --ntasks-per-node=2 \
      -o "$out" "$work/job.sh")
wait_for "$out" "growing by restart onto node3: the launcher runs daemons on node\[1-2\]" 120
wait_for "$out" "malleable-run: launch 2: 6 processes" 60
wait_for "$out" "\] iter +[0-9]+ +grid 2x3" 90
touch "$d/stop"
slurm_wait_end "$job" 60
grep -E "^\[slurm\]|malleable-run:|resize by restart" "$out"
grep -q "Slurm granted node3" "$out" || fail "node3 was not merged into job $job"
c=$(grep -o "result check.*" "$out" | tail -1) || fail "no result check"
echo "$c"
grep -q OK <<<"$c" || fail "the result check failed"
if grep -q refused "$log" 2>/dev/null; then fail "launches outside the allocation: $(grep refused "$log")"; fi
echo "launches allowed: $(grep -c allowed "$log" 2>/dev/null || echo 0), refused: 0"
echo PASS
