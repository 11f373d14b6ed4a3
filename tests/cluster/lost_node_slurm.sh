#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Under the emulated cluster's Slurm: a batch job (sbatch --no-kill -N 3, 2
# tasks per node) runs malleable-run --hosts slurm --on-failure restart with a job of
# 6 processes (2x3) checkpointing every 5 iterations. node3 is set DOWN (scontrol update)
# and every process of the job on it is SIGKILLed (the crash) while iteration 13 holds them
# (RESIZE_FAULT=pause-in-iteration); the last checkpoint was taken after iteration 10. The job must end within 30 s
# with a message naming node3, and continue in its allocation without it from the newest
# complete checkpoint on node1,node2 (4 processes, 2x2); the restarted job runs one
# iteration (a stop file made before the crash) and passes the driver's check against
# serial OpenBLAS.
# Usage: lost_node_slurm.sh <source dir> <build dir>
SRC=$1 BUILD=$2
. "$SRC/tests/cluster/harness.sh"
slurm_begin lost 3
prog=pdgemm_resizable
now() { echo "$EPOCHREALTIME"; }
slurm_job_script "$work/job.sh" \
  "export RESIZE_FAULT=pause-in-iteration:13:120:$d/go" \
  "exec $BUILD/bin/malleable-run -n 6 --hosts slurm --on-failure restart -- $BUILD/apps/$prog -n 240 --nb 16 \\" \
  "  -g 2x3 -i 100000 --checkpoint $d --checkpoint-every 5 --keep 3 --stop-file $d/stop"
job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable --no-kill -J lost -N 3 --ntasks-per-node=2 -o "$out" "$work/job.sh")
wait_for "$out" "\] iter +1 +grid 2x3" 90 >/dev/null
victims=$(pids_on node3 $prog)
[[ $(wc -w <<<"$victims") -eq 2 ]] || fail "expected 2 processes of the job on node3, found '$victims'"
wait_for "$out" "fault injection - every process pauses 120 s in iteration 13" 60 >/dev/null
# The stop file before the crash, while every process is held (none looks for it before the
# pause ends): the restarted job, which can only start after the crash, ends after its
# first iteration whatever the load (made after the lost-node line, it could run more).
touch "$d/stop"
t_kill=$(now)
"$CLUSTER" exec head scontrol update nodename=node3 state=down reason=lost_node_test
kill -9 $victims
touch "$d/go"  # the survivors go on once node3's processes are dead (the pause's release file)
lost=$(wait_for "$out" "malleable-run: lost node" 60)
t_end=$(now)
echo "$lost"
grep -q "lost node node3 " <<<"$lost" || fail "the message does not name node3 alone: $lost"
awk -v a="$t_kill" -v b="$t_end" 'BEGIN{exit !(b - a <= 30)}' || fail "the job took $(secs "$t_kill" "$t_end") s to end"
first=$(wait_for "$out" "\] iter +[0-9]+ +grid 2x2 " 60)
t_first=$(now)
slurm_wait_end "$job" 120
restart=$(grep -m1 "malleable-run: restarting from" "$out") || { cat "$out"; fail "no restart"; }
echo "$restart"
grep -q "on node1,node2: 4 processes, grid 2x2" <<<"$restart" || fail "not restarted on node1,node2 2x2"
it_ck=$((10#$(sed -E 's/.*-([0-9]{6})\.h5 .*/\1/' <<<"$restart")))
it_last=$(grep -E "\] iter +[0-9]+ +grid 2x3" "$out" | tail -1 | awk '{print $3}')
[[ $(awk '{print $3}' <<<"$first") -eq $((it_ck + 1)) ]] || fail "restarted from iteration $it_ck but continued at: $first"
grep -q "result check: B = (sA)^$((it_ck + 1)) B0: .*OK" "$out" || { cat "$out"; fail "the restarted job's result check"; }
[[ $(grep -c "stop requested" "$out") -eq 1 ]] || { cat "$out"; fail "expected one stop (the restarted job's)"; }
[[ $it_last -eq 12 && $it_ck -eq 10 ]] || fail "killed after iteration $it_last (expected 12), restarted from $it_ck (expected 10)"
echo "$(grep -o 'result check.*' "$out")"
echo "RESULT slurm: killed after iteration $it_last, restarted in the allocation from the checkpoint of iteration" \
  "$it_ck: $((it_last - it_ck)) iterations lost; job ended $(secs "$t_kill" "$t_end") s after the kill, first" \
  "iteration on node1,node2 $(secs "$t_kill" "$t_first") s after it (output polled every 0.05 s)"
echo "PASS"
