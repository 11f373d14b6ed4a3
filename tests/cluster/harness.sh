# SPDX-License-Identifier: BSD-3-Clause
# Shared by the cluster tests (sourced). Brings the emulated cluster up for one test,
# holds the machine-wide lock while doing so, and takes everything down on any exit.
# A test that cannot run here (no namespaces) exits 77, which ctest reports as SKIPPED
# with the reason printed. Needs: SRC (source dir), BUILD (build dir).
set -euo pipefail
CLUSTER=$SRC/scripts/cluster.sh
LOCK=/run/malleable-cluster.lock

cluster_begin() {  # <nodes> [cluster.sh up options]
  local why
  if ! why=$("$CLUSTER" check); then
    echo "SKIPPED: $why"
    exit 77
  fi
  exec 9>"$LOCK"
  # The wait counts against the test's ctest timeout: say so, so that a timeout while another
  # run holds the cluster reads as that and not as the test's own failure.
  if ! flock -n 9; then
    echo "cluster test: waiting for the cluster lock $LOCK (another run holds it)"
  fi
  flock -w 900 9 || { echo "cluster test: the cluster lock $LOCK is held by another run for 15 min" >&2; exit 1; }
  trap cluster_end EXIT
  "$CLUSTER" down >/dev/null  # a cluster left by a killed run
  "$CLUSTER" up "$@" 9>&-  # the daemons it starts (munged, slurmd) must not hold the lock
  eval "export $("$CLUSTER" mpi-env | tr '\n' ' ')"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1
}

# cluster_end [rc]: the cluster down, the lock released, exit rc (default: the status of
# the last command). Tests whose EXIT trap does more pass the status they saved: under
# `set -e` a trap that restores it with `(exit $rc)` stops there when rc != 0, and the
# cluster, its Slurm daemons and the lock were left to the next test (cluster.slurm_by_restart
# failed once and every later cluster test waited 15 min for the lock).
cluster_end() {
  local rc=${1:-$?}
  "$CLUSTER" down >/dev/null 2>&1 || true
  flock -u 9 2>/dev/null || true
  exit $rc
}

# The Slurm tests' start: Slurm installed (else SKIPPED), the cluster up with Slurm
# (cluster_begin <nodes> --slurm [options]), SLURM_CONF exported, a work directory $work
# with the checkpoint directory $d (made) and the batch job's output file $out, and an EXIT
# trap that cancels the test's jobs by name, removes $work and takes the cluster down.
slurm_begin() {  # "<job names>" <nodes> [cluster.sh up options]
  slurm_jobs=$1
  shift
  command -v slurmctld >/dev/null ||
    { echo "SKIPPED: Slurm is not installed (scripts/setup.sh installs slurmctld slurmd munge)"; exit 77; }
  cluster_begin "$1" --slurm "${@:2}"
  eval "export $("$CLUSTER" slurm-env)"
  work=$(mktemp -d)
  trap slurm_end EXIT
  d=$work/ck out=$work/job.out
  mkdir -p "$d"
}
slurm_end() {
  local rc=$? n
  for n in $slurm_jobs; do "$CLUSTER" exec head scancel --name="$n" >/dev/null 2>&1 || true; done
  rm -rf "$work"
  cluster_end $rc
}

# A batch script for the cluster's Slurm: the environment every job of the tests needs
# (Open MPI as root, oversubscribed, on the cluster's network, reaching the nodes through
# cluster-rsh; SLURM_CONF), a line naming the job and its allocation, then <line>s.
slurm_job_script() {  # <file> <line>...
  local f=$1
  shift
  {
    echo "#!/bin/bash"
    echo "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
    echo "export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off SLURM_CONF=$SLURM_CONF"
    echo "export OMPI_MCA_btl_tcp_if_include=10.213.7.0/24 OMPI_MCA_oob_tcp_if_include=10.213.7.0/24"
    echo "export OMPI_MCA_plm=rsh OMPI_MCA_plm_rsh_agent=$SRC/scripts/cluster-rsh"
    echo "echo \"job \$SLURM_JOB_ID on \$(hostname), allocation \$SLURM_JOB_NODELIST\""
    printf '%s\n' "$@"
  } >"$f"
  chmod +x "$f"
}

