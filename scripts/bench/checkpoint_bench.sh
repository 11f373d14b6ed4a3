#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint write / restart read bandwidth against raw MPI-IO of the same bytes from the
# same processes to the same directory, measured side by side in one run
# (target >= 0.7x). Each grid (2x2 on 4, 3x3 on 9 processes) writes and reads
# back on the same grid, with the union path (MALLEABLE_CHECKPOINT_BLOCKS=never, one
# collective H5Dwrite), the per-block path through dataspace selections
# (MALLEABLE_CHECKPOINT_DIRECT=0) and the default per-block path (whole chunks raw,
# H5Dwrite_chunk / H5Dread_chunk), one after the other in one run; then 2x2 -> 3x3. Each line also times raw MPI-IO in the checkpoint's own pattern.
# Then the overhead of periodic checkpoints at the Young/Daly interval on the time per
# iteration (pdgemm without and with --checkpoint-every auto, back to back), and the
# section of docs/measurements/results.md with its plot (checkpoint_report.py, splice_sections.py).
# Usage: checkpoint_bench.sh [build dir] [N] [NB] [repeats]   (DIR: $CHECKPOINT_BENCH_DIR or a mktemp dir)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64} reps=${4:-3}
build=$(cd "$build" && pwd)
dir=${CHECKPOINT_BENCH_DIR:-$(mktemp -d)}
trap '[[ -z ${CHECKPOINT_BENCH_DIR:-} ]] && rm -rf "$dir"' EXIT
# Results: $CHECKPOINT_BENCH_OUT (default docs/data/checkpoint), rendered into the section
# "Checkpoint and restart" of docs/measurements/results.md and docs/img/checkpoint.png.
out=${CHECKPOINT_BENCH_OUT:-$here/docs/data/checkpoint}
rm -rf "$out" && mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
{
echo "host: $(nproc) cores, load $load_before, directory $dir ($(df -T "$dir" | awk 'NR==2{print $2}'))"
for g in 2x2:4 3x3:9; do
  for path in never selection auto; do
    case $path in
      never) echo "== path: union, collective"; blocks=never direct=1 ;;
      selection) echo "== path: per block, H5Dwrite of a selection"; blocks=auto direct=0 ;;
      auto) echo "== path: per block, whole chunks raw"; blocks=auto direct=1 ;;
    esac
    MALLEABLE_CHECKPOINT_BLOCKS=$blocks MALLEABLE_CHECKPOINT_DIRECT=$direct timeout 900 mpiexec --oversubscribe --bind-to none \
      -n "${g#*:}" "$build/resize/malleable-resize-bench" checkpoint "$n" "$nb" "${g%:*}" "${g%:*}" "$dir" "$reps"
  done
done
echo "== path: per block, whole chunks raw"
timeout 900 mpiexec --oversubscribe --bind-to none -n 9 "$build/resize/malleable-resize-bench" checkpoint "$n" "$nb" 2x2 3x3 "$dir" "$reps"
} 2>&1 | tee "$out/bandwidth.log"
# Overhead of periodic checkpoints at the Young/Daly interval on the time per iteration:
# pdgemm_resizable on 2x2 without checkpoints and with --checkpoint-every auto, back to
# back, $OV_PAIRS pairs (OV_N, OV_ITERS, OV_MTBF).
ov_n=${OV_N:-1000} ov_iters=${OV_ITERS:-60} ov_mtbf=${OV_MTBF:-10s} ov_pairs=${OV_PAIRS:-2}
for r in $(seq 1 "$ov_pairs"); do
  for mode in plain auto; do
    args=(-n "$ov_n" -i "$ov_iters" -q --json "$out/overhead_${mode}_$r.json")
    [[ $mode == auto ]] && rm -rf "$dir/ov" && args+=(--checkpoint "$dir/ov" --checkpoint-every auto --mtbf "$ov_mtbf")
    timeout 900 mpiexec --oversubscribe --bind-to none -n 4 "$build/apps/pdgemm_resizable" "${args[@]}" \
      > "$out/overhead_${mode}_$r.log" 2>&1
    echo "overhead pair $r, $mode: $(grep -c 'checkpoint-every auto:' "$out/overhead_${mode}_$r.log") checkpoints"
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "after: load $load_after"
printf 'command\t%s\nhost\t%s\nload_before\t%s\nload_after\t%s\ndate\t%s\nov_n\t%s\nov_mtbf\t%s\n' \
  "scripts/bench/checkpoint_bench.sh build $n $nb $reps" "$(nproc) cores, $(df -T "$dir" | awk 'NR==2{print $2}') under $(dirname "$dir")" \
  "$load_before" "$load_after" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$ov_n" "$ov_mtbf" > "$out/meta.tsv"
cd "$here"
if [[ -z ${CHECKPOINT_BENCH_OUT:-} ]]; then
  python3 scripts/bench/checkpoint_report.py --data "${out#"$here"/}" --plot docs/img/checkpoint.png
  python3 scripts/bench/splice_sections.py --only checkpoint --data "$(dirname "${out#"$here"/}")"
  python3 scripts/bench/data_archive.py pack "${out#"$here"/}" >/dev/null  # the overhead runs into runs.tar.xz
else  # elsewhere (ctest): render next to the data, leave docs/ alone
  python3 scripts/bench/checkpoint_report.py --data "$out" --plot "$out/checkpoint.png"
fi
