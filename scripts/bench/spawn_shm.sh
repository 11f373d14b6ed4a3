#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Old and new processes on one node, Open MPI's default (ob1: an original and a newcomer
# talk over TCP) against BLACS_DYN_PML=ucx (shared memory), side by side in one run, the
# order of the arms rotating each round (docs/reference/blacs-dyn.md, "Old and new
# processes on one node"):
#   pingpong  rank 0 and rank 1 of a world started with 2 processes (two originals) and of
#             one process grown by a spawn of one (an original and a newcomer): 8-byte round
#             trip and 8 MiB bandwidth, median of 5 (tests/blacs-dyn/runtime/pingpong_grown.cpp);
#   growth    PDGETRF and PDGEMM (N = 4,000, NB 64): a job started on 1x1 grown to 1x2 by
#             spawn after iteration 1 against the same driver started on 1x2; the median
#             iteration after the growth (the first on the new grid left out) over the fresh
#             job's median.
# Two processes on this machine's cores (2 here: idle but for the host's other work; the
# load is printed). Prints one line per run and a table of medians and ranges.
#   scripts/bench/spawn_shm.sh [BUILD_DIR] [ROUNDS] [OUT_DIR]
set -uo pipefail
build=${1:-build} rounds=${2:-3} out=${3:-}
[[ -x $build/tests/blacs-dyn/blacs_dyn_pingpong_grown && -x $build/apps/pdgetrf_resizable ]] || {
  echo "spawn_shm.sh: build $build first (targets blacs_dyn_pingpong_grown pdgetrf_resizable pdgemm_resizable)" >&2; exit 1; }
ompi_info 2>/dev/null | grep -q "MCA pml: ucx" || { echo "spawn_shm.sh: this Open MPI has no pml/ucx"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=${N:-4000}
echo "spawn_shm: $(nproc --all) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(mpiexec --version | head -1), N $n, $rounds rounds, $(date -u +%FT%TZ)"
pml_env() {  # <pml>: the environment of the arm
  [[ $1 == ucx ]] && echo "BLACS_DYN_PML=ucx" || echo "BLACS_DYN_PML_UNSET=1"
}
results=$tmp/results.tsv
: >"$results"
for ((r = 1; r <= rounds; ++r)); do
  arms=("ob1 fresh" "ob1 grow" "ucx grow" "ucx fresh")
  # rotate the order each round
  for ((k = 0; k < ${#arms[@]}; ++k)); do
    arm=${arms[$(((k + r) % ${#arms[@]}))]}
    set -- $arm
    pml=$1 mode=$2 np=2
    [[ $mode == grow ]] && np=1
    line=$(env $(pml_env "$pml") timeout 120 mpiexec --oversubscribe --bind-to none -x BLACS_DYN_PML -n $np \
      "$build/tests/blacs-dyn/blacs_dyn_pingpong_grown" "$mode" 8 5 2>&1 | grep "^pingpong")
    lat=$(sed -n 's/.*round trip \([0-9.]*\) us.*/\1/p' <<<"$line") bw=$(sed -n 's/.* \([0-9.]*\) GB\/s.*/\1/p' <<<"$line")
    echo "round $r pingpong $pml $mode: ${line:-FAILED}"
    [[ -n $lat ]] && printf 'pingpong\t%s\t%s\tlatency_us\t%s\n' "$pml" "$mode" "$lat" >>"$results"
    [[ -n $bw ]] && printf 'pingpong\t%s\t%s\tbandwidth_gbs\t%s\n' "$pml" "$mode" "$bw" >>"$results"
  done
  for d in pdgetrf pdgemm; do
    for ((k = 0; k < ${#arms[@]}; ++k)); do
      arm=${arms[$(((k + r) % ${#arms[@]}))]}
      set -- $arm
      pml=$1 mode=$2
      json=$tmp/$d.$pml.$mode.$r.json
      if [[ $mode == grow ]]; then
        env $(pml_env "$pml") timeout 240 mpiexec --oversubscribe --bind-to none -x BLACS_DYN_PML -n 1 \
          "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 1x1 -i 6 -p scripted -s 1:expand:1x2 --no-check -q \
          --json "$json" >"$tmp/log" 2>&1
      else
        env $(pml_env "$pml") timeout 240 mpiexec --oversubscribe --bind-to none -x BLACS_DYN_PML -n 2 \
          "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 1x2 -i 5 --no-check -q --json "$json" >"$tmp/log" 2>&1
      fi
      med=$(python3 - "$json" <<'PY' 2>/dev/null
import json, statistics, sys
its = [i for i in json.load(open(sys.argv[1]))["iterations"] if i["procs"] == 2]
print(f"{statistics.median(i['wall_s'] for i in its[1:]):.4f}")  # the first on the grid left out
PY
)
      echo "round $r $d $pml $mode: median iteration ${med:-FAILED} s"
      [[ -n $med ]] && printf '%s\t%s\t%s\titeration_s\t%s\n' "$d" "$pml" "$mode" "$med" >>"$results"
    done
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
val = {}
for what, pml, mode, metric, v in rows:
    val.setdefault((what, metric, pml, mode), []).append(float(v))
def fmt(v):
    return f"{statistics.median(v):.4g} ({min(v):.4g}-{max(v):.4g}, {len(v)})"
print("\n| measure | ob1 fresh | ob1 grown | ucx fresh | ucx grown | grown / fresh, ob1 | grown / fresh, ucx |")
print("|---|---|---|---|---|---|---|")
for what, metric in (("pingpong", "latency_us"), ("pingpong", "bandwidth_gbs"), ("pdgetrf", "iteration_s"), ("pdgemm", "iteration_s")):
    cells = [val.get((what, metric, p, m), []) for p, m in (("ob1", "fresh"), ("ob1", "grow"), ("ucx", "fresh"), ("ucx", "grow"))]
    if not all(cells):
        print(f"| {what} {metric} | missing runs |")
        continue
    med = [statistics.median(c) for c in cells]
    print(f"| {what} {metric} | " + " | ".join(fmt(c) for c in cells) +
          f" | {med[1] / med[0]:.3f} | {med[3] / med[2]:.3f} |")
PY
if [[ -n $out ]]; then mkdir -p "$out" && cp "$results" "$out/spawn_shm.tsv"; fi
