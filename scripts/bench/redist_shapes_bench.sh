#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 21 §3's redistribution cases (redist_bench --suite): PDGEMR2D, redist, COSTA (when
# a COSTA build is named) and the parallel memcpy floor side by side, one mpiexec per case
# with exactly the case's ranks, `uptime` recorded before each. A case whose job dies with
# COSTA in it (COSTA crashes on some grid changes) is run again without COSTA and COSTA's
# column records the crash. Writes docs/data/redist_shapes/ (case<k>.json, case<k>.log,
# runs.tsv, section.md, the plot in docs/img/) and splices section.md into docs/results.md.
#
#   scripts/bench/redist_shapes_bench.sh [--costa DIR] [--reps N] [--cases "0 3 5"] [--cluster [--nodes K] [--rate R]]
#   BUILD_DIR=build OUT_DIR=docs/data/redist_shapes (with --cluster: docs/data/redist_shapes_cluster)
#
# --cluster runs every case on the emulated cluster (scripts/cluster.sh, K nodes, default 3,
# links shaped to R, default 1gbit), the ranks placed round robin over the nodes
# (--map-by node) from node1, and adds the busiest node link's bound (its inter-node
# bytes / R) with redist's and COSTA's times over it.
#
# COSTA is never downloaded or built by the project: DIR is a build the user made (its
# lib/libcosta_prefixed_scalapack.so). Without --costa its column says "not built".
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT_DIR:-$here/docs/data/redist_shapes}
costa="" reps=3 only="" cluster=0 nodes=3 rate=1gbit
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --cases) only=$2; shift 2 ;;
    --cluster) cluster=1; shift ;;
    --nodes) nodes=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    *) echo "redist_shapes_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
((cluster)) && out=${OUT_DIR:-$here/docs/data/redist_shapes_cluster}
bench=$build/redist/redist_bench
[[ -x $bench ]] || { echo "redist_shapes_bench.sh: $bench missing (cmake --build $build --target redist_bench)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
launch=(mpiexec --bind-to none) link=() where="one node"
if ((cluster)); then
  bits=$(python3 -c "import re,sys; m=re.fullmatch(r'([0-9.]+)([kmg]?)bit', sys.argv[1]); \
print(int(float(m[1]) * {'': 1, 'k': 1e3, 'm': 1e6, 'g': 1e9}[m[2]])) if m else sys.exit(1)" "$rate") ||
    { echo "redist_shapes_bench.sh: --rate must look like 1gbit or 100mbit, got '$rate'" >&2; exit 2; }
  SRC=$here BUILD=$build
  # shellcheck source=../../tests/cluster/harness.sh
  . "$here/tests/cluster/harness.sh"
  cluster_begin "$nodes" --rate "$rate"
  hosts=$(seq -s, -f 'node%g' 1 "$nodes")
  launch=("$CLUSTER" exec node1 mpiexec --bind-to none --host "$(sed 's/,/:16,/g; s/$/:16/' <<<"$hosts")" --map-by node)
  link=(--link-rate "$bits") where="emulated cluster: $nodes nodes, links $rate, ranks round robin over the nodes"
fi
mkdir -p "$out"
rm -f "$out"/case*.json "$out"/case*.log
costa_commit="not built"
if [[ -n $costa ]]; then
  costa=$(cd "$costa" && pwd)
  # The commit of the COSTA source the build came from, when its CMake cache names it.
  src=$(sed -n 's/^costa_SOURCE_DIR:STATIC=//p' "$costa/CMakeCache.txt" 2>/dev/null | head -1 || true)
  [[ -n $src ]] && costa_commit=$(git -C "$src" describe --tags --always 2>/dev/null || echo unknown)
  [[ -n $src ]] && costa_commit="$costa_commit ($(git -C "$src" rev-parse HEAD 2>/dev/null || echo '?'))"
fi
{
  echo "date	$(date -u +%FT%TZ)"
  echo "host	$(hostname) $(nproc) cpus"
  echo "source	$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "costa_dir	${costa:-not built}"
  echo "costa_commit	$costa_commit"
  echo "reps	$reps"
  echo "where	$where"
} > "$out/meta.tsv"
printf 'case\tranks\tshape\tkind\tuptime\tcosta\tcommand\n' > "$out/runs.tsv"
# The list runs here, outside the nodes: without the cluster's interface limits, which
# name a subnet this namespace does not have (Open MPI warned about them on every run).
env -u OMPI_MCA_btl_tcp_if_include -u OMPI_MCA_oob_tcp_if_include "$bench" --suite --list |
while IFS=$'\t' read -r k np shape kind; do
  if [[ -n $only && " $only " != *" $k "* ]]; then continue; fi
  load=$(uptime | sed 's/.*load average: //')
  args=(--suite --case "$k" --reps "$reps" --json "$out/case$k.json" "${link[@]}")
  state="not built"
  if [[ -n $costa ]]; then
    cmd="${launch[*]} -n $np $bench ${args[*]} --costa $costa"
    if timeout 900 "${launch[@]}" -n "$np" "$bench" "${args[@]}" --costa "$costa" > "$out/case$k.log" 2>&1 < /dev/null; then
      state=ran
    else
      rc=$?
      sig=$(grep -o 'exited on signal [0-9]* ([A-Za-z ]*)' "$out/case$k.log" | head -1 || true)
      state="crashed: ${sig:-exit $rc}"
      mv "$out/case$k.log" "$out/case$k.costa-crash.log"
      cmd="${launch[*]} -n $np $bench ${args[*]}"
      timeout 900 "${launch[@]}" -n "$np" "$bench" "${args[@]}" > "$out/case$k.log" 2>&1 < /dev/null || echo "case $k failed without COSTA too" >&2
    fi
  else
    cmd="${launch[*]} -n $np $bench ${args[*]}"
    timeout 900 "${launch[@]}" -n "$np" "$bench" "${args[@]}" > "$out/case$k.log" 2>&1 < /dev/null || echo "case $k failed" >&2
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$np" "$shape" "$kind" "$load" "$state" "${cmd//$here\//}" >> "$out/runs.tsv"
  grep -v '^#' "$out/case$k.log" | tail -1
  grep '^##   link:' "$out/case$k.log" || true
done
img=redist_shapes
((cluster)) && img=redist_shapes_cluster
python3 "$here/scripts/bench/redist_shapes_report.py" --data "$out" --plot "$here/docs/img/$img.png"
python3 "$here/scripts/bench/splice_sections.py" --only "$(basename "$out")" --data "$(dirname "$out")"
