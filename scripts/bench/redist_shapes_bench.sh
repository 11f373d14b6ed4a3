#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# the redistribution cases (malleable-redist-bench redist --suite): PDGEMR2D, redist, COSTA (when
# a COSTA build is named) and the parallel memcpy floor side by side, one mpiexec per case
# with exactly the case's ranks, `uptime` recorded before each. Every case runs under both
# Open MPI shared-memory settings, one right after the other: the single copy Open MPI
# uses by default (vader's CMA, process_vm_readv) and btl_vader_single_copy_mechanism=none
# (two copies through the shared segment), which the project's tests and other scripts set.
# Writes docs/data/redist_shapes/ (case<k>.<setting>.json, case<k>.<setting>.log, runs.tsv,
# section.md, the plot in docs/img/) and splices section.md into docs/measurements/results.md.
#
#   scripts/bench/redist_shapes_bench.sh [--costa DIR] [--reps N] [--cases "0 3 5"] [--single-copy "cma none"]
#                                        [--variants window,single-copy] [--cluster [--nodes K] [--rate R]]
#   BUILD_DIR=build OUT_DIR=docs/data/redist_shapes (with --cluster: docs/data/redist_shapes_cluster)
#
# --cluster runs every case on the emulated cluster (scripts/cluster.sh, K nodes, default 3,
# links shaped to R, default 1gbit), the ranks placed round robin over the nodes
# (--map-by node) from node1, and adds the busiest node link's bound (its inter-node
# bytes / R) with redist's and COSTA's times over it.
#
# COSTA is never downloaded or built by the project: DIR is a COSTA build directory the
# user made (docs/measurements/redist.md, "Comparing with COSTA", gives the upstream build steps: Release,
# shared libraries, COSTA_SCALAPACK for the wrapper). The script compiles
# redist/bench/costa_native.cpp (COSTA's own API: block_cyclic_layout per matrix on its own
# grid + costa::transform) against DIR's headers and libcosta into $BUILD_DIR/redist/
# costa_native.so, which malleable-redist-bench dlopens; COSTA's ScaLAPACK wrapper
# (lib*/libcosta_prefixed_scalapack.so) is timed as a separate column where it applies (A
# and B on one grid shape). COSTA runs with OMP_NUM_THREADS=1 (the ranks share the cores).
# Without --costa its columns say "not built".
#
# --variants also times redist with these ExecOptions (malleable-redist-bench redist --variants, in the same
# round robin): "window" forces every transfer within a node through the node window,
# "single-copy" reads every one in one copy (process_vm_readv); the default (single_copy
# Auto) chooses per transfer. The report adds a table of the three side by side.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT_DIR:-$here/docs/data/redist_shapes}
costa="" reps=3 only="" cluster=0 nodes=3 rate=1gbit settings="cma none" variants=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --cases) only=$2; shift 2 ;;
    --cluster) cluster=1; shift ;;
    --nodes) nodes=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --single-copy) settings=$2; shift 2 ;;
    --variants) variants=$2; shift 2 ;;
    *) echo "redist_shapes_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
((cluster)) && out=${OUT_DIR:-$here/docs/data/redist_shapes_cluster}
bench=$build/redist/malleable-redist-bench
[[ -x $bench ]] || { echo "redist_shapes_bench.sh: $bench missing (cmake --build $build --target malleable_redist_bench)" >&2; exit 2; }
for v in $settings; do
  [[ $v == cma || $v == none ]] || { echo "redist_shapes_bench.sh: --single-copy takes cma and/or none, got '$v'" >&2; exit 2; }
done
# The single-copy setting is passed per case below (Open MPI's own default is cma).
unset OMPI_MCA_btl_vader_single_copy_mechanism
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
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
# A run of every case replaces the whole table; a run of some cases (--cases) replaces
# those cases' files and keeps the others' (the section then says which run each came from).
if [[ -z $only ]]; then
  rm -f "$out"/case*.json "$out"/case*.log
else
  for k in $only; do rm -f "$out"/case"$k".*.json "$out"/case"$k".*.log; done
