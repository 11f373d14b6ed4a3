#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Growing under a stock Slurm by expander jobs (docs/guide/joining.md, "Under Slurm"): the
# cluster has no permit_job_expansion (cluster.sh up 2 --slurm --no-expansion). A batch job
# (sbatch -N 1 -w node1, 2 tasks) runs the PDGEMM driver under malleable-run
# --job-dir with the Slurm policy. node2 is idle: the policy submits one expander job for it
# (sbatch, the job's own user, named malleable-expand-J), whose launch joins the job at a
# remap point (1x2 -> 2x2 by join); the job's ID and its own allocation (node1) stay as
# they are. A rigid job then waits for a node: the job gives node2 back by a shrink off it,
# the expander's launch leaves, the expander ends, and Slurm starts the rigid job on node2.
# Required: every step in the job's output, the processes on node2 gone, the rigid job
# running on node2, no launch refused by the cluster's pam_slurm_adopt stand-in, the
# driver's result check against serial OpenBLAS after the stop file, nothing left.
# Refusals (MODE):
#   silent     the expander's launch never asks to join (MALLEABLE_RUN_FAULT=silent-expander):
#              the policy cancels the expander after RESIZE_SLURM_JOIN_DEADLINE (5 s) of its
#              running, node2 is idle again, the job computes on at 1x2 and asks for no node
#              again within its back-off (RESIZE_SLURM_BACKOFF=1000)
#   cancelled  the job is cancelled (scancel) while it runs on node2 through its expander:
#              the expander's launch ends with the job (--while-job), the expander ends,
#              node2 is idle, nothing of the job is left on either node
# Usage: slurm_join.sh <source dir> <build dir> [grow|silent|cancelled]
SRC=$1 BUILD=$2 MODE=${3:-grow}
[[ $MODE == grow || $MODE == silent || $MODE == cancelled ]] || { echo "FAILED: mode must be grow, silent or cancelled"; exit 2; }
. "$SRC/tests/cluster/harness.sh"
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; joins between launches need it)"; exit 77; }
slurm_begin "joinjob rigid" 2 --no-expansion
app=pdgemm_resizable
P=("$BUILD/apps/$app" -n 240 --nb 16 -g 1x2)
fault="export RESIZE_SLURM_JOIN_DEADLINE=120"
[[ $MODE == silent ]] && fault="export RESIZE_SLURM_JOIN_DEADLINE=5 RESIZE_SLURM_BACKOFF=1000 MALLEABLE_RUN_FAULT=silent-expander"
slurm_job_script "$work/job.sh" \
  "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2 RESIZE_SLURM_SHARED=off" \
  "export BLACS_DYN_JOIN_TIMEOUT=90" "$fault" \
  "exec $BUILD/bin/malleable-run -n 2 --job-dir $work/job -- ${P[*]} -i 1000000 -p slurm --stop-file $d/stop --json $work/job.json"
job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J joinjob -N 1 -w node1 --ntasks-per-node=2 -o "$out" "$work/job.sh") ||
  fail "the job was refused"
slurm_jobs+=" malleable-expand-$job"  # cancelled at the end (slurm_end), whatever happened
wait_for "$out" "growth by expander jobs" 120 >/dev/null
wait_for "$out" "submitted expander job\(s\) [0-9]+ on node2" 120
exp=$(grep -o "submitted expander job(s) [0-9]* on node2" "$out" | awk '{print $4}' | head -1)
idle2() {  # node2 idle in Slurm's view within 30 s, or the test failed
  local st
  for _ in $(seq 1 300); do st=$("$CLUSTER" exec head sinfo -h -n node2 -o %t); [[ $st == idle ]] && return 0; sleep 0.1; done
  fail "node2 is '$st', not idle, 30 s after $1"
}
if [[ $MODE == silent ]]; then
  wait_for "$out" "cancelled expander job\(s\) $exp \(its launch did not ask to join within 5 s of its start\)" 120
  idle2 "its expander was cancelled"
  k=$(grep -c "^\[pdgemm\] iter" "$out")
  for _ in $(seq 1 300); do (($(grep -c "^\[pdgemm\] iter" "$out") >= k + 20)) && break; sleep 0.1; done
  (($(grep -c "^\[pdgemm\] iter" "$out") >= k + 20)) || fail "the job did not compute on after the cancellation"
  touch "$d/stop"
  slurm_wait_end "$job" 120
  grep -E "\[slurm\]|expander|expand|shrink|malleable-run:|result check" "$out"
  ! grep -q "expand 1x2" "$out" || fail "the job grew although its expander's launch never joined"
  (($(grep -c "submitted expander" "$out") == 1)) || fail "another expander within the back-off"
  grep -Eq "result check.*OK" "$out" || fail "the result check"
  grep -q "fault injection - launch" "$work/job/expanders/$exp.out" || fail "the expander's output does not show the fault"
  none_left $app node1 node2
  echo "the expander $exp whose launch never asked to join was cancelled; node2 idle again; job $job computed on at 1x2"
  echo "PASS"
  exit 0
