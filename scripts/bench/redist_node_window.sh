#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The node-shared staging window (ExecOptions::node_window; docs/reference/redist.md, "A node-shared
# staging window") against redist by message and COSTA's native transform, on the
# ordinary-block cases of the shapes suite: redist_exec_probe per case and
# Open MPI shared-memory setting, the variants interleaved rep by rep in one run, `uptime`
# before each. Writes $OUT_DIR/<setting>.case<k>.txt and summary.tsv.
#   scripts/bench/redist_node_window.sh --costa DIR [--reps N] [--cases "1 7 10"] [--single-copy "cma none"]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT_DIR:-$here/docs/data/redist_node_window}
costa="" reps=9 cases="0 1 2 3 4 5 6 7 8 9 10" settings="cma none"
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --single-copy) settings=$2; shift 2 ;;
    *) echo "redist_node_window.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
probe=$build/redist/redist_exec_probe bench=$build/redist/redist_bench
[[ -x $probe && -x $bench ]] || { echo "build redist_exec_probe and redist_bench first" >&2; exit 2; }
. "$here/scripts/bench/costa_native.sh"
native=()
if [[ -n $costa ]]; then  # COSTA's own API, compiled against the user's COSTA build (as redist_shapes_bench.sh)
  so=$(costa_native "$costa" "$build" "$here") || exit 2
  native=(--costa-native "$so")
fi
unset OMPI_MCA_btl_vader_single_copy_mechanism
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$out"
list=$("$bench" --suite --list)
printf 'setting\tcase\tkind\tP\tload\tvariant\twall_min\twall_med\tcpu_min\tcpu_med\n' > "$out/summary.tsv"
for k in $cases; do
  line=$(awk -F'\t' -v k="$k" '$1 == k' <<<"$list")
  np=$(cut -f2 <<<"$line") shape=$(cut -f3 <<<"$line") kind=$(cut -f4 <<<"$line")
  for sc in $settings; do
    load=$(uptime | sed 's/.*load average: //')
    f=$out/$sc.case$k.txt
    { echo "# $kind, btl_vader_single_copy_mechanism=$sc, load $load, $(date -u +%FT%TZ)"
      OMPI_MCA_btl_vader_single_copy_mechanism=$sc timeout 900 mpiexec --bind-to none -n "$np" "$probe" --shape "$shape" \
        --reps "$reps" --variants no-shm,shm "${native[@]}"; } > "$f" 2>&1 || echo "case $k $sc failed" >&2
    awk -v sc="$sc" -v k="$k" -v kind="$kind" -v np="$np" -v load="${load%%,*}" \
      '/^(no-shm|shm|COSTA) / {printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sc, k, kind, np, load, $1, $2, $3, $4, $5}' "$f" \
      >> "$out/summary.tsv"
  done
done
python3 - "$out/summary.tsv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
by = {}
for r in rows:
    by.setdefault((r['setting'], r['case'], r['kind'], r['P'], r['load']), {})[r['variant']] = r
print('| setting | case | P | load | COSTA / redist by message | COSTA / redist with window | window speed-up | (medians of wall time; cpu medians) |')
print('|---|---|---|---|---|---|---|---|')
for (sc, k, kind, p, load), v in by.items():
    if not all(x in v for x in ('no-shm', 'shm')): continue
    m = lambda x, c='wall_med': float(v[x][c])
    costa = f"{m('COSTA') / m('no-shm'):.2f}x" if 'COSTA' in v else '-'
    costa_w = f"{m('COSTA') / m('shm'):.2f}x" if 'COSTA' in v else '-'
    cpu = f"cpu {m('no-shm', 'cpu_med') / m('shm', 'cpu_med'):.2f}x" + (f", COSTA/window {m('COSTA', 'cpu_med') / m('shm', 'cpu_med'):.2f}x" if 'COSTA' in v else '')
    print(f"| {sc} | {kind} | {p} | {load} | {costa} | {costa_w} | {m('no-shm') / m('shm'):.2f}x | {cpu} |")
PY
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$out"
