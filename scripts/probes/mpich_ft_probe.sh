#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Can Debian's MPICH keep a job alive after a process dies and shrink its world
# (MPIX_Comm_shrink / MPIX_Comm_agree under Hydra's -disable-auto-cleanup)? The verdict in
# docs/guide/checkpoint.md "Checkpoint levels", "In place". 4 processes; rank 3 SIGKILLs itself
# after a barrier; the others (MPI_ERRORS_RETURN) sleep 1 s, call MPI_Allreduce (unless
# SKIP_ALLREDUCE) then MPIX_Comm_shrink and MPIX_Comm_agree, each logging to its own file
# (Hydra's forwarding of stdio may stop after a kill). Runs with and without
# MPIR_CVAR_ENABLE_FT=1, with and without the collective; prints every rank's log.
# Usage: mpich_ft_probe.sh [timeout seconds]
set -uo pipefail
limit=${1:-30}
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || { echo "no MPICH (mpicc.mpich, mpiexec.mpich)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/probe.c" <<'C'
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static FILE* lg;
#define LOG(...) do { fprintf(lg, __VA_ARGS__); fflush(lg); } while (0)
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[64];
  snprintf(name, sizeof name, "log.%d", rank);
  lg = fopen(name, "w");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) { LOG("killing myself\n"); raise(SIGKILL); }
  sleep(1);
  LOG("alive after the kill\n");
  int x = 1, y = 0, rc = 0;
  if (!getenv("SKIP_ALLREDUCE")) rc = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char s[MPI_MAX_ERROR_STRING] = "";
  int l = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, s, &l);
  LOG("allreduce rc=%d (%s) y=%d\n", rc, s, y);
  MPI_Comm shrunk;
  rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk);
  LOG("shrink rc=%d\n", rc);
  if (rc == MPI_SUCCESS) {
    int ns, flag = 1;
    MPI_Comm_size(shrunk, &ns);
    rc = MPIX_Comm_agree(shrunk, &flag);
    LOG("shrunk size %d agree rc=%d\n", ns, rc);
  }
  MPI_Finalize();
  LOG("finalized\n");
  return 0;
}
C
mpicc.mpich "$work/probe.c" -o "$work/probe" || exit 1
cd "$work"
for ft in 1 0; do
  for skip in 0 1; do
    rm -f log.*
    echo "== MPIR_CVAR_ENABLE_FT=$ft, $([[ $skip == 1 ]] && echo "straight to MPIX_Comm_shrink" || echo "MPI_Allreduce first")"
    vars=(MPIR_CVAR_ENABLE_FT=$ft)
    [[ $skip == 1 ]] && vars+=(SKIP_ALLREDUCE=1)
    env "${vars[@]}" timeout "$limit" \
      mpiexec.mpich -disable-auto-cleanup -n 4 ./probe >/dev/null 2>&1
    echo "   mpiexec exit $?"
    for f in log.*; do [[ -f $f ]] && echo "   rank ${f#log.}: $(tr '\n' ';' <"$f")"; done
  done
done
