#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A resizable driver's expansion, on whichever MPI the build uses (label mpich): the job
# must end with its result checked (exit status 0). Where the expansion happened, the test
# passes; where the MPI cannot spawn (MPICH 4.0.2 here: "Error in spawn call"), blacs-dyn
# reports "spawn not supported", the session keeps the job on its grid, and the test ends
# SKIPPED (exit 77, ctest SKIP_RETURN_CODE) with that reason. Any other failed or refused
# expansion fails the test.
# Usage: expand_or_skip.sh MAX_SECONDS EXPECTED_GRID -- command...
set -u
max_s=$1 grid=$2
shift 3
out=$(timeout --signal=KILL "$max_s" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [[ $rc -ne 0 ]]; then echo "FAILED: exit status $rc (the job must end with its result checked)"; exit 1; fi
if why=$(grep -Eo 'spawn not supported[^;]*' <<<"$out" | head -n 1) && [[ -n $why ]]; then
  # Whatever follows the first refusal is refused up front, without another spawn.
  echo "SKIPPED: the expansion needs MPI_Comm_spawn, and $why"
  exit 77
fi
if grep -Eq 'FAILED|REFUSED' <<<"$out"; then echo "FAILED: an expansion failed for another reason"; exit 1; fi
if ! grep -Eq "expand [0-9x]+ -> $grid " <<<"$out"; then echo "FAILED: no expansion to $grid reported"; exit 1; fi
echo PASS
