#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Recovery from a lost node on the emulated cluster: pdgemm 2x3 on node1-3,
# node3's processes SIGKILLed during iteration 13 and its storage removed, relaunched on
# node1,node2 (2x2) by malleable-run --on-failure restart, RUNS times each:
#   levels  the checkpoint levels (local every iteration, partner every 2), the global
#           directory moved away: rebuilt from the survivors' local and partner copies;
#   global  today's path: the global HDF5 checkpoint every 5, read back.
# (tests/cluster/lost_node_levels.sh in both modes; each run brings the cluster up and
# down.) Prints a table (time from the kill until the job computes again, iterations
# lost, bytes read from the file system) and writes OUT/recovery.tsv and recovery.svg
# (gnuplot). Usage: levels_recovery_bench.sh [build dir] [runs] [out dir]
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) runs=${2:-3} out=${3:-$SRC/docs/data/levels}
mkdir -p "$out"
tsv=$out/recovery.tsv
printf 'mode\trun\tseconds_to_compute\titerations_lost\tfs_bytes_read\n' >"$tsv"
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; ++r)); do
  for mode in levels global; do
    line=$("$SRC/tests/cluster/lost_node_levels.sh" "$SRC" "$BUILD" $mode 2>&1 | grep '^RESULT') ||
      { echo "levels_recovery_bench: run $r ($mode) failed" >&2; exit 1; }
    echo "$line"
    secs=$(sed -E 's/.* computing ([0-9.]+) s after the kill.*/\1/' <<<"$line")
    lost=$(sed -E 's/.*: ([0-9]+) iterations lost.*/\1/' <<<"$line")
    bytes=0
    [[ $mode == global ]] && bytes=$(sed -E 's/.* ([0-9]+) bytes read from the file system.*/\1/' <<<"$line")
    printf '%s\t%d\t%s\t%s\t%s\n' "$mode" "$r" "$secs" "$lost" "$bytes" >>"$tsv"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| recovery | time from the kill until computing again (runs) | iterations lost | bytes read from the file system |"
echo "|---|---|---|---|"
for mode in levels global; do
  awk -F'\t' -v m=$mode '$1 == m { t = t (t ? ", " : "") $3; s += $3; n++; lost = $4; b = $5 }
    END { label = m == "levels" ? "levels (local + partner copies)" : "relaunch from the global HDF5 file"
          printf "| %s | %.1f s mean (%s) | %s | %s |\n", label, s / n, t, lost, b }' "$tsv"
done
lost_l=$(awk -F'\t' '$1 == "levels" { v = $4 } END { print v }' "$tsv")
lost_g=$(awk -F'\t' '$1 == "global" { v = $4 } END { print v }' "$tsv")
gnuplot <<EOF2
set terminal svg size 640,360 font "sans,11"
set output "$out/recovery.svg"
set title "Lost node: time from the kill until the job computes again (emulated cluster)"
set ylabel "seconds"
set xlabel "run"
set key top left
set yrange [0:*]
set style data linespoints
plot "< awk -F'\t' '\$1 == \"levels\"' $tsv" using 2:3 title "levels ($lost_l iterations lost, 0 bytes from the FS)" pt 7, \
     "< awk -F'\t' '\$1 == \"global\"' $tsv" using 2:3 title "relaunch from HDF5 ($lost_g iterations lost)" pt 5
EOF2
echo "plot: $out/recovery.svg"
