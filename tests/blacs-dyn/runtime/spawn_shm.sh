#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Old and new processes on one node talk through shared memory with BLACS_DYN_PML=ucx
# (blacs-dyn/src/runtime/runtime.cpp, prepare_mpi_init). Two runs of a program that grows 2 -> 4 ->
# 6 -> 9 by spawn and shrinks back, PDGEMM checked at every step, with MPI's network
# transports taken away:
#   1. Open MPI's default (ob1) with the shared-memory and self transports only
#      (--mca btl self,vader): the first growth must fail, since an original and a
#      newcomer can only reach each other over TCP. This is the test's control: if it
#      passed, the second run would prove nothing.
#   2. BLACS_DYN_PML=ucx with UCX's shared-memory and self transports only
#      (UCX_TLS=self,sm): every step must pass, so originals and newcomers exchanged every
#      message of the growths, the PDGEMMs and the shrinks through shared memory.
# Skipped (77) where Open MPI has no pml/ucx component.
# Usage: spawn_shm.sh <mpiexec> <blacs_dyn_resize_cycle>
set -u
MPIEXEC=$1 PROG=$2
if ! command -v ompi_info >/dev/null || ! ompi_info 2>/dev/null | grep -q "MCA pml: ucx"; then
  echo "SKIPPED: this Open MPI has no pml/ucx component"
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# 1. the control: ob1 without TCP
timeout 60 "$MPIEXEC" --oversubscribe --bind-to none --mca btl self,vader -n 2 "$PROG" >"$out" 2>&1
rc=$?
if ((rc == 124)); then
  cat "$out"; echo "FAILED: the control run (ob1, no TCP) hung"; exit 1
fi
if grep -q "^PASS" "$out"; then
  cat "$out"; echo "FAILED: the control run grew without TCP under ob1: it no longer shows what it should"; exit 1
fi
if ! grep -q "step 0: .* ok" "$out" || grep -q "step 1: .* ok" "$out"; then
  cat "$out"; echo "FAILED: the control run should compute on its 2 originals and fail at the first growth"; exit 1
fi
echo "control: ob1 with btl self,vader computes on the originals and cannot grow (exit $rc): originals and newcomers need TCP"
# 2. BLACS_DYN_PML=ucx, shared memory only
BLACS_DYN_PML=ucx UCX_TLS=self,sm UCX_WARN_UNUSED_ENV_VARS=n \
  timeout 90 "$MPIEXEC" --oversubscribe --bind-to none -x BLACS_DYN_PML -x UCX_TLS -x UCX_WARN_UNUSED_ENV_VARS \
  -n 2 "$PROG" >"$out" 2>&1
rc=$?
cat "$out"
steps=$(grep -c "^step .* ok$" "$out")
if ((rc != 0)) || ((steps != 7)) || ! grep -q "^PASS" "$out"; then
  echo "FAILED: BLACS_DYN_PML=ucx with UCX_TLS=self,sm: exit $rc, $steps of 7 steps ok"; exit 1
fi
echo "PASS: with BLACS_DYN_PML=ucx originals and newcomers grew, computed and shrank through shared memory only (7 of 7 steps)"