fi
costa_commit="not built" native=() wrapper=()
if [[ -n $costa ]]; then
  costa=$(cd "$costa" && pwd)
  # The COSTA source the build came from (its CMake cache names it) gives the headers and
  # the commit; an install tree has include/ and lib/ instead.
  src=$(sed -n 's/^costa_SOURCE_DIR:STATIC=//p' "$costa/CMakeCache.txt" 2>/dev/null | head -1 || true)
  if [[ -n $src ]]; then
    costa_commit="$(git -C "$src" describe --tags --always 2>/dev/null || echo unknown) ($(git -C "$src" rev-parse HEAD 2>/dev/null || echo '?'))"
    inc=$src/src
  else
    inc=$costa/include
  fi
  lib=$(dirname "$(find "$costa" -name libcosta.so -print -quit)")
  [[ -f $inc/costa/layout.hpp && -f $lib/libcosta.so ]] ||
    { echo "redist_shapes_bench.sh: --costa $costa: no costa/layout.hpp under $inc or no libcosta.so (build COSTA with -DBUILD_SHARED_LIBS=ON)" >&2; exit 2; }
  so=$build/redist/costa_native.so
  mpicxx -std=c++17 -O2 -fopenmp -fPIC -shared -DOMPI_SKIP_MPICXX "$here/redist/bench/costa_native.cpp" -isystem "$inc" \
    -L"$lib" -lcosta -Wl,-rpath,"$lib" -o "$so"
  native=(--costa-native "$so")
  # COSTA's ScaLAPACK wrapper, when the build has it (COSTA_SCALAPACK set).
  [[ -n $(find "$costa" -name libcosta_prefixed_scalapack.so -print -quit) ]] && wrapper=(--costa "$costa")
fi
{
  echo "date	$(date -u +%FT%TZ)"
  echo "host	$(hostname) $(env -u OMP_NUM_THREADS nproc) cpus"
  echo "source	$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "costa_dir	${costa:-not built}"
  echo "costa_commit	$costa_commit"
  echo "costa_build_type	$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$costa/CMakeCache.txt" 2>/dev/null | head -1 || true)"
  echo "reps	$reps"
  echo "settings	$settings"
  echo "where	$where"
} > "$out/meta.tsv"
if [[ -z $only || ! -f $out/runs.tsv ]]; then
  printf 'case\tranks\tshape\tkind\tsingle_copy\tuptime\tcosta\tcommand\n' > "$out/runs.tsv"
else  # the other cases' rows stay
  awk -F'\t' -v only=" $only " 'NR == 1 || index(only, " " $1 " ") == 0' "$out/runs.tsv" > "$out/runs.tsv.new"
  mv "$out/runs.tsv.new" "$out/runs.tsv"
fi
# The list runs here, outside the nodes: without the cluster's interface limits, which
# name a subnet this namespace does not have (Open MPI warned about them on every run).
env -u OMPI_MCA_btl_tcp_if_include -u OMPI_MCA_oob_tcp_if_include "$bench" redist --suite --list |
while IFS=$'\t' read -r k np shape kind; do
  if [[ -n $only && " $only " != *" $k "* ]]; then continue; fi
  for sc in $settings; do
    load=$(uptime | sed 's/.*load average: //')
    args=(--suite --case "$k" --reps "$reps" --json "$out/case$k.$sc.json" "${link[@]}")
    [[ -n $variants ]] && args+=(--variants "$variants")
    env=(env OMPI_MCA_btl_vader_single_copy_mechanism="$sc")
    state="not built"
    log=$out/case$k.$sc.log
    cmd="OMPI_MCA_btl_vader_single_copy_mechanism=$sc ${launch[*]} -n $np $bench redist ${args[*]} ${native[*]} ${wrapper[*]}"
    if "${env[@]}" timeout 1800 "${launch[@]}" -n "$np" "$bench" redist "${args[@]}" "${native[@]}" "${wrapper[@]}" > "$log" 2>&1 < /dev/null; then
      [[ -n $costa ]] && state=ran
    else
      rc=$?
      sig=$(grep -o 'exited on signal [0-9]* ([A-Za-z ]*)' "$log" | head -1 || true)
      echo "case $k ($sc) failed: ${sig:-exit $rc}; see $log" >&2
      state="failed: ${sig:-exit $rc}"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$np" "$shape" "$kind" "$sc" "$load" "$state" "${cmd//$here\//}" >> "$out/runs.tsv"
    echo "# case $k, single copy $sc, load $load"
    grep -v '^#' "$log" | grep -v '^##' | tail -1 || true
    grep '^##   \(link\|COSTA\)' "$log" || true
  done
done
img=redist_shapes
((cluster)) && img=redist_shapes_cluster
python3 "$here/scripts/bench/redist_shapes_report.py" --data "$out" --plot "$here/docs/img/$img.png"
python3 "$here/scripts/bench/splice_sections.py" --only "$(basename "$out")" --data "$(dirname "$out")"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$out"
