#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The recipe as docs/guide/slurm.md prints it (its first sh block, extracted here; the docs
# check docs.recipe_one_text keeps every copy that text), run on the emulated stock Slurm
# (cluster.sh up 4 --slurm --no-expansion) in the default mode: no arbiter, no
# RESIZE_SLURM_SHARED (this user's own directory), no export of the range or the policy.
# The job script is the recipe's lines in their order, with the test cluster's environment
# (Open MPI as root over cluster-rsh, the policy's pacing) after its #SBATCH lines, the
# built malleable-run for `malleable-run`, and `./solver ARGS` the PDGEMM driver with its
# own arguments (no -p slurm); HOME is a folder of the test's. node4 is busy (a rigid job),
# so the job starts on node[1-3] of -N 2-4: malleable-run reads the range from the batch
# script (scontrol write batch_script) and gives the program RESIZE_POLICY=slurm,
# RESIZE_SLURM_MIN_NODES=2, RESIZE_SLURM_MAX_NODES=4, which the program's start line
# shows. node4 is freed: the job grows onto it (max 4: without the range it would grow to
# no more than the 3 nodes it held). A rigid job then waits: the job gives a node back.
# After the stop file the result is checked; nothing of the job is left.
# With `arbiter`, the same under the site's arbiter: malleable-arbiterd (--expansion off) as
# the unprivileged user slurm in the head's namespace, the jobs' environment naming it as a
# site's would (RESIZE_ARBITER, RESIZE_ARBITER_MUNGE, RESIZE_ARBITER_USER): the job says
# `mode arbiter`, and the arbiter's decisions grow it and give the node back.
# Usage: slurm_recipe_text.sh <source dir> <build dir> [arbiter]
set -uo pipefail
SRC=$1 BUILD=$2 MODE=${3:-alone}
. "$SRC/tests/cluster/harness.sh"
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; joins between launches need it)"; exit 77; }
DAEMON=$BUILD/cluster/malleable-arbiterd
if [[ $MODE == arbiter ]]; then
  [[ -x $DAEMON ]] || { echo "SKIPPED: no malleable-arbiterd (built without libmunge)"; exit 77; }
  command -v setpriv >/dev/null || { echo "SKIPPED: setpriv is needed"; exit 77; }
  getent passwd slurm >/dev/null || { echo "SKIPPED: no user slurm (the Debian slurm packages make it)"; exit 77; }
  LIB=$(ldd "$DAEMON" | awk '$1 ~ /^libmalleable_cluster/ {print $3}')
  [[ -f $LIB ]] || { echo "SKIPPED: ldd names no libmalleable_cluster for $DAEMON"; exit 77; }
fi
recipe=$(awk '/^```sh$/ { f = 1; next } f && /^```$/ { exit } f' "$SRC/docs/guide/slurm.md")
grep -q '^#SBATCH .*-N 2-4' <<<"$recipe" && grep -q '^exec malleable-run --job-dir .* -- \./solver ARGS$' <<<"$recipe" ||
  { echo "FAILED: docs/guide/slurm.md's recipe is not the one this test runs (#SBATCH -N 2-4 ... exec malleable-run --job-dir ... -- ./solver ARGS): $recipe"; exit 1; }
slurm_begin "recipe-text blocker rigid" 4 --no-expansion
app=pdgemm_resizable
mkdir -p "$work/home"
site=""
daemon_pid=""
if [[ $MODE == arbiter ]]; then
  # The daemon as slurm: a copy of it and of its library in a folder slurm may enter.
  chmod 755 "$work"
  mkdir -p "$work/bin" "$work/arbiter"
  cp "$DAEMON" "$work/bin/" && cp -L "$LIB" "$work/bin/"
  chown slurm "$work/arbiter"
  SOCK=$work/arbiter/socket MSOCK=/run/malleable-cluster/slurm/munge/munge.socket
  arbiter_end() {
    local rc=$?
    [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null
    (exit $rc)
    slurm_end
  }
  trap arbiter_end EXIT
  "$CLUSTER" exec head sh -c "echo \$\$ >$work/arbiter.pid; exec setpriv --reuid=slurm --regid=slurm --clear-groups \
    env SLURM_CONF=$SLURM_CONF LD_LIBRARY_PATH=$work/bin $work/bin/malleable-arbiterd --socket $SOCK \
    --state-dir $work/arbiter/state --munge-socket $MSOCK --interval 1 --expansion off" 2>>"$work/arbiter.log" &
  for _ in $(seq 100); do [[ -S $SOCK ]] && break; sleep 0.1; done
  daemon_pid=$(cat "$work/arbiter.pid")
  [[ -S $SOCK ]] || { cat "$work/arbiter.log"; fail "the arbiter did not start"; }
  site="export RESIZE_ARBITER=$SOCK RESIZE_ARBITER_MUNGE=$MSOCK RESIZE_ARBITER_USER=slurm"
fi
{
  grep -E '^(#!|#SBATCH)' <<<"$recipe"
  echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
  echo "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off SLURM_CONF=$SLURM_CONF"
  echo "export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24"
  echo "export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$SRC/scripts/cluster-rsh"
  echo "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 BLACS_DYN_JOIN_TIMEOUT=90 RESIZE_SLURM_JOIN_DEADLINE=120"
  [[ -n $site ]] && echo "$site"
  grep -vE '^(#!|#SBATCH)' <<<"$recipe" |
    sed "s|malleable-run|$BUILD/bin/malleable-run|; s|\./solver ARGS|$BUILD/apps/$app -n 240 --nb 16 -g 2x3 -i 1000000 --stop-file $d/stop|"
} >"$work/job.sh"
chmod +x "$work/job.sh"
cat "$work/job.sh"

blocker=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J blocker -N 1 -w node4 -o /dev/null --wrap "sleep 600") ||
  fail "the blocker was refused"
