#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Slurm takes the nodes back while an expansion by spawn is under way: the expansion must
# end as a resize by restart on what the job holds then. A batch job (sbatch --no-kill
# -N 1 -w node1, 4 tasks) runs scripts/malleable-run --hosts slurm with the PDGEMM driver,
# the Slurm policy (-p slurm, mechanism spawn, --checkpoint): node2 is idle, so the policy
# obtains it (salloc expand, merged into the job) and spawns 4 processes there, the last of
# which stalls before its MPI_Init (BLACS_DYN_FAULT=stall-newcomer-in-init: the spawn
# stays under way). Once the session has secured the state before the spawn ("before the
# spawn after iter K"), Slurm takes node2 back:
#   down    scontrol update NodeName=node2 State=DOWN (the node fails under the job;
#           --no-kill keeps the job on node1; it stays DOWN: ReturnToService=1)
#   revoke  scontrol update JobId=J NodeList=node1 (the allocation shrunk by hand), and a
#           rigid job takes node2 at once (so the policy cannot grow onto it again)
# The spawn's deadline (RESIZE_SPAWN_DEADLINE=10) passes, every process exits 4, and
# malleable-run, whose DIR/pdgemm.next names node1,node2 (2x4), must relaunch on node1
# alone with 4 processes on 2x2 from the checkpoint of iteration K ("malleable-run: Slurm
# took node2 ... back"). A stop file ends the job after iteration M; required: the driver's
# check against serial OpenBLAS, checksums equal to an uninterrupted 2x2 run of M
# iterations on node1, the relaunch from exactly iteration K, and no process of the job left
# on either node.
# Usage: slurm_takes_back.sh <source dir> <build dir> <down|revoke>
SRC=$1 BUILD=$2 MODE=${3:-down}
[[ $MODE == down || $MODE == revoke ]] || { echo "FAILED: mode must be down or revoke, got '$MODE'"; exit 2; }
. "$SRC/tests/cluster/harness.sh"
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
cluster_begin 2 --slurm
eval "export $("$CLUSTER" slurm-env)"
work=$(mktemp -d)
trap 'rc=$?; for n in takeback rigid malleable-expand; do "$CLUSTER" exec head scancel --name=$n >/dev/null 2>&1 || true; done; rm -rf "$work"; cluster_end $rc' EXIT
d=$work/ck out=$work/job.out
mkdir -p "$d"
P=("$BUILD/apps/pdgemm_resizable" -n 240 --nb 16 -g 2x2)
{
  echo "#!/bin/bash"
  echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
  echo "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off SLURM_CONF=$SLURM_CONF"
  echo "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2 RESIZE_SLURM_SHARED=off"
  echo "export BLACS_DYN_FAULT=stall-newcomer-in-init RESIZE_SPAWN_DEADLINE=10"
  echo "export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24"
  echo "export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$SRC/scripts/cluster-rsh"
  echo "echo \"job \$SLURM_JOB_ID on \$(hostname), allocation \$SLURM_JOB_NODELIST\""
  echo "exec $SRC/scripts/malleable-run -n 4 --hosts slurm -- ${P[*]} -i 1000000 -p slurm \\"
  echo "  --checkpoint $d --keep 3 --stop-file $d/stop --checksums"
} >"$work/job.sh"
chmod +x "$work/job.sh"
job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable --no-kill -J takeback -N 1 -w node1 --ntasks-per-node=4 \
      -o "$out" "$work/job.sh")
before=$(wait_for "$out" "before the spawn after iter [0-9]+" 120)
k=$(grep -o "after iter [0-9]*" <<<"$before" | awk '{print $3}')
echo "$before"
if [[ $MODE == down ]]; then
  "$CLUSTER" exec head scontrol update NodeName=node2 State=DOWN Reason=taken-back-by-the-test ||
    fail "scontrol could not set node2 DOWN"
else
  "$CLUSTER" exec head scontrol update JobId="$job" NodeList=node1 || fail "scontrol could not shrink job $job to node1"
  (cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -w node2 -o "$work/rigid.out" --wrap "sleep 300") >/dev/null ||
    fail "the rigid job on node2 was refused"
fi
echo "Slurm took node2 back ($MODE) while the spawn was under way"
took=$(wait_for "$out" "malleable-run: Slurm took node2.* back from job $job" 60)
echo "$took"
wait_for "$out" "malleable-run: launch 2: 4 processes on node1:4, -g 2x2 --restart $d/pdgemm-$(printf %06d "$k").h5" 10 >/dev/null
wait_for "$out" "\] iter +$((k + 3)) +grid 2x2 " 60 >/dev/null
touch "$d/stop"
for ((i = 0; i < 600; ++i)); do
  [[ -z $("$CLUSTER" exec head squeue -h -j "$job" -o %T 2>/dev/null) ]] && break
  sleep 0.1
done
[[ -z $("$CLUSTER" exec head squeue -h -j "$job" -o %T 2>/dev/null) ]] || fail "the Slurm job did not end"
grep -E "before the spawn|did not complete|malleable-run:|stop requested|result check" "$out"
grep -q "did not complete within its spawn deadline 10.0 s" "$out" || fail "no deadline message"
launches=$(grep -o "malleable-run: launch [0-9]*: [0-9]* processes" "$out" | awk '{print $4}' | tr '\n' ' ')
[[ $launches == "4 4 " ]] || fail "launches with '$launches' processes, expected 4 4"
m=$(grep -o "ending after iteration [0-9]*" "$out" | awk '{print $4}')
[[ -n $m ]] || fail "no stop line"
first=$(awk '/malleable-run: launch 2:/ { on = 1 } on && /\] iter +[0-9]+ / { print $3; exit }' "$out")
[[ $first == $((k + 1)) ]] || fail "the relaunch's first iteration is $first, expected $((k + 1)) (the checkpoint of iteration $k)"
c=$(grep -o "result check.*" "$out") || fail "no result check"
grep -q "B = (sA)^$m B0: .*OK" <<<"$c" || fail "result check: $c"
ref=$(mpirun_on node1 -n 4 "${P[@]}" -i "$m" -q --checksums 2>&1) || fail "the uninterrupted run on node1: $ref"
sums() { grep -o 'checksum .*' | sort; }
[[ -n $(sums <<<"$ref") && $(sums <"$out") == $(sums <<<"$ref") ]] ||
  fail "checksums $(sums <"$out" | tr '\n' ' ') differ from the uninterrupted run's $(sums <<<"$ref" | tr '\n' ' ')"
# Taken back means for good: the job never obtains node2 again (a DOWN node stays DOWN,
# scripts/cluster.sh's ReturnToService=1), and nothing grows onto it after the relaunch.
after=$(awk '/malleable-run: launch 2:/ { on = 1 } on' "$out")
! grep -E "Slurm granted|growing onto held node|malleable-run: launch 3" <<<"$after" ||
  fail "the job grew again after the relaunch onto node1"
if [[ $MODE == down ]]; then
  st=$("$CLUSTER" exec head sinfo -h -n node2 -o %t)
  [[ $st == down* ]] || fail "node2, set DOWN by the test, is '$st' now"
fi
for n in node1 node2; do
  left=$(pids_on $n pdgemm_resizable)
  [[ -z $left ]] || fail "processes of the job left on $n: $left"
done
echo "Slurm took node2 back ($MODE) during the expansion after iteration $k: relaunched on node1 (2x2) from iteration $k, ended after iteration $m; check OK, checksums equal to an uninterrupted run of $m iterations"
echo "PASS"
