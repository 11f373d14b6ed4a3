#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# With the Slurm policy: resizes by restart under the emulated
# cluster's Slurm. A batch job (sbatch -N 2, 2 tasks per node) runs malleable-run
# --hosts slurm with the PDGEMM driver, --mechanism restart -p slurm, on 4 processes (2x2).
# A rigid job asking for 1 node is then submitted and waits: the policy gives node2 back
# by restart (checkpoint, exit 4, .next naming node1); malleable-run returns node2 to Slurm
# (squeue must show the first job on node1 alone while the rigid one runs on node2) and
# relaunches on node1 with 2 processes (1x2). When the rigid job ends (the test lets it
# end once it saw both jobs side by side and the relaunch computing), node2 is idle: the
# policy obtains it (salloc expand, merged into the job) and the job grows back by restart
# onto node1,node2 (4 processes, 2x2), Slurm listing node[1-2] for it again. A stop file
# ends it; the driver's check against serial OpenBLAS must pass.
# Mode fallback: the mechanism is spawn but spawning is off (BLACS_DYN_SPAWN=off, as where
# MPI_Comm_spawn does not work): the shrink in place is refused (node2's processes are of
# the first launch, sharing MPI_COMM_WORLD with rank 0) and the growth's spawn fails; the
# driver falls back to restart for both, with the same launches (the policy returns a
# failed expansion's nodes only at its next remap point, after the restart took them).
# Usage: slurm_by_restart.sh <source dir> <build dir> [restart|fallback]
SRC=$1 BUILD=$2 MODE=${3:-restart}
. "$SRC/tests/cluster/harness.sh"
slurm_begin "byrestart rigid malleable-expand" 2
nodes_of() { "$CLUSTER" exec head squeue -h -j "$1" -o %N 2>/dev/null; }
mech="--mechanism restart" launch=3 spawn=
[[ $MODE == fallback ]] && mech='' spawn="export BLACS_DYN_SPAWN=off"
slurm_job_script "$work/job.sh" \
  "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2" "$spawn" \
  "exec $BUILD/bin/malleable-run -n 4 --hosts slurm -- $BUILD/apps/pdgemm_resizable -n 480 --nb 32 \\" \
  "  -g 2x2 -i 1000000 -p slurm $mech --checkpoint $d --keep 2 --stop-file $d/stop"
job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J byrestart -N 2 --ntasks-per-node=2 -o "$out" "$work/job.sh")
wait_for "$out" "\] iter +1 +grid 2x2" 60 >/dev/null
# The rigid job holds its node until the test has seen it beside the first job (a file, not
# a time: a "sleep 3" could end before a loaded test looked).
rigid=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -t 5 -o "$work/rigid.out" \
        --wrap "while [ ! -e $work/rigid-go ]; do sleep 0.1; done")
gave=$(wait_for "$out" "malleable-run: gave .* back to Slurm" 30)
grep -q "gave node2 back to Slurm; job $job now holds node1\$" <<<"$gave" || fail "expected node2 given back: $gave"
echo "$gave"
# Slurm's view while the job runs on node1 alone: the rigid job on node2 beside it.
side=
for ((i = 0; i < 200; ++i)); do
  [[ $(nodes_of "$job") == node1 && $(nodes_of "$rigid") == node2 ]] && { side=1; break; }
  sleep 0.1
done
[[ -n $side ]] || fail "squeue never showed job $job on node1 beside the rigid job on node2 ($(nodes_of "$job") / $(nodes_of "$rigid"))"
echo "squeue: job $job on node1, rigid job $rigid on node2"
wait_for "$out" "\] iter +[0-9]+ +grid 1x2" 30 >/dev/null
touch "$work/rigid-go"  # the rigid job ends: node2 idle
# The growth is the event waited for; the bound only guards against a hang. Slurm 22.05 may
# list a node idle and not hand it out for ~200 s after a shrink and a job on it (slurm.hpp,
# Refused): each salloc it does not serve within its --immediate=10 is retried after the
# policy's back-off (10 s, doubling to 60 s). 90 s was too short once in CI under load (three
# refusals); 300 s covers the ~200 s and the back-off's 60 s after it.
grow=$(wait_for "$out" "malleable-run: launch $launch: 4 processes on node1:2,node2:2" 300)
echo "$grow"
wait_for "$out" "\] iter +[0-9]+ +grid 2x2 " 60 >/dev/null
[[ $(nodes_of "$job") == "node[1-2]" ]] || fail "after the growth Slurm lists $(nodes_of "$job") for job $job"
touch "$d/stop"
slurm_wait_end "$job" 60
grep -E "^\[slurm\]|resize by restart|malleable-run:" "$out"
grep -q "\[slurm\] shrinking to give back node2" "$out" || fail "the Slurm policy did not decide the shrink"
grep -q "\[slurm\] Slurm granted node2" "$out" || fail "the Slurm policy did not obtain node2"
grep -Eq "resize by restart after iteration [0-9]+: 1x2 -> 2x2 \(4 processes\)" "$out" || fail "no growth by restart 1x2 -> 2x2"
grep -Eq "resize by restart after iteration [0-9]+: 2x2 -> 1x2 \(2 processes\)" "$out" || fail "no shrink by restart 2x2 -> 1x2"
grep -q "malleable-run: launch 2: 2 processes on node1:2" "$out" || fail "the second launch was not 2 processes on node1"
if [[ $MODE == fallback ]]; then
  grep -q "the shrink in place failed (.*original processes.*): resizing by restart instead" "$out" || fail "the shrink did not fall back to restart"
  grep -q "the expansion by spawn failed (.*): resizing by restart instead" "$out" || fail "the growth did not fall back to restart"
  ! grep -q "the expansion failed; returned" "$out" || fail "the policy returned node2 before the restart"
fi
c=$(grep -o "result check.*" "$out") || { cat "$out"; fail "no result check"; }
echo "$c"
grep -q "OK" <<<"$c" || fail "the result check failed"
echo "PASS"
