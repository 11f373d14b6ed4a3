#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The four drivers' scaling, measured for the cluster simulator's speedup curves
# (docs/measurements/workload.md, "Speedups from measurement"): each driver at one problem
# size on the process grids 1x1 1x2 2x2 2x3 3x3 3x4 4x4 (1-16 processes), fixed grid (no
# resize), --meter-kernels, its run JSON kept as OUT/APP_SIZE_PxQ.json; then
# fit_speedup.py fits T(p)/T(1) = s + (1 - s)/p + c log2(p) per application on the
# dedicated-core clocks (cpu: process CPU time, the default curves; compute: the metered
# kernels) and writes sim/speedup/apps.json.
#
# On a host with fewer cores than processes (this project's is 2) wall-clock times say
# nothing past 2 processes: the fit reads the dedicated-core clocks the drivers print
# (docs/reference/apps.md, "Metrics"), which estimate each rank's time had it a core.
#
#   scripts/bench/workload/speedup_measure.sh [--out DIR] [build-dir]
# Environment: APPS ("pdgemm:2048 pdgemm:1024 pdgetrf:2048 pdgemv:6000 life:2048"), GRIDS,
# ITERS (6; pdgemv and life 20).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
out=$here/docs/data/workload/speedup
build=$here/build
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    *) build=$1; shift ;;
  esac
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
apps=${APPS:-pdgemm:2048 pdgemm:1024 pdgetrf:2048 pdgemv:6000 life:2048}
grids=${GRIDS:-1x1 1x2 2x2 2x3 3x3 3x4 4x4}
echo "speedup_measure: host $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)" | tee "$out/host.txt"
for a in $apps; do
  app=${a%%:*} n=${a#*:}
  iters=${ITERS:-6}
  [[ $app == pdgemv || $app == life ]] && iters=${ITERS:-20}
  for g in $grids; do
    p=$((${g%x*} * ${g#*x}))
    f=$out/${app}_n${n}_$g.json
    mpiexec --oversubscribe -n "$p" "$build/apps/${app}_resizable" -n "$n" -g "$g" -i "$iters" --meter-kernels -q \
      --no-check --json "$f" >"$out/${app}_n${n}_$g.log" 2>&1 || { tail -20 "$out/${app}_n${n}_$g.log" >&2; exit 1; }
    python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['segments'][0]; print(f\"speedup_measure: $app N=$n $g: \
wall {s['median_wall_s']:.4f} s, cpu {s['median_dedicated_s']:.4f} s, compute {s['median_compute_s']:.4f} s\")" "$f"
    rm -f "$out/${app}_n${n}_$g.log"
  done
done
echo "speedup_measure: done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/host.txt"
python3 "$here/scripts/bench/workload/fit_speedup.py" "$out" --out "$here/sim/speedup/apps.json" \
  --plot-data "$out/fit.dat"