# The batch job of the tests where an expansion by spawn stalls under Slurm
# (slurm_takes_back.sh, slurm_relaunch_merged.sh): the PDGEMM driver (P) on 4 processes
# under malleable-run --hosts slurm on node1 (sbatch --no-kill) with the Slurm policy; node2
# is idle, the policy obtains it and spawns there, the last newcomer stalls before its
# MPI_Init (BLACS_DYN_FAULT=stall-newcomer-in-init), the spawn's deadline is 10 s. Returns
# once the session secured the state before the spawn; sets job (its id) and k (the
# iteration of that checkpoint).
# shellcheck disable=SC2034  # job and k are the caller's
stalled_spawn_job() {  # <job name> "<malleable-run options>" "<driver options>"
  local before
  P=("$BUILD/apps/pdgemm_resizable" -n 240 --nb 16 -g 2x2)
  slurm_job_script "$work/job.sh" \
    "export RESIZE_SLURM_INTERVAL=0.5 RESIZE_SLURM_ITERATIONS=0 RESIZE_SLURM_MAX_NODES=2 RESIZE_SLURM_SHARED=off" \
    "export BLACS_DYN_FAULT=stall-newcomer-in-init RESIZE_SPAWN_DEADLINE=10" \
    "exec $BUILD/bin/malleable-run -n 4 $2 --hosts slurm -- ${P[*]} -i 1000000 -p slurm \\" \
    "  --checkpoint $d --keep 3 --stop-file $d/stop $3"
  job=$(cd "$work" && "$CLUSTER" exec head sbatch --parsable --no-kill -J "$1" -N 1 -w node1 --ntasks-per-node=4 \
        -o "$out" "$work/job.sh")
  before=$(wait_for "$out" "before the spawn after iter [0-9]+" 120)
  k=$(grep -o "after iter [0-9]*" <<<"$before" | awk '{print $3}')
  echo "$before"
}

# Waits until Slurm no longer lists job <id> (polled every 0.1 s), or the test failed.
slurm_wait_end() {  # <job id> <seconds>
  local i
  for ((i = 0; i < $2 * 10; ++i)); do
    [[ -z $("$CLUSTER" exec head squeue -h -j "$1" -o %T 2>/dev/null) ]] && return 0
    sleep 0.1
  done
  fail "the Slurm job $1 did not end within $2 s"
}

# mpiexec started inside a node (Open MPI's daemons reach the others through cluster-rsh).
mpirun_on() {  # <node> <mpiexec arguments...>
  local node=$1
  shift
  "$CLUSTER" exec "$node" mpiexec --oversubscribe --bind-to none "$@"
}

# PIDs of processes executing program <name> whose network namespace is <node>'s.
pids_on() {  # <node> <program name>
  local want pid exe
  want=$(stat -L -c %i "/run/netns/mallc-$1")
  for pid in $(pgrep -f "$2" || true); do
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
    [[ ${exe##*/} == "$2" ]] || continue
    [[ $(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null) == "$want" ]] && echo "$pid"
  done
  return 0
}

fail() { echo "FAILED: $*" >&2; exit 1; }

# The test failed if a process of <program> is left on one of the <node>s: still there
# 20 s after the job ended (a process of a launch that has just ended may still be on its
# way out: seen once in CI, cluster.join_nodes, on a loaded host; the wait ends as soon as
# they are gone).
none_left() {  # <program> <node>...
  local n left i
  for n in "${@:2}"; do
    for ((i = 0; i < 200; ++i)); do
      left=$(pids_on "$n" "$1")
      [[ -z $left ]] && break
      sleep 0.1
    done
    [[ -z $left ]] || fail "processes of the job left on $n after 20 s: $left ($(ps -o pid=,stat=,args= -p "${left//$'\n'/,}" 2>/dev/null | head -5))"
  done
}

# The first line of <file> matching <regex> within <seconds> (polled every 50 ms), or the
# file shown and the test failed. The file may not exist yet.
wait_for() {  # <file> <regex> <seconds>
  local i
  for ((i = 0; i < $3 * 20; ++i)); do
    grep -m1 -E -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  cat "$1" >&2 2>/dev/null; fail "no line matching '$2' within $3 s"
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b - a}'; }  # <t0> <t1>: t1 - t0 in s

# Lines of a stream, each prefixed by the time it was read.
stamp() { local l; while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
# A command whose stdout and stderr go into one log, each line stamped. The two streams are
# read apart and appended a whole line at a time: through one pipe (2>&1) a line on stdout
# could be cut by a line of stderr wherever a writer's pipe write came back short (seen:
# the result check's line cut by a warning in a fresh-clone run of cluster.lost_node). The
# stderr reader ends with the line "stderr closed" once every process that held the
# command's stderr has ended: wait for it before reading the log whole. The command's status.
stamp_both() {  # <log> <command...>
  local log=$1
  shift
  : >"$log"
  { "$@" 2> >(stamp >>"$log"; printf '%s stderr closed\n' "$EPOCHREALTIME" >>"$log"); } | stamp >>"$log"
  return "${PIPESTATUS[0]}"
}