fi
grew=$(wait_for "$out" "expand 1x2 -> 2x2 .*join" 240)
echo "$grew"
[[ -n $(pids_on node2 $app) ]] || fail "no process of the job on node2 after the growth"
# Slurm's scheduling latency for the expander, apart from the join (seconds, Slurm's clock)
sched=$("$CLUSTER" exec head squeue -h -j "$exp" -o "%V|%S")
lat=$(python3 -c 'import sys, datetime as d; a, b = (d.datetime.fromisoformat(x) for x in sys.argv[1].split("|")); print(int((b - a).total_seconds()))' "$sched") ||
  fail "the expander's submit and start times: '$sched'"
echo "expander $exp: submitted to started ${lat} s (Slurm's times, 1 s resolution)"
name=$("$CLUSTER" exec head squeue -h -j "$exp" -o "%j|%T|%N")
[[ $name == "malleable-expand-$job|RUNNING|node2" ]] || fail "the expander job $exp is '$name'"
mine=$("$CLUSTER" exec head squeue -h -j "$job" -o "%T|%N")
[[ $mine == "RUNNING|node1" ]] || fail "the job's own allocation changed: '$mine'"
if [[ $MODE == cancelled ]]; then
  "$CLUSTER" exec head scancel "$job" || fail "scancel $job"
  slurm_wait_end "$job" 60
  for _ in $(seq 1 600); do [[ -z $("$CLUSTER" exec head squeue -h -j "$exp" -o %T 2>/dev/null) ]] && break; sleep 0.1; done
  [[ -z $("$CLUSTER" exec head squeue -h -j "$exp" -o %T 2>/dev/null) ]] || fail "the expander $exp still runs 60 s after its job was cancelled"
  idle2 "the job was cancelled"
  for _ in $(seq 1 200); do [[ -z "$(pids_on node1 $app)$(pids_on node2 $app)" ]] && break; sleep 0.1; done
  none_left $app node1 node2
  grep -E "expander|malleable-run:" "$work/job/expanders/$exp.out" || true
  echo "job $job cancelled while its expander $exp ran node2's launch: the expander ended, node2 idle, nothing left"
  echo "PASS"
  exit 0
fi
# A rigid job waits for a node: node2 goes back to Slurm.
rigid=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -o "$work/rigid.out" --wrap "sleep 300") ||
  fail "the rigid job was refused"
wait_for "$out" "shrink 2x2 -> 1x2 .*" 240
for _ in $(seq 1 600); do
  [[ $("$CLUSTER" exec head squeue -h -j "$rigid" -o "%T|%N") == "RUNNING|node2" ]] && break
  sleep 0.1
done
st=$("$CLUSTER" exec head squeue -h -j "$rigid" -o "%T|%N")
[[ $st == "RUNNING|node2" ]] || fail "the rigid job is '$st', not running on node2 60 s after the give-back"
[[ -z $(pids_on node2 $app) ]] || fail "processes of the job still on node2 after the give-back"
[[ -z $("$CLUSTER" exec head squeue -h -j "$exp" -o %T 2>/dev/null) ]] || fail "the expander job $exp still listed"
k=$(grep -c "^\[pdgemm\] iter" "$out")
for _ in $(seq 1 600); do (($(grep -c "^\[pdgemm\] iter" "$out") >= k + 2)) && break; sleep 0.1; done
(($(grep -c "^\[pdgemm\] iter" "$out") >= k + 2)) || fail "the job did not compute on after the give-back"
[[ $("$CLUSTER" exec head squeue -h -j "$job" -o "%T|%N") == "RUNNING|node1" ]] || fail "job $job is no longer running on node1"
touch "$d/stop"
slurm_wait_end "$job" 120
grep -E "\[slurm\]|expander|expand|shrink|malleable-run:|result check" "$out"
grep -Eq "result check.*OK" "$out" || fail "the result check"
adopt=/run/malleable-cluster/slurm/log/adopt.log
! grep -q "refused launch" "$adopt" 2>/dev/null || fail "launches refused: $(grep 'refused launch' "$adopt")"
none_left $app node1 node2
python3 - "$work/job.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["resizes"]
assert [x["mechanism"] for x in r] == ["join", "exit"] and all(x["ok"] for x in r), r
print(f"1x2 -> 2x2 onto node2 by its expander's launch: whole resize {r[0]['t_total_s']*1e3:.0f} ms; "
      f"2x2 -> 1x2 giving node2 back: {r[1]['t_total_s']*1e3:.0f} ms")
PY
echo "job $job grew onto node2 by expander job $exp and gave it back to rigid job $rigid, its ID and allocation unchanged"
echo "PASS"
