#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set-up (packages + build), then the main job: a resizable PDGEMM that starts on a 2x2
# grid, grows to 3x3 (Local2 placement, spawned processes) at a remap point, later
# shrinks back to 2x2, and prints its progress, the summary (iteration times per grid,
# redistribution and resize time, payoff point and resize cost on the wall clock and on
# the dedicated-core estimate) and the result check. Then the data each placement moves
# for the same expansion, and the heterogeneous Game of Life of the thesis Table 6.3
# (uniform vs power-proportional blocks), and a run that adapts to an emulated load with
# measured powers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OPENBLAS_NUM_THREADS=1
# the dedicated-core "compute" clock of the summaries (kernel metering is opt-in)
export RESIZE_METER_KERNELS=1
# Every run starts from an empty resize history (kept in memory for the run only): the
# drivers otherwise keep it in $XDG_CACHE_HOME/malleable/history (~/.cache), and a second
# run would predict its resizes from the first's and print other predictions.
export RESIZE_HISTORY=off
build_dir=${BUILD_DIR:-build}
[[ "${MALL_SANITIZE:-0}" == 1 ]] && build_dir=${BUILD_DIR:-build-asan}
cd "$here/$build_dir"
mpirun=(mpiexec --oversubscribe --bind-to none)

echo "== PDGEMM on a 2x2 grid, checked against serial OpenBLAS (tool-chain smoke run)"
"${mpirun[@]}" -n 4 apps/pdgemm_smoke 600 64 2 2

echo
echo "== main job: resizable PDGEMM, 2x2 -> 3x3 (Local2) after iteration 4, back to 2x2 after 10"
# 4 processes to start with; blacs-dyn spawns 5 more at the expansion.
"${mpirun[@]}" -n 4 apps/pdgemm_resizable -n 1200 --nb 64 -i 14 \
  -p scripted -s 4:expand:3x3:local2,10:shrink:2x2 --json main_job.json
echo "(the run as JSON: $here/$build_dir/main_job.json)"

echo
echo "== placements compared: 2x2 -> 3x3, N=1200, block distribution (thesis §4.5, Table 4.1)"
for pl in global local1 local2 optimal; do
  "${mpirun[@]}" -n 4 apps/pdgemm_resizable -n 1200 --dist block -i 3 -q \
    -p scripted -s 1:expand:3x3:$pl --json "placement_$pl.json" | grep "result check"
done
python3 - <<'PY'
import json
print("   placement  moved MiB   redistribution ms   spawn ms   total resize ms")
for pl in ["global", "local1", "local2", "optimal"]:
    r = json.load(open(f"placement_{pl}.json"))["resizes"][0]
    print(f"   {pl:9s} {r['bytes_moved']/2**20:10.2f} {r['t_redist_s']*1e3:19.1f} {r['t_spawn_s']*1e3:10.1f} {r['t_total_s']*1e3:17.1f}")
PY

echo
echo "== heterogeneous Game of Life, processing powers 1,2,2,4 (thesis §6.4, Table 6.3)"
"${mpirun[@]}" -n 4 apps/life_hetero -n 800 -g 2x2 --powers 1,2,2,4 -i 10 --base-reps 200

echo
echo "== adapting to load: rank 3 six times slower in iterations 6-25, measured powers,"
echo "   the adaptive policy re-weights / drops / takes back when the predicted gain exceeds the cost"
"${mpirun[@]}" -n 4 apps/life_hetero_resizable -n 480 -g 2x2 -i 60 --base-reps 40 --powers measured \
  --load 3@6-25:x6 --speed-clock cpu --adapt-clock compute --meter-kernels --policy adaptive \
  --json adaptive_load.json | grep -E "adaptive policy|remap|result check|predicted before|->|^   [0-9]x"
echo "(the run as JSON: $here/$build_dir/adaptive_load.json)"
