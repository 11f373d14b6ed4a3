#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the default test suite several times and reports, per test, how often it failed
# (the suite must never flake). Each run is a fresh clone of this checkout
# built from scratch (what CI does), or with --reuse-build one clone and build whose
# suite (ctest) is run N times. --busy adds a busy loop on every core beside each run, as
# a loaded machine would.
# Usage: tests/support/flake_check.sh [--runs N] [--busy] [--reuse-build] [--keep] [-- ctest args]
# Prints one line per run and a table of the tests that failed; exits 1 if any did.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=10 busy=0 reuse=0 keep=0
extra=()
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --busy) busy=1; shift ;;
    --reuse-build) reuse=1; shift ;;
    --keep) keep=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "flake_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "flake_check: --runs needs a positive integer, got '$runs'" >&2; exit 2; }

work=$(mktemp -d)
busy_pids=()
cleanup() {
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; done
  ((keep)) || rm -rf "$work"
}
trap cleanup EXIT
start_busy() {
  ((busy)) || return 0
  local n
  n=$(nproc)
  for ((k = 0; k < n; ++k)); do
    (while :; do :; done) &
    busy_pids+=($!)
  done
}
stop_busy() {
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  busy_pids=()
}

declare -A failed_count
failed_runs=0
if ((reuse)); then
  git clone -q "$here" "$work/clone"
  echo "flake_check: building once in $work/clone"
  (cd "$work/clone" && bash scripts/setup.sh >"$work/setup.log" 2>&1) || { echo "flake_check: set-up failed ($work/setup.log)"; keep=1; exit 1; }
fi
for ((i = 1; i <= runs; ++i)); do
  if ((reuse)); then
    dir=$work/clone
  else
    dir=$work/run$i
    git clone -q "$here" "$dir"
  fi
  log=$work/run$i.log
  start_busy
  t0=$(date +%s)
  if ((reuse)); then
    (cd "$dir/build" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      ctest -LE bench -j 2 --repeat after-timeout:2 "${extra[@]}") >"$log" 2>&1
  else
    (cd "$dir" && bash scripts/test.sh "${extra[@]}") >"$log" 2>&1
  fi
  rc=$?
  stop_busy
  t1=$(date +%s)
  fails=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$log")
  summary=$(grep -E "tests passed|tests failed" "$log" | tail -1)
  echo "run $i/$runs ($((t1 - t0)) s, busy=$busy): exit $rc; ${summary:-no ctest summary}"
  if ((rc != 0)); then
    failed_runs=$((failed_runs + 1))
    [[ -z $fails ]] && fails="(set-up or build: see $log)" && keep=1
    for t in $fails; do failed_count[$t]=$((${failed_count[$t]:-0} + 1)); done
  fi
  ((reuse)) || ((keep)) || rm -rf "$dir"
done
echo "flake_check: $((runs - failed_runs)) of $runs runs passed (busy loop: $busy, reused build: $reuse)"
if ((failed_runs)); then
  echo "tests that failed (runs failed out of $runs):"
  for t in "${!failed_count[@]}"; do echo "  ${failed_count[$t]}  $t"; done | sort -rn
  echo "logs kept in $work"
  keep=1
  exit 1
fi
