#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The routes between ranks of one node against the single-copy bound, interleaved in one
# run: the node window (two copies), the kernel's single copy and mapped arrays (one copy in
# user space: docs/reference/mapped-arrays.md). Compiles scripts/bench/mapped_bound.cpp against
# a build's libmalleable_redist and runs it on 2 ranks (one node).
#
#   scripts/bench/mapped_bound.sh [--build DIR] [--mib 64,256] [--reps 5] [--changes LIST] --out DIR
#
# Writes DIR/mapped.txt: the run's date, commit, cores, command and uptime before and after,
# and the table (per change and size the copy rate, the single-copy bound, each route's best
# and median time and their fractions of the bound, whether every B was identical, load1).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build mib=64,256 reps=5 changes="64@1x2:64@2x1,64@1x2:100@1x2,64@2x1:100@1x2" out=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --changes) changes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "mapped_bound.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "mapped_bound.sh: --out DIR is required" >&2; exit 2; }
[ -e "$build/redist/libmalleable_redist.so" ] || { echo "mapped_bound.sh: no $build/redist/libmalleable_redist.so" >&2; exit 2; }
mkdir -p "$out"
exe=$build/mapped_bound
mpicxx -O2 -std=c++20 -I"$here/redist/include" "$here/scripts/bench/mapped_bound.cpp" -o "$exe" \
  -L"$build/redist" -lmalleable_redist -lmalleable_redist_plan -Wl,-rpath,"$build/redist"
file=$out/mapped.txt table=$(mktemp)
trap 'rm -f "$table"' EXIT
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git -C "$here" rev-parse --short HEAD)"
  echo "cores: $(nproc)"
  echo "uptime before: $(uptime)"
  echo "command: mpiexec -n 2 mapped_bound --mib $mib --reps $reps --changes $changes"
} > "$file.tmp"
mpiexec --oversubscribe --bind-to none -n 2 "$exe" --mib "$mib" --reps "$reps" --changes "$changes" --out "$table"
{
  echo "uptime after: $(uptime)"
  echo
  cat "$table"
} >> "$file.tmp"
mv "$file.tmp" "$file"
