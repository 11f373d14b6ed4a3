#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one recipe under a stock Slurm (docs/guide/slurm.md): cluster.sh up 4 --slurm
# --no-expansion. node4 is busy (a rigid job). The malleable job is submitted
#   sbatch -N 2-4 --ntasks-per-node=2 --time=30 job.sh    (job.sh: malleable-run --job-dir DIR -- ./prog ... -p slurm)
# with no --hosts and no -n: it starts on what Slurm gives (node1-3), one launch per node
# (node2's and node3's join node1's at the start). A rigid job then waits for a node: the
# job gives back a node it started on that is not the batch host (a shrink off it, then
# scontrol update NodeList=), the node leaves the job's allocation, the rigid job starts
# on it, no process of the job is left there, the job's ID is unchanged. node4 is then
# freed: the job grows onto it by an expander job whose launch joins it. After the stop
# file the result is checked against serial OpenBLAS; nothing of the job is left.
# Usage: slurm_recipe.sh <source dir> <build dir> [c|f]: with c or f, the porting guide's
# C or Fortran program (porting_malleable_c / _f, no argument) runs by the same recipe as
# the page writes it (RESIZE_POLICY=slurm) instead, starts on every process Slurm gave and
# ends with its result checked (a short run: the policy decides what it decides).
set -uo pipefail
SRC=$1 BUILD=$2 MODE=${3:-pdgemm}
. "$SRC/tests/cluster/harness.sh"
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; joins between launches need it)"; exit 77; }
slurm_begin "recipe rigid blocker" 4 --no-expansion
run=$BUILD/bin/malleable-run
env_line="export RESIZE_SLURM_MIN_NODES=2 RESIZE_SLURM_MAX_NODES=4 RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_SHARED=off BLACS_DYN_JOIN_TIMEOUT=90 RESIZE_SLURM_JOIN_DEADLINE=120"

if [[ $MODE == c || $MODE == f ]]; then
  app=porting_malleable_$MODE
  # as docs/guide/slurm.md writes it: RESIZE_POLICY=slurm, the program with no argument
  slurm_job_script "$work/job.sh" "export RESIZE_POLICY=slurm" "$env_line" "exec $run --job-dir $work/job -- $BUILD/apps/$app"
  job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J recipe -N 2-4 --ntasks-per-node=2 --time=30 -o "$out" "$work/job.sh") ||
    fail "the job was refused"
  slurm_wait_end "$job" 240
  cat "$out"
  grep -Eq "malleable-run: launch 1: [0-9]+ processes on node1:2 \(joined at its start by the launches" "$out" ||
    fail "the job did not start as one launch per node"
  grep -Eq "^\[slurm\] job $job:" "$out" || fail "the program did not run under the Slurm policy"
  grep -q "^\[$app\] policy slurm from RESIZE_POLICY, in place of the program's scripted" "$out" ||
    fail "RESIZE_POLICY=slurm did not replace the program's schedule"
  grep -Eq "^\[$app\] start on (2x3 \(6|2x2 \(4|2x4 \(8) processes; .*policy slurm;" "$out" ||
    fail "the program did not start on every process Slurm gave, under the Slurm policy"
  grep -Eq "== summary: $app .*policy slurm \(RESIZE_POLICY" "$out" || fail "the summary does not name the policy"
  grep -Eq "$app: 8 iterations, now on [0-9]+x[0-9]+, max error .*: OK" "$out" || fail "the result check"
  none_left "$app" node1 node2 node3 node4
  echo "PASS"
  exit 0
fi

app=pdgemm_resizable
blocker=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J blocker -N 1 -w node4 -o /dev/null --wrap "sleep 600") ||
  fail "the blocker was refused"
for _ in $(seq 1 300); do [[ $("$CLUSTER" exec head squeue -h -j "$blocker" -o %T) == RUNNING ]] && break; sleep 0.1; done
slurm_job_script "$work/job.sh" "$env_line" \
  "exec $run --job-dir $work/job -- $BUILD/apps/$app -n 240 --nb 16 -g 2x3 -i 1000000 -p slurm --stop-file $d/stop --json $work/job.json"
