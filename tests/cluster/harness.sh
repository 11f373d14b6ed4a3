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