for _ in $(seq 1 300); do [[ $("$CLUSTER" exec head squeue -h -j "$blocker" -o %T) == RUNNING ]] && break; sleep 0.1; done
job=$(cd "$work" && HOME=$work/home "$CLUSTER" exec head sbatch --parsable -J recipe-text -o "$out" "$work/job.sh") ||
  fail "the job was refused"
slurm_jobs+=" malleable-expand-$job"
wait_for "$out" "malleable-run: launch 1: 6 processes on node1:2 \(joined at its start by the launches .*,.*\)" 120 >/dev/null
wait_for "$out" "^malleable-run: Slurm job $job \(-N 2-4, the batch script\): RESIZE_POLICY=slurm RESIZE_SLURM_MIN_NODES=2 RESIZE_SLURM_MAX_NODES=4 for the program$" 5
wait_for "$out" "^\[pdgemm\] iter +3 " 120 >/dev/null
grep -q "policy slurm from RESIZE_POLICY" "$out" || { cat "$out"; fail "the program did not take the Slurm policy from the launcher's RESIZE_POLICY"; }
[[ $("$CLUSTER" exec head squeue -h -j "$job" -o "%T|%N") == "RUNNING|node[1-3]" ]] || fail "the job's allocation is not node[1-3]"
if [[ $MODE == arbiter ]]; then
  grep -q "^\[slurm\] job $job: mode arbiter" "$out" || { cat "$out" "$work/arbiter.log"; fail "the job does not say mode arbiter"; }
else
  grep -q "^\[slurm\] job $job: mode per-user" "$out" || { cat "$out"; fail "the job does not say mode per-user"; }
fi
echo "ok: the recipe's job started on node[1-3] of -N 2-4, its range and policy from malleable-run ($MODE)"

"$CLUSTER" exec head scancel "$blocker"
wait_for "$out" "submitted expander job\(s\) [0-9]+ on node4" 120
wait_for "$out" "expand [0-9x]+ -> [0-9x]+ .*join" 240
[[ -n $(pids_on node4 $app) ]] || fail "no process of the job on node4 after the growth"
echo "ok: grew onto node4 by an expander job: 4 nodes, more than the 3 it had held"

rigid=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable -J rigid -N 1 -o /dev/null --wrap "sleep 600") ||
  fail "the rigid job was refused"
wait_for "$out" "shrink [0-9x]+ -> [0-9x]+ .*gave back node[234]" 240
given=$(grep -m1 -o "gave back node[234]" "$out" | awk '{print $3}')
for _ in $(seq 1 600); do
  [[ $("$CLUSTER" exec head squeue -h -j "$rigid" -o "%T|%N") == "RUNNING|$given" ]] && break
  sleep 0.1
done
[[ $("$CLUSTER" exec head squeue -h -j "$rigid" -o "%T|%N") == "RUNNING|$given" ]] || fail "the rigid job does not run on $given"
echo "ok: gave $given back to the rigid job $rigid"

touch "$d/stop"
slurm_wait_end "$job" 120
grep -E "\[slurm\]|expander|expand|shrink|malleable-run:|result check" "$out"
grep -Eq "result check.*OK" "$out" || fail "the result check"
"$CLUSTER" exec head scancel "$rigid"
none_left $app node1 node2 node3 node4
echo "PASS"