job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J recipe -N 2-4 --ntasks-per-node=2 --time=30 -o "$out" "$work/job.sh") ||
  fail "the job was refused"
slurm_jobs+=" malleable-expand-$job"
wait_for "$out" "malleable-run: launch 1: 6 processes on node1:2 \(joined at its start by the launches .*,.*\)" 120 >/dev/null
wait_for "$out" "^\[pdgemm\] iter +3 " 120 >/dev/null
for n in node1 node2 node3; do [[ -n $(pids_on $n $app) ]] || fail "no process of the job on $n at its start"; done
[[ $("$CLUSTER" exec head squeue -h -j "$job" -o "%T|%N") == "RUNNING|node[1-3]" ]] || fail "the job's allocation is not node[1-3]"
echo "ok: the job started on what Slurm gave, node[1-3], one launch per node"
# Why the recipe repeats -N's range in RESIZE_SLURM_MIN_NODES (docs/guide/slurm.md): the
# running job's record no longer names its minimum, 2
record=$("$CLUSTER" exec head scontrol show job "$job")
grep -q "NumNodes=" <<<"$record" || fail "scontrol show job printed no NumNodes: $record"
! grep -Eq "NumNodes=2-|MinNodes=2" <<<"$record" || fail "Slurm keeps the job's minimum now: the recipe's RESIZE_SLURM_MIN_NODES could go"
echo "ok: the running job's record keeps no minimum ($(grep -o 'NumNodes=[^ ]*' <<<"$record"))"

# A rigid job waits: the job gives a node it started on back, never the batch host.
rigid=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -o /dev/null --wrap "sleep 600") ||
  fail "the rigid job was refused"
t0=$(date +%s.%N)
wait_for "$out" "shrink [0-9x]+ -> [0-9x]+ .*gave back node[23]" 240
given=$(grep -m1 -o "gave back node[23]" "$out" | awk '{print $3}')
for _ in $(seq 1 600); do
  [[ $("$CLUSTER" exec head squeue -h -j "$rigid" -o "%T|%N") == "RUNNING|$given" ]] && break
  sleep 0.1
done
t1=$(date +%s.%N)
st=$("$CLUSTER" exec head squeue -h -j "$rigid" -o "%T|%N")
[[ $st == "RUNNING|$given" ]] || fail "the rigid job is '$st', not running on $given 60 s after the give-back"
mine=$("$CLUSTER" exec head squeue -h -j "$job" -o "%i|%T|%N")
[[ $mine == "$job|RUNNING|node["*"]" && $mine != *"$given"* ]] || fail "the job after the give-back: '$mine'"
[[ -z $(pids_on "$given" $app) ]] || fail "processes of the job still on $given after the give-back"
printf 'ok: gave back %s (a start node, not the batch host) to the rigid job %s: %.1f s from its submission to it running there; the job %s\n' \
  "$given" "$rigid" "$(echo "$t1 - $t0" | bc -l)" "$mine"

# node4 frees: the job grows onto it by an expander job.
"$CLUSTER" exec head scancel "$blocker"
wait_for "$out" "submitted expander job\(s\) [0-9]+ on node4" 120
wait_for "$out" "expand [0-9x]+ -> [0-9x]+ .*join" 240
[[ -n $(pids_on node4 $app) ]] || fail "no process of the job on node4 after the growth"
[[ $("$CLUSTER" exec head squeue -h -j "$job" -o "%i|%T") == "$job|RUNNING" ]] || fail "the job's ID or state changed"
echo "ok: grew onto node4 by an expander job"
touch "$d/stop"
slurm_wait_end "$job" 120
grep -E "\[slurm\]|expander|expand|shrink|malleable-run:|result check" "$out"
grep -Eq "result check.*OK" "$out" || fail "the result check"
"$CLUSTER" exec head scancel "$rigid"
none_left $app node1 node2 node3 node4
echo "PASS"
