#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Side-by-side timing of two builds of the resizable PDGEMM driver: the same expansion
# and shrink (2x2 -> 3x3 after iteration 2, back to 2x2 after 4, Local2) run by the old
# and the new build in turn (old, new, old, new, ...), and each phase of the session's
# own record (spawn or exit, redistribution, other, total; wall ms) compared by medians.
# Whole-run wall seconds are printed too. Used for issue 31's "benchmarks unchanged or
# faster" (a restructuring of the session must not cost time).
#   scripts/bench/resize_ab.sh OLD_BUILD NEW_BUILD [--runs K] [--n N] [--nb NB]
# Build an older commit's driver for the first argument, e.g.
#   git worktree add --detach /tmp/old <commit> && cmake -S /tmp/old -B /tmp/old/build \
#     -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/old/build --target pdgemm_resizable
# Prints: change | phase | old ms (median) | new ms (median) | new/old, then the ratio
# new/old of each pair (run k of each build, run side by side): min, median and max.
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1 new=$2; shift 2
runs=7 n=1200 nb=64
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --nb) nb=$2; shift 2 ;;
    *) echo "resize_ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for b in "$old" "$new"; do
  [[ -x $b/apps/pdgemm_resizable ]] || { echo "resize_ab.sh: $b/apps/pdgemm_resizable missing" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); runs $runs, N $n, nb $nb"
echo "# old $old, new $new"
run() {  # build tag k
  local t0 t1 log=$out/$2.$3
  t0=$(date +%s.%N)
  mpiexec --oversubscribe --bind-to none -n 4 "$1/apps/pdgemm_resizable" -n "$n" --nb "$nb" -i 6 -p scripted \
    -s "2:expand:3x3:local2,4:shrink:2x2" >"$log" 2>&1 || { echo "resize_ab.sh: run $3 of $1 failed:" >&2; tail -5 "$log" >&2; return 1; }
  t1=$(date +%s.%N)
  grep -q "result check: .*OK" "$log" || { echo "resize_ab.sh: run $3 of $1 did not check OK" >&2; return 1; }
  # The record's table, the only one whose rows begin with the iteration:
  # "after change placement spawn/exit redist other total moved"
  awk -v t0="$t0" -v t1="$t1" '
    /^ *[0-9]+ +[0-9]+x[0-9]+->[0-9]+x[0-9]+ +[a-z]/ {print $2, $4, $5, $6, $7}
    END {print "run", t1 - t0, 0, 0, 0}' "$log" >"$log.rows"
}
for k in $(seq 1 "$runs"); do
  run "$old" old "$k"
  run "$new" new "$k"
done
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
echo "change | phase | old ms | new ms | new/old | pair ratios min | median | max"
for change in $(awk '{print $1}' "$out"/new.1.rows | grep -v '^run$'); do
  for col in 2:spawn/exit 3:redistribution 4:other 5:total; do
    i=${col%%:*} phase=${col#*:}
    o=$(cat "$out"/old.*.rows | awk -v c="$change" -v i="$i" '$1 == c {print $i}' | median)
    w=$(cat "$out"/new.*.rows | awk -v c="$change" -v i="$i" '$1 == c {print $i}' | median)
    # Pair k: new run k over old run k (one row per change and run).
    ratios=$(for k in $(seq 1 "$runs"); do
      ok=$(awk -v c="$change" -v i="$i" '$1 == c {print $i; exit}' "$out/old.$k.rows")
      nk=$(awk -v c="$change" -v i="$i" '$1 == c {print $i; exit}' "$out/new.$k.rows")
      awk -v o="$ok" -v n="$nk" 'BEGIN {if (o > 0) print n / o}'
    done | sort -g)
    lo=$(head -1 <<<"$ratios") hi=$(tail -1 <<<"$ratios") mid=$(median <<<"$ratios")
    awk -v c="$change" -v p="$phase" -v o="$o" -v w="$w" -v lo="$lo" -v mid="$mid" -v hi="$hi" \
      'BEGIN {printf "%s | %s | %.1f | %.1f | %.2fx | %.2f | %.2f | %.2f\n", c, p, o, w, (o > 0 ? w / o : 0), lo, mid, hi}'
  done
done
o=$(cat "$out"/old.*.rows | awk '$1 == "run" {print $2 * 1000}' | median)
w=$(cat "$out"/new.*.rows | awk '$1 == "run" {print $2 * 1000}' | median)
awk -v o="$o" -v w="$w" 'BEGIN {printf "whole run | wall | %.1f | %.1f | %.2fx\n", o, w, w / o}'
