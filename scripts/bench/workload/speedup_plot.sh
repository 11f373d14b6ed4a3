#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The measured relative iteration times T(p)/T(1) of the four drivers on both dedicated-core
# clocks, with the fitted curves (fit_speedup.py --plot-data): docs/img/workload_speedup.png.
#   scripts/bench/workload/speedup_plot.sh [fit.dat] [out.png]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
dat=${1:-$here/docs/data/workload/speedup/fit.dat}
png=${2:-$here/docs/img/workload_speedup.png}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
keys=$(awk '!/^#/ {print $1"_"$2}' "$dat" | sort -u)
plots=()
i=1
for k in $keys; do
  app=${k%_*} size=${k#*_}
  for clk in compute cpu; do
    awk -v a="$app" -v s="$size" -v c="$clk" '$1 == a && $2 == s && $3 == c {print $4, $5, $6}' "$dat" >"$tmp/${k}_$clk"
  done
  plots+=("'$tmp/${k}_compute' using 1:2 with points pt 7 lc $i title '$app $size compute'")
  plots+=("'$tmp/${k}_compute' using 1:3 with lines lc $i notitle")
  plots+=("'$tmp/${k}_cpu' using 1:2 with points pt 4 lc $i title '$app $size cpu'")
  i=$((i + 1))
done
gnuplot <<GP
set terminal pngcairo size 900,560
set output "$png"
set title "Drivers' iteration time over one process's, dedicated-core clocks (lines: fits to the compute clock)" font ",11"
set xlabel "processes"
set ylabel "T(p) / T(1)"
set logscale xy
set yrange [0.04:3]
set xrange [0.9:18]
set xtics (1, 2, 4, 6, 9, 12, 16)
set key outside right font ",9"
set grid
plot 1/x with lines dt 2 lc rgb "gray" title "perfect", $(IFS=,; echo "${plots[*]}")
GP
echo "speedup_plot: $png"
