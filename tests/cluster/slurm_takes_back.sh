#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Slurm takes the nodes back while an expansion by spawn is under way: the expansion must
# end as a resize by restart on what the job holds then. A batch job (sbatch --no-kill
# -N 1 -w node1, 4 tasks) runs malleable-run --hosts slurm with the PDGEMM driver,
# the Slurm policy (-p slurm, mechanism spawn, --checkpoint): node2 is idle, so the policy
# obtains it (salloc expand, merged into the job) and spawns 4 processes there, the last of
# which stalls before its MPI_Init (BLACS_DYN_FAULT=stall-newcomer-in-init: the spawn
# stays under way). Once the session has secured the state before the spawn ("before the
# spawn after iter K"), Slurm takes node2 back:
#   down    scontrol update NodeName=node2 State=DOWN (the node fails under the job;
#           --no-kill keeps the job on node1; it stays DOWN: ReturnToService=1)
#   revoke  scontrol update JobId=J NodeList=node1 (the allocation shrunk by hand), and a
#           rigid job takes node2 at once (so the policy cannot grow onto it again)
# The spawn's deadline (RESIZE_SPAWN_DEADLINE=10) passes, every process exits 4 (or the
# launcher ends with its daemon on node2 first), and
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
slurm_begin "takeback rigid malleable-expand" 2
stalled_spawn_job takeback "" --checksums
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
slurm_wait_end "$job" 60
grep -E "before the spawn|did not complete|malleable-run:|stop requested|result check" "$out"
# The expansion ends either at the spawn's deadline or, when Slurm's taking node2 back ends
# the launcher's daemon there first (the allocation enforced as pam_slurm_adopt does),
# with mpiexec's own exit during the spawn: both are a resize by restart from iteration K.
grep -qE "did not complete within its spawn deadline 10.0 s|^malleable-run: launch 1 ended with status [0-9]+ during an expansion by spawn: a resize by restart from $d/pdgemm-$(printf %06d "$k").h5" "$out" ||
  fail "the expansion did not end by its deadline nor by the launcher's exit during the spawn"
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
none_left pdgemm_resizable node1 node2
echo "Slurm took node2 back ($MODE) during the expansion after iteration $k: relaunched on node1 (2x2) from iteration $k, ended after iteration $m; check OK, checksums equal to an uninterrupted run of $m iterations"
echo "PASS"
