#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Malleable over moldable against the jobs' serial fraction and the resize costs
# (docs/measurements/workload.md, "Sensitivity"): on a real trace (a window of its jobs),
# 50% malleable, for each SEED, every job's Amdahl serial fraction set to S (0 to 0.3) and
# the resize costs scaled by F (x0.5 to x5): the moldable arms (they do not resize, so F
# leaves them alone) and the malleable arm (both levers); the ratio per seed is the best
# moldable arm's mean turnaround over the malleable one's, reported as its mean and 95%
# interval over the seeds (seed_stats.py), in sensitivity.tsv, and drawn with gnuplot.
#
#   scripts/bench/workload_sensitivity.sh [build-dir]
# Environment: TRACE (KTH), NAME (kth-sp2), PRIME (8-17), FIRST (0), JOBS (8000), SEEDS
# ("1 2 3"), SERIALS ("0 0.1 0.2 0.3"), SCALES ("0.5 1 2 5"), START (min), OUT
# (docs/data/workload/sensitivity/NAME), IMG (docs/img/workload_sensitivity.png).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_sensitivity: $bin not built" >&2; exit 1; }
trace=${TRACE:-$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf}
name=${NAME:-kth-sp2}
out=${OUT:-$here/docs/data/workload/sensitivity/$name}
img=${IMG:-$here/docs/img/workload_sensitivity.png}
seeds=${SEEDS:-1 2 3}
mkdir -p "$out"
common=(--swf "$trace" --cores-per-node 1 --swf-first "${FIRST:-0}" --swf-jobs "${JOBS:-8000}"
        --costs "$here/sim/costs/emulated.json" --sched-interval 60 --malleable-share 0.5)
[[ -n ${PRIME-8-17} ]] && common+=(--prime-time "${PRIME-8-17}")
runs=$out/runs.tsv
echo -e "serial\tscale\tarm\tseed\tmean_turnaround_s\tkilled_malleable\tresizes_per_job" >"$runs"
echo "workload_sensitivity: $name, jobs ${JOBS:-8000} from ${FIRST:-0}, seeds $seeds, host $(nproc) cores," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
one() {  # one SERIAL SCALE ARM SEED ARGS...
  local s=$1 f=$2 arm=$3 seed=$4
  shift 4
  # only the options that act in the arm (the simulator refuses the others): the moldable
  # arms (--policy none, scale 1) neither policy queries nor a cost scale
  local resizes=()
  [[ $arm == malleable ]] && resizes=(--interval 60 --cost-scale "$f")
  nice -n 10 "$bin" "${common[@]}" --serial "$s" "$s" "${resizes[@]}" --seed "$seed" "$@" --out "$out/m.json" \
    2>/dev/null || { echo "workload_sensitivity: run failed: $s $f $arm $seed" >&2; exit 1; }
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print('\t'.join(sys.argv[2:] + [str(m['mean_turnaround_s']),
str(m['killed_malleable']), str(m['resizes_per_job'])]))" "$out/m.json" "$s" "$f" "$arm" "$seed" >>"$runs"
}
for seed in $seeds; do
  for s in ${SERIALS:-0 0.1 0.2 0.3}; do
    one "$s" 1 moldable_requested "$seed" --start-ranges --range-top requested --policy none
    one "$s" 1 moldable_efficient "$seed" --start-ranges --range-top efficient --policy none
    for f in ${SCALES:-0.5 1 2 5}; do
      one "$s" "$f" malleable "$seed" --start-ranges --range-top requested --policy arbiter --start "${START:-min}"
    done
    echo "workload_sensitivity: seed $seed, serial $s done"
  done
done
rm -f "$out/m.json"
python3 "$here/scripts/bench/workload/seed_stats.py" sensitivity "$runs" --out "$out/sensitivity.tsv"
gnuplot <<EOF
set terminal pngcairo size 800,500
set output "$img"
set title "${name}, 50% malleable: best moldable / malleable (seeds ${seeds// /, }; bars: 95% interval)" font ",11"
set xlabel "serial fraction of every job (Amdahl)"
set ylabel "moldable / malleable mean turnaround"
set key top right
set grid
set xrange [-0.02:0.32]
nblocks = $(echo ${SCALES:-0.5 1 2 5} | wc -w)
plot for [i=0:nblocks-1] "$out/sensitivity.tsv" index i using (\$1+0.004*(i-1.5)):2:3:4 with yerrorlines title columnheader(1), 1 with lines dt 2 lc rgb "gray" notitle
EOF
echo "workload_sensitivity: $out/sensitivity.tsv, $img"
