#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoints written after an expansion by spawn: pdgemm on 2x2 grows to
# 3x2 after iteration 2 (two spawned processes, a world made of two jobs), then
#   global  writes a global HDF5 checkpoint every 3 iterations (after 3 and 6, on the merged
#           world: every process opens the file through MPI-IO);
#   local   writes the local level every iteration (node discovery on the merged world).
# Each run must end (exit 0, its result check OK) within 45 s; then a new job of 6 processes
# restarts from what the merged world wrote after iteration 3 (the global file, or the
# levels) and must end with its result check OK: the checkpoint holds the right data.
# Usage: checkpoint_after_spawn.sh <mpiexec> <mode> <pdgemm_resizable>
set -uo pipefail
mpiexec=$1 mode=$2 pdgemm=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export RESIZE_HISTORY=off OPENBLAS_NUM_THREADS=1
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
problem=(-n 240 --nb 32 -i 6 -q)
case $mode in
  global) ck=(--checkpoint "$work/ck" --checkpoint-every 3) ;;
  local) ck=(--checkpoint-local 1 --checkpoint-local-dir "$work/lv") ;;
  *) echo "FAILED: unknown mode $mode"; exit 2 ;;
esac

# check <what> <seconds> <output> <status>
check() {
  local what=$1 took=$2 out=$3 rc=$4
  [[ $rc -eq 0 ]] || fail "$what: exit status $rc: $(tail -6 <<<"$out" | cut -c1-200 | tr '\n' '|')"
  grep -q "result check: .*: OK" <<<"$out" || fail "$what: no passing result check"
  echo "$what: exit $rc after ${took}s; $(grep -o 'result check: .*' <<<"$out" | cut -c1-90)"
}

t0=$SECONDS
out=$(timeout 45 "$mpiexec" "${flags[@]}" -n 4 "$pdgemm" "${problem[@]}" -p scripted -s 2:expand:3x2 "${ck[@]}" 2>&1)
check "expand by spawn, then checkpoint ($mode)" $((SECONDS - t0)) "$out" $?

if [[ $mode == global ]]; then
  [[ -f ck/pdgemm-000003.h5 && -f ck/pdgemm-000006.h5 ]] || fail "checkpoints after 3 and 6 missing: [$(ls ck | tr '\n' ' ')]"
  ls ck | grep -q '\.tmp$' && fail "a .tmp was left: [$(ls ck | tr '\n' ' ')]"
  again=(--restart "$work/ck/pdgemm-000003.h5")
else
  # Every process of the merged world (6) wrote its local file of the newest version.
  n=$(find lv -name '*local*' -name '*000006*' | wc -l)
  [[ $n -eq 6 ]] || fail "local level after iteration 6: $n files, expected 6: [$(find lv -type f | tr '\n' ' ')]"
  again=(--restart-levels --checkpoint-local-dir "$work/lv")
fi
t0=$SECONDS
out=$(timeout 45 "$mpiexec" "${flags[@]}" -n 6 "$pdgemm" "${problem[@]}" -g 3x2 "${again[@]}" 2>&1)
check "restart of 6 processes from it" $((SECONDS - t0)) "$out" $?

if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo "PASS: $mode checkpoint after a spawn expansion"
