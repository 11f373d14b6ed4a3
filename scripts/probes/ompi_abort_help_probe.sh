#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI 4's "ORTE_ERROR_LOG: Out of resource in file ... show_help.c" (and "Data unpack
# would read past end of buffer" / "had inadequate space" there), without the library
# (docs/guide/errors.md, "Messages from MPI itself"): a 3-line program whose every rank calls
# MPI_Abort at once, run RUNS times with NP ranks; counts the runs whose output has the line
# and which variants it had. Each aborting process sends its abort text to mpiexec, which
# prints it (orte/util/show_help.c, orte_show_help_recv); mpiexec ends the job's other
# processes at the first abort, and a text cut short on its way is logged as that
# error in place of the process's message.
#   scripts/probes/ompi_abort_help_probe.sh [NP 2] [RUNS 20]
set -uo pipefail
np=${1:-2} runs=${2:-20}
command -v mpicc >/dev/null || { echo "ompi_abort_help_probe: mpicc missing"; exit 77; }
mpiexec --version 2>/dev/null | grep -q "Open MPI\|OpenRTE" || { echo "ompi_abort_help_probe: not Open MPI"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <mpi.h>\nint main(int c, char** v) { MPI_Init(&c, &v); MPI_Abort(MPI_COMM_WORLD, 75); return 0; }\n' >"$tmp/abort.c"
mpicc "$tmp/abort.c" -o "$tmp/abort" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
hits=0
for ((i = 1; i <= runs; ++i)); do
  timeout 60 mpiexec --oversubscribe -n "$np" "$tmp/abort" >"$tmp/out" 2>&1
  if grep -q "ORTE_ERROR_LOG" "$tmp/out"; then
    hits=$((hits + 1))
    grep -o "ORTE_ERROR_LOG: .* in file [^ ]*show_help.c at line [0-9]*" "$tmp/out" | sed 's#in file .*/#in file #' >>"$tmp/lines"
  fi
done
echo "ompi_abort_help_probe: $(mpiexec --version | head -1), $np ranks aborting at once, load $(cut -d' ' -f1 /proc/loadavg):" \
     "ORTE_ERROR_LOG in $hits of $runs runs"
[[ -s $tmp/lines ]] && sort "$tmp/lines" | uniq -c | sed 's/^/  /'
exit 0
