#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The porting guide's malleable programs (C, C++, Fortran; docs/guide/porting.md) grow by
# joining unchanged: started under malleable-run --job-dir, their scripted
# 2x2 -> 3x3 -> 2x2 is carried out by a launch they order and join (the session chooses
# the mechanism from the environment the launcher set), the joined processes take the
# newcomers' path (resize_is_newcomer, resize_join) exactly as spawned ones, and each
# program passes its own result check. SKIPPED where the MPI cannot be joined.
# Usage: join_porting.sh <source dir> <mpiexec> <program>...
set -uo pipefail
SRC=$1 mpiexec=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MALLEABLE_MPIEXEC=${MALLEABLE_MPIEXEC:-"$mpiexec --oversubscribe --bind-to none"} OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
export BLACS_DYN_JOIN_TIMEOUT=60
command -v ompi-server >/dev/null || { echo "SKIPPED: no ompi-server (Open MPI's; growing by joining needs it)"; exit 77; }
for prog in "$@"; do
  app=$(basename "$prog")
  timeout 300 "${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}" --job-dir "$work/$app" -n 4 -- "$prog" 3:expand:3x3,6:shrink:2x2 \
    "$work/$app.json" >"$work/$app.log" 2>&1
  rc=$?
  if grep -q "the job cannot be joined: this MPI" "$work/$app.log"; then
    echo "SKIPPED: $(grep -m1 -o 'the job cannot be joined: .*' "$work/$app.log")"
    exit 77
  fi
  ((rc == 0)) || { cat "$work/$app.log"; echo "FAILED: $app ended with status $rc"; exit 1; }
  grep -q ": OK" "$work/$app.log" || { cat "$work/$app.log"; echo "FAILED: $app's result check"; exit 1; }
  python3 - "$work/$app.json" <<'PY' || { cat "$work/$app.log"; echo "FAILED: $app did not grow by join"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))["resizes"]
assert [(x["mechanism"], x["ok"]) for x in r] == [("join", True), ("exit", True)], r
PY
  grep -q "joined j" "$work/$app/join.log" || { echo "FAILED: $app: join.log"; exit 1; }
  echo "ok: $app grew 2x2 -> 3x3 by join and back, result OK"
done
echo PASS
