#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The emulated cluster refuses what a site's pam_slurm_adopt refuses: a launch from a Slurm
# job onto a node the job does not hold (scripts/cluster-rsh, Open MPI's rsh agent, checks
# $SLURM_JOB_ID against squeue). Inside a batch job on node1 of 3:
#   - a launch onto node1 (its own) runs; onto node2 is refused (exit 255) and logged;
#   - Open MPI's mpiexec onto node1,node2 with Slurm's allocation ignored (ras ^slurm, as
#     the workload's host pool of every node did) fails: its daemon on node2 is refused;
#   - once an expansion allocation of node2 is merged into the job (permit_job_expansion:
#     salloc --dependency=expand, scontrol update NumNodes=0 / NumNodes=ALL, as the Slurm
#     policy does), the launch onto node2 runs;
#   - node3, never the job's, stays refused; and after the job ended its ID is refused
#     everywhere.
# Usage: launch_outside_allocation.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
slurm_begin "adopt adopt-expand" 3 --slots 2
RSH=$SRC/scripts/cluster-rsh
log=/run/malleable-cluster/slurm/log/adopt.log
slurm_job_script "$work/job.sh" \
  "set -u" \
  "r() { echo \"rsh \$1: \$($RSH \$1 hostname 2>&1; echo rc=\$?)\" | tr '\\n' ' '; echo; }" \
  "r node1; r node2" \
  "if mpiexec --mca ras ^slurm --oversubscribe --bind-to none -n 2 --host node1,node2 hostname >$work/mpi.out 2>&1; then echo mpiexec=ok; else echo mpiexec=failed; fi" \
  "echo ready-to-grow" \
  "while [ ! -e $work/merged ]; do sleep 0.1; done" \
  "r node2; r node3" \
  "echo done"
job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J adopt -N 1 -w node1 -o "$out" "$work/job.sh")
wait_for "$out" "^ready-to-grow" 60 >/dev/null
cat "$out"
grep -q "^rsh node1: node1 rc=0" "$out" || fail "the launch onto the job's own node1 did not run"
grep -q "^rsh node2: cluster-rsh: Access denied by pam_slurm_adopt on node2: job $job does not hold node2 .*rc=255" "$out" ||
  fail "the launch onto node2 (not the job's) was not refused"
grep -q "^mpiexec=failed" "$out" || fail "mpiexec onto node1,node2 ran though node2 is not the job's: $(cat "$work/mpi.out")"
grep -q "node2" "$work/mpi.out" || fail "mpiexec's failure does not name node2: $(cat "$work/mpi.out")"
grep -q "refused launch on node2 from job $job: job $job does not hold node2" "$log" ||
  fail "no refusal logged in $log: $(cat "$log" 2>/dev/null)"
# node2 merged into the job: it holds node[1-2] now
# in $work: `scontrol update ... NumNodes=` writes slurm_job_<id>_resize.{sh,csh} into its
# working folder (the test's would be the build tree)
S() { (cd "$work" && "$CLUSTER" exec head "$@"); }
got=$(S salloc -N 1 -w node2 --no-shell --immediate=10 -J adopt-expand --dependency=expand:"$job" 2>&1) ||
  fail "the expansion allocation: $got"
other=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$got")
[[ -n $other ]] || fail "no expansion job in: $got"
S scontrol update JobId="$other" NumNodes=0 >/dev/null 2>&1 || fail "handing job $other over"
S scontrol update JobId="$job" NumNodes=ALL >/dev/null 2>&1 || true  # may say "DB index" yet merge
for ((i = 0; i < 50; ++i)); do
  [[ $(S squeue -h -j "$job" -o %N) == "node[1-2]" ]] && break
  sleep 0.2
done
[[ $(S squeue -h -j "$job" -o %N) == "node[1-2]" ]] || fail "node2 was not merged into job $job: $(S squeue -h -j "$job" -o %N)"
touch "$work/merged"
wait_for "$out" "^done" 60 >/dev/null
tail -3 "$out"
grep -q "^rsh node2: node2 rc=0" "$out" || fail "the launch onto node2 once merged into the job did not run"
grep -q "^rsh node3: cluster-rsh: Access denied by pam_slurm_adopt on node3: job $job does not hold node3 .*rc=255" "$out" ||
  fail "the launch onto node3 (never the job's) was not refused"
slurm_wait_end "$job" 30
o=$("$CLUSTER" exec node1 env SLURM_JOB_ID="$job" "$RSH" node1 true 2>&1) && fail "a launch from the ended job $job ran on node1"
grep -q "Access denied" <<<"$o" || fail "the ended job's launch: $o"
echo "after the job ended: $o"
echo "refusals logged: $(grep -c refused "$log")"
echo PASS
