#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Side-by-side timing of two builds of the resizable PDGEMM driver: the same expansion
# and shrink (2x2 -> 3x3 after iteration 2, back to 2x2 after 4, Local2) run by the old
# and the new build in alternating rounds (round k runs old then new for odd k, new then
# old for even k, so neither build always runs first), and each phase of the session's
# own record (spawn or exit, redistribution, other, total; wall ms) compared. Whole-run
# wall seconds are compared too. For "a restructuring of the session costs no time".
#   scripts/bench/resize_ab.sh OLD_BUILD NEW_BUILD [--runs K] [--n N] [--nb NB]
# Build an older commit's driver for the first argument, e.g.
#   git worktree add --detach /tmp/old <commit> && cmake -S /tmp/old -B /tmp/old/build \
#     -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/old/build --target pdgemm_resizable
# Prints, per change and phase: the old and the new build's median over the K rounds, the
# ratio of the medians, and the spread of the K paired ratios (new/old of round k): their
# median, their quartiles (p25..p75) and their range; "within noise" when the paired
# ratios' quartiles hold 1.0. The load average before and after is printed: on a shared
# machine the spread, not the ratio alone, says whether two builds differ.
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
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
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load before $(cut -d' ' -f1-3 /proc/loadavg); rounds $runs, N $n, nb $nb"
echo "# old $old, new $new"
run() {  # build tag k
  local t0 t1 log=$out/$2.$3
  t0=$(date +%s.%N)
  mpiexec --oversubscribe --bind-to none -n 4 "$1/apps/pdgemm_resizable" -n "$n" --nb "$nb" -i 6 -p scripted \
    -s "2:expand:3x3:local2,4:shrink:2x2" >"$log" 2>&1 || { echo "resize_ab.sh: run $3 of $1 failed:" >&2; tail -5 "$log" >&2; return 1; }
  t1=$(date +%s.%N)
  grep -q "result check: .*OK" "$log" || { echo "resize_ab.sh: run $3 of $1 did not check OK" >&2; return 1; }
  # The record's table, the only one whose rows begin with the iteration:
  # "after change placement [by] spawn/exit redist other total moved" (the "by" column,
  # spawn or exit, is in newer builds only: the four times are the first numbers after it)
  awk -v t0="$t0" -v t1="$t1" '
    /^ *[0-9]+ +[0-9]+x[0-9]+->[0-9]+x[0-9]+ +[a-z]/ {
      for (i = 3; i <= NF && $i !~ /^[0-9.]+$/; i++) {}
      print $2, $i, $(i + 1), $(i + 2), $(i + 3)}
    END {print "run", (t1 - t0) * 1000, 0, 0, 0}' "$log" >"$log.rows"
}
for k in $(seq 1 "$runs"); do
  if ((k % 2)); then
    run "$old" old "$k"
    run "$new" new "$k"
  else
    run "$new" new "$k"
    run "$old" old "$k"
  fi
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
# Quantile q of the numbers on stdin (linear between order statistics).
quantile() {
  sort -g | awk -v q="$1" '{v[NR] = $1} END {
    if (NR == 0) {print 0; exit}
    h = (NR - 1) * q + 1; i = int(h); f = h - i
    print (i < NR) ? v[i] + f * (v[i + 1] - v[i]) : v[NR]}'
}
# Column i of change c's row in every round's file of build b.
values() { cat "$out"/"$1".*.rows | awk -v c="$2" -v i="$3" '$1 == c {print $i}'; }
echo "change | phase | old ms (median) | new ms (median) | new/old of medians | paired new/old: median [p25..p75] (min..max) | verdict"
report() {  # change column phase
  local o w ratios
  o=$(values old "$1" "$2" | quantile 0.5)
  w=$(values new "$1" "$2" | quantile 0.5)
  ratios=$(for k in $(seq 1 "$runs"); do
    awk -v c="$1" -v i="$2" '
      FNR == NR && $1 == c && !o {o = $i; next}
      FNR != NR && $1 == c && !n {n = $i}
      END {if (o > 0) print n / o}' "$out/old.$k.rows" "$out/new.$k.rows"
  done)
  awk -v c="$1" -v p="$3" -v o="$o" -v w="$w" -v mid="$(quantile 0.5 <<<"$ratios")" \
    -v q1="$(quantile 0.25 <<<"$ratios")" -v q3="$(quantile 0.75 <<<"$ratios")" \
    -v lo="$(quantile 0 <<<"$ratios")" -v hi="$(quantile 1 <<<"$ratios")" 'BEGIN {
      v = (q1 <= 1 && 1 <= q3) ? "within noise" : (q1 > 1 ? "new slower" : "new faster")
      printf "%s | %s | %.1f | %.1f | %.2f | %.2f [%.2f..%.2f] (%.2f..%.2f) | %s\n",
             c, p, o, w, (o > 0 ? w / o : 0), mid, q1, q3, lo, hi, v}'
}
for change in $(awk '{print $1}' "$out"/new.1.rows | grep -v '^run$'); do
  for col in 2:spawn/exit 3:redistribution 4:other 5:total; do
    report "$change" "${col%%:*}" "${col#*:}"
  done
done
report run 2 "whole run wall"
