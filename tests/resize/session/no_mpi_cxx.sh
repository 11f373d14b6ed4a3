#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The libraries need MPI's C interface only, not the deprecated C++ bindings (libmpi_cxx):
# no DT_NEEDED entry for it in any library given, and none in what a C++
# program linked against them loads (ldd of the program given with --program).
# Usage: no_mpi_cxx.sh LIB... [--program EXE]
set -euo pipefail
status=0
program=
while (($#)); do
  if [[ $1 == --program ]]; then program=$2; shift 2; continue; fi
  needed=$(readelf -d "$1" | grep NEEDED || true)
  [[ -n $needed ]] || { echo "FAILED: $1: readelf shows no NEEDED entries"; exit 1; }
  if grep -q "libmpi_cxx" <<<"$needed"; then
    echo "FAILED: $(basename "$1") needs libmpi_cxx"; status=1
  else
    echo "ok: $(basename "$1") needs $(grep -o 'libmpi[^]]*' <<<"$needed" | tr '\n' ' ')"
  fi
  shift
done
if [[ -n $program ]]; then
  if grep -q libmpi_cxx <<<"$(ldd "$program")"; then echo "FAILED: $(basename "$program") loads libmpi_cxx"; status=1
  else echo "ok: $(basename "$program") does not load libmpi_cxx"; fi
fi
((status == 0)) && echo "PASS"
exit $status
