#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# redist's benchmarks and probes around malleable-redist-bench (docs/measurements/redist.md): one command, the case first:
#   scripts/bench/redist.sh <case> [its arguments]   (--help lists the cases; <case> --help
#   prints the case's notes)
# Each case below runs as the script it was (its notes above its function, its arguments
# and environment unchanged); the libraries (#@lib) are what the cases sourced.

# the dispatcher, _help and _cases (scripts/bench/dispatch.sh); sourced by another, its own stays
[[ -n ${bench_script:-} && ${BASH_SOURCE[0]} != "$0" ]] || bench_script=${BASH_SOURCE[0]}
source "$(dirname "${BASH_SOURCE[0]}")/dispatch.sh"

# costa_env: native=(--costa-native SO) where a COSTA build is named ($costa; built against
# $build, $here), else empty; and the environment of ranks that share the cores.
costa_env() {
  lib_costa_native
  native=()
  if [[ -n $costa ]]; then
    so=$(costa_native "$costa" "$build" "$here") || exit 2
    native=(--costa-native "$so")
  fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
         OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
}

#@case shapes
# the redistribution cases (malleable-redist-bench redist --suite): PDGEMR2D, redist, COSTA (when
# a COSTA build is named) and the parallel memcpy floor side by side, one mpiexec per case
# with exactly the case's ranks, `uptime` recorded before each. Every case runs under both
# Open MPI shared-memory settings, one right after the other: the single copy Open MPI
# uses by default (vader's CMA, process_vm_readv) and btl_vader_single_copy_mechanism=none
# (two copies through the shared segment), which the project's tests and other scripts set.
# Writes docs/data/redist_shapes/ (case<k>.<setting>.json, case<k>.<setting>.log, runs.tsv,
# section.md, the plot in docs/img/) and splices section.md into docs/measurements/results.md.
#
#   scripts/bench/redist.sh shapes [--costa DIR] [--reps N] [--cases "0 3 5"] [--single-copy "cma none"]
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
case_shapes() {
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
    *) echo "redist.sh shapes: unknown argument $1" >&2; exit 2 ;;
  esac
done
((cluster)) && out=${OUT_DIR:-$here/docs/data/redist_shapes_cluster}
bench=$build/redist/malleable-redist-bench
[[ -x $bench ]] || { echo "redist.sh shapes: $bench missing (cmake --build $build --target malleable_redist_bench)" >&2; exit 2; }
for v in $settings; do
  [[ $v == cma || $v == none ]] || { echo "redist.sh shapes: --single-copy takes cma and/or none, got '$v'" >&2; exit 2; }
done
# The single-copy setting is passed per case below (Open MPI's own default is cma).
unset OMPI_MCA_btl_vader_single_copy_mechanism
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
launch=(mpiexec --bind-to none) link=() where="one node"
if ((cluster)); then
  bits=$(python3 -c "import re,sys; m=re.fullmatch(r'([0-9.]+)([kmg]?)bit', sys.argv[1]); \
print(int(float(m[1]) * {'': 1, 'k': 1e3, 'm': 1e6, 'g': 1e9}[m[2]])) if m else sys.exit(1)" "$rate") ||
    { echo "redist.sh shapes: --rate must look like 1gbit or 100mbit, got '$rate'" >&2; exit 2; }
  SRC=$here BUILD=$build
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
    { echo "redist.sh shapes: --costa $costa: no costa/layout.hpp under $inc or no libcosta.so (build COSTA with -DBUILD_SHARED_LIBS=ON)" >&2; exit 2; }
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
}

#@case ab
# Side-by-side timing of two builds' redistribution bench (malleable-redist-bench redist;
# redist_bench in a build older than 58f7ebec) on the 2-rank cases of the suite (ranks <=
# cores here): for each case both builds run back to back, fastest of --reps, with the
# memcpy floor that includes local copies measured in the same run.
#   scripts/bench/redist.sh ab OLD_BUILD NEW_BUILD [--reps N] [--cases "7 9 11"]
# Build an older commit's bench for the first argument, e.g.
#   git worktree add /tmp/old <commit> && cmake -S /tmp/old -B /tmp/oldbuild &&
#   cmake --build /tmp/oldbuild --target malleable_redist_bench   (redist_bench before 58f7ebec)
# Prints: case | name | old s | new s | new/old | floor with local s | new/floor
case_ab() {
set -euo pipefail
[[ $# -ge 2 ]] || { _help ab | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1 new=$2; shift 2
reps=7 cases="7 9 11 12 13 14 15 16 17 18 19 20"
while (($#)); do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    *) echo "redist.sh ab: unknown option $1" >&2; exit 2 ;;
  esac
done
declare -A bench
for b in "$old" "$new"; do
  if [[ -x $b/redist/malleable-redist-bench ]]; then bench[$b]="$b/redist/malleable-redist-bench redist"
  elif [[ -x $b/redist/redist_bench ]]; then bench[$b]=$b/redist/redist_bench
  else echo "redist.sh ab: neither $b/redist/malleable-redist-bench nor $b/redist/redist_bench" >&2; exit 2; fi
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
  OPENBLAS_NUM_THREADS=1
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); reps $reps; old $old, new $new"
echo "case | name | old s | new s | new/old | floor with local s | new/floor"
run() {  # build case -> "seconds floor"
  local out
  # shellcheck disable=SC2086
  out=$(mpiexec --bind-to none -n 2 ${bench[$1]} --suite --case "$2" --reps "$reps" 2>&1)
  awk '/^"/{for(i=1;i<=NF;i++) if ($i ~ /@/) {t=$(i+5); break}} /floor with local/{sub(/.*: /,""); sub(/ s;.*/,""); f=$0}
       END{print t, f}' <<<"$out"
  grep -q ' ok' <<<"$out" || { echo "redist.sh ab: case $2 with $1 did not check ok" >&2; return 1; }
}
for c in $cases; do
  # shellcheck disable=SC2086
  name=$(${bench[$new]} --suite --list | awk -F'\t' -v c="$c" '$1 == c {print $4}')
  read -r to _ < <(run "$old" "$c")
  read -r tn fl < <(run "$new" "$c")
  awk -v c="$c" -v n="$name" -v o="$to" -v w="$tn" -v f="$fl" \
    'BEGIN{printf "%s | %s | %.4f | %.4f | %.2fx | %.4f | %.2fx\n", c, n, o, w, w/o, f, w/f}'
done
}

#@case costa-ab
# The shapes suite with COSTA, two builds side by side: for each case of
# malleable-redist-bench redist --suite (redist_bench --suite in a build older than 58f7ebec), ROUNDS rounds, each round running the old build's bench then the new one's
# (the order alternating from round to round), both with COSTA's own API
# (redist/bench/costa_native.cpp compiled against a COSTA build, as redist.sh shapes
# does) and OMP_NUM_THREADS=1, vader's single copy (cma, Open MPI's default). Per case:
# the medians over the rounds of redist's and COSTA's time per build, new/old for redist,
# and redist/COSTA per build (each from the same run).
#   scripts/bench/redist.sh costa-ab OLD_BUILD NEW_BUILD COSTA_BUILD [--cases "0 3 5"] [--rounds R] [--reps N]
#                                    [--out DIR]
# COSTA_BUILD: a COSTA build directory (docs/measurements/redist.md, "Comparing with COSTA").
case_costa_ab() {
set -euo pipefail
[[ $# -ge 3 ]] || { _help costa-ab | sed 's/^# \{0,1\}//' >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) costa=$(cd "$3" && pwd)
shift 3
cases="0 3 5 7 9" rounds=3 reps=3 out=""
while (($#)); do
  case $1 in
    --cases) cases=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "redist.sh costa-ab: unknown option $1" >&2; exit 2 ;;
  esac
done
lib_costa_native
declare -A so bench
for b in "$old" "$new"; do
  if [[ -x $b/redist/malleable-redist-bench ]]; then bench[$b]="$b/redist/malleable-redist-bench redist"
  elif [[ -x $b/redist/redist_bench ]]; then bench[$b]=$b/redist/redist_bench
  else echo "redist.sh costa-ab: neither $b/redist/malleable-redist-bench nor $b/redist/redist_bench" >&2; exit 2; fi
  so[$b]=$(costa_native "$costa" "$b" "$here")
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
  OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMPI_MCA_btl_vader_single_copy_mechanism=cma
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -n $out ]] && mkdir -p "$out"
tsv=${out:-$tmp}/costa_ab.tsv
printf 'case\tround\tbuild\tredist_s\tcosta_s\tload\n' >"$tsv"
echo "# $(date -u +%FT%TZ), $(env -u OMP_NUM_THREADS nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); cases $cases; $rounds rounds, reps $reps"
run() {  # <build> <case> <round>: a line into the table
  local b=$1 k=$2 r=$3 np log tag
  # shellcheck disable=SC2086
  np=$(${bench[$b]} --suite --list | awk -F'\t' -v c="$k" '$1 == c {print $2}')
  tag=$([[ $b == "$old" ]] && echo old || echo new)
  # shellcheck disable=SC2086
  log=$(timeout 1200 mpiexec --bind-to none -n "$np" ${bench[$b]} --suite --case "$k" --reps "$reps" \
    --costa-native "${so[$b]}" 2>&1) || { echo "redist.sh costa-ab: case $k ($tag) failed" >&2; echo "$log" >&2; return 1; }
  [[ -n $out ]] && echo "$log" >"$out/case$k.$r.$tag.log"
  awk -v k="$k" -v r="$r" -v t="$tag" -v la="$(cut -d' ' -f1 /proc/loadavg)" '
    /^ *case +shape/ {for (i = 1; i <= NF; i++) col[$i] = i; next}
    /^"/ && ("redist_s" in col) {n = split($0, f, /"/); split(f[n], g, " ")
          printf "%s\t%d\t%s\t%s\t%s\t%s\n", k, r, t, g[col["redist_s"] - 1], g[col["costa_s"] - 1], la; exit}' <<<"$log" |
    tee -a "$tsv"
}
for k in $cases; do
  for ((r = 1; r <= rounds; ++r)); do
    if ((r % 2)); then run "$old" "$k" "$r"; run "$new" "$k" "$r"; else run "$new" "$k" "$r"; run "$old" "$k" "$r"; fi
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("| case | redist old s | redist new s | new/old (median of the paired ratios, min-max) | COSTA s | redist/COSTA old | redist/COSTA new |")
print("|---|---:|---:|---:|---:|---:|---:|")
for k in dict.fromkeys(r["case"] for r in rows):
    by = {(r["round"], r["build"]): r for r in rows if r["case"] == k}
    rounds = sorted({r for r, _ in by})
    f = lambda r, b, c: float(by[(r, b)][c])
    pair = [f(r, "new", "redist_s") / f(r, "old", "redist_s") for r in rounds if (r, "old") in by and (r, "new") in by]
    med = lambda b, c: statistics.median(f(r, b, c) for r in rounds if (r, b) in by)
    costa = statistics.median([f(r, b, "costa_s") for r in rounds for b in ("old", "new") if (r, b) in by])
    print(f"| {k} | {med('old', 'redist_s'):.4f} | {med('new', 'redist_s'):.4f} | {statistics.median(pair):.2f}x "
          f"({min(pair):.2f}-{max(pair):.2f}) | {costa:.4f} | {med('old', 'redist_s') / med('old', 'costa_s'):.2f} | "
          f"{med('new', 'redist_s') / med('new', 'costa_s'):.2f} |")
EOF
}

#@case cpu-probe
# What limits redist against COSTA where their ratio stays below the 1.5x (docs/reference/redist.md,
# "Single copy on a node"): malleable-redist-bench exec on the given shapes, under both Open MPI
# shared-memory settings, redist (default, the window forced, single copy forced), COSTA's
# native transform, PDGEMR2D and the memcpy floor interleaved rep by rep, each with its wall
# time (slowest rank) and the CPU time its ranks spent, summed (kernel time of a
# cross-memory copy included: it is the calling process's). With more ranks than cores the
# wall time is set by scheduling; the summed CPU time is the work each one does.
# Output: docs/data/redist_cpu_probe.txt (or $OUT).
#   scripts/bench/redist.sh cpu-probe --costa DIR [--reps 9] [--shapes "SHAPE:P ..."]
case_cpu_probe() {
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT:-$here/docs/data/redist_cpu_probe.txt}
costa="" reps=9
shapes="4000x4000:64x64@2x2:64x64@3x3:9 4000x4000:64x64@3x3:64x64@2x2:9 4000x4000:64x64@3x3:100x100@3x3:9 4000x4000:4000x1000@1x4:1000x4000@4x1:4"
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    *) echo "redist.sh cpu-probe: unknown argument $1" >&2; exit 2 ;;
  esac
done
probe=$build/redist/malleable-redist-bench
[[ -x $probe ]] || { echo "redist.sh cpu-probe: $probe missing (cmake --build $build --target malleable_redist_bench)" >&2; exit 2; }
costa_env
mkdir -p "$(dirname "$out")"
{
  echo "# scripts/bench/redist.sh cpu-probe on $(hostname), $(env -u OMP_NUM_THREADS nproc) cpus, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), reps $reps"
  for s in $shapes; do
    np=${s##*:} shape=${s%:*}
    for sc in cma none; do
      echo "## vader single copy: $sc; load $(uptime | sed 's/.*load average: //')"
      OMPI_MCA_btl_vader_single_copy_mechanism=$sc timeout 900 mpiexec --bind-to none -n "$np" "$probe" exec --shape "$shape" \
        --reps "$reps" --variants auto,shm-only,single-copy "${native[@]}" 2>&1 || echo "$shape ($sc) failed"
    done
  done
} | tee "$out"
}

#@case types-dropin
# For the other element types and the drop-in path: malleable-redist-bench exec per case
# of the shapes suite, element type (s, d, c, z) and Open MPI shared-memory setting (cma,
# none), redist by message ("no-shm") and with the node window (default, "shm"), COSTA's
# native transform (COSTA_DIR's build, OMP_NUM_THREADS=1), PxGEMR2D and the memcpy floor
# round robin; every result compared element for element with PxGEMR2D's. Then the same
# with the drop-in (libmalleable_redist_gemr2d) preloaded, so the program's own PxGEMR2D
# calls are served by redist: COSTA / the drop-in, and the result's checksum against the
# stock run's. Writes $OUT_DIR/<case>.<type>.<setting>[.dropin].txt and summary.md.
#   scripts/bench/redist.sh types-dropin --costa DIR [--cases "1 7"] [--types "s d c z"] [--reps 5]
case_types_dropin() {
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT_DIR:-$here/docs/data/redist_types_dropin}
costa="" cases="1 7" types="s d c z" reps=5 settings="cma none"
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --types) types=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --single-copy) settings=$2; shift 2 ;;
    *) echo "redist.sh types-dropin: unknown argument $1" >&2; exit 2 ;;
  esac
done
bench=$build/redist/malleable-redist-bench
dropin=$(find "$build/redist" -name 'libmalleable_redist_gemr2d.so' -print -quit)
[[ -x $bench && -n $dropin ]] || { echo "build malleable_redist_bench and redist_gemr2d first" >&2; exit 2; }
[[ -n $costa ]] || { echo "--costa DIR (a COSTA build) is required" >&2; exit 2; }
lib_costa_native
so=$(costa_native "$costa" "$build" "$here") || exit 2
unset OMPI_MCA_btl_vader_single_copy_mechanism REDIST_GEMR2D
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$out"
list=$("$bench" redist --suite --list)
sum=$out/summary.md
{
  echo "# redist.sh types-dropin, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD), reps $reps (medians of wall time, slowest rank)"
  echo
  echo "| case | P | type | setting | load | COSTA / redist (window) | COSTA / redist (by message) | redist (window) / floor | COSTA / drop-in | identical to PxGEMR2D | drop-in checksum = stock |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$sum"
for k in $cases; do
  line=$(awk -F'\t' -v k="$k" '$1 == k' <<<"$list")
  np=$(cut -f2 <<<"$line") shape=$(cut -f3 <<<"$line") kind=$(cut -f4 <<<"$line")
  for t in $types; do
    for sc in $settings; do
      load=$(uptime | sed 's/.*load average: //; s/,.*//')
      f=$out/case$k.$t.$sc.txt fd=$out/case$k.$t.$sc.dropin.txt
      run=(timeout 900 mpiexec --bind-to none -n "$np")
      args=("$bench" exec --shape "$shape" --type "$t" --reps "$reps" --variants no-shm,shm --costa-native "$so")
      { echo "# $kind, type $t, btl_vader_single_copy_mechanism=$sc, load $load"
        OMPI_MCA_btl_vader_single_copy_mechanism=$sc "${run[@]}" "${args[@]}"; } > "$f" 2>&1 || echo "case $k $t $sc failed" >&2
      { echo "# $kind, type $t, btl_vader_single_copy_mechanism=$sc, drop-in preloaded"
        OMPI_MCA_btl_vader_single_copy_mechanism=$sc "${run[@]}" -x LD_PRELOAD="$dropin" -x REDIST_GEMR2D_VERBOSE=1 \
          "${args[@]}"; } > "$fd" 2>&1 || echo "case $k $t $sc (drop-in) failed" >&2
      python3 - "$f" "$fd" "$kind" "$np" "$t" "$sc" "$load" >> "$sum" <<'PY'
import re, sys
f, fd, kind, np, t, sc, load = sys.argv[1:]
def table(path):
    rows, cs = {}, None
    for l in open(path):
        m = re.match(r'^(no-shm|shm|COSTA|PxGEMR2D|floor)\s+([\d.]+)\s+([\d.]+)\s.*\s(ok|DIFFERENT|-)$', l.strip())
        if m: rows[m[1]] = (float(m[3]), m[4])
        m = re.match(r"^checksum of PxGEMR2D's result ([0-9a-f]+)", l)
        if m: cs = m[1]
    return rows, cs
s, cs = table(f)
d, cd = table(fd)
served = any('served by malleable redist' in l for l in open(fd))
r = lambda a, b, tab: f"{tab[a][0] / tab[b][0]:.2f}x" if a in tab and b in tab and tab[b][0] > 0 else '-'
same = all(v[1] in ('ok', '-') for v in s.values()) and bool(s)
print(f"| {kind} | {np} | {t} | {sc} | {load} | {r('COSTA', 'shm', s)} | {r('COSTA', 'no-shm', s)} | "
      f"{s['shm'][0] / s['floor'][0]:.1f}x | {r('COSTA', 'PxGEMR2D', d)} | {'yes' if same else 'NO'} | "
      f"{'yes' if cs and cs == cd else 'NO'}{'' if served else ' (drop-in did not serve)'} |" if 'shm' in s and 'floor' in s else f"| {kind} | {np} | {t} | {sc} | {load} | failed |")
PY
      tail -1 "$sum"
    done
  done
done
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$out"
}

#@case single-copy
# Single copy on a node (docs/reference/redist.md, "Single copy on a node"): what a cross-memory
# read costs here (malleable-redist-bench cma: process_vm_readv against memcpy and against pack +
# unpack through a staging area, per piece size), and redist's default (single_copy Auto:
# a transfer within the node read in one copy when its pieces average 1 MiB, else through
# the node window) beside each transport forced for every transfer within the node
# ("window": single_copy Off; "single-copy": On) and COSTA's native transform on cases of
# the shapes suite, under both Open MPI shared-memory settings (vader's CMA single copy,
# Open MPI's default, and none). The "##   window" and "##   single-copy" lines give
# each variant's total and phases; the case line's redist_s is the default.
# Output: docs/data/single_copy.txt (or $OUT). Needs a build (scripts/setup.sh); COSTA
# optional: --costa DIR as in redist.sh shapes.
#   scripts/bench/redist.sh single-copy [--costa DIR] [--cases "0 1 5 7 8 9 14"] [--reps 5]
case_single_copy() {
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT:-$here/docs/data/single_copy.txt}
costa="" cases="0 1 2 3 4 5 6 7 8 9 10 14" reps=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "redist.sh single-copy: unknown argument $1" >&2; exit 2 ;;
  esac
done
bench=$build/redist/malleable-redist-bench
[[ -x $bench ]] || { echo "redist.sh single-copy: build first (scripts/setup.sh)" >&2; exit 2; }
costa_env
mkdir -p "$(dirname "$out")"
{
  echo "# scripts/bench/redist.sh single-copy on $(hostname), $(env -u OMP_NUM_THREADS nproc) cpus, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# load: $(uptime | sed 's/.*load average: //')"
  "$bench" cma 128 5
  for sc in cma none; do
    for k in $cases; do
      np=$("$bench" redist --suite --list | awk -v k="$k" '$1 == k { print $2 }')
      echo "## vader single copy: $sc; case $k; load $(uptime | sed 's/.*load average: //')"
      OMPI_MCA_btl_vader_single_copy_mechanism=$sc timeout 900 mpiexec --bind-to none -n "$np" "$bench" redist --suite --case "$k" \
        --reps "$reps" --variants window,single-copy "${native[@]}" 2>&1 | grep -E '^"|^##   (window|single-copy|floor)' || echo "case $k failed"
    done
  done
} | tee "$out"
}

#@case between-jobs
# Between jobs on one node (docs/measurements/results.md, "Between jobs on one node"): after
# MPI_Comm_spawn + merge, how fast an original process talks to a newcomer compared with
# another original, under each Open MPI setting tried. spawn_pingpong in probes.c (compiled here with
# mpicc into a scratch directory) measures 8 B latency and 1-8 MiB bandwidth for both pairs;
# the settings run round robin, `--rounds` times, so every setting sees the same load.
# Settings:
#   ob1        Open MPI's default (ob1 PML: vader shared memory within a job, TCP otherwise)
#   ob1-frag   ob1 with TCP fragments of 1 MiB and a 4 MiB pipeline (btl_tcp_max_send_size,
#              btl_tcp_rdma_pipeline_send_length, btl_tcp_rdma_pipeline_frag_size)
#   ob1-links2 ob1 with two TCP connections per pair (btl_tcp_links 2)
#   ucx        the UCX PML (pml ucx, pml_ucx_tls any, pml_ucx_devices any: Open MPI 4.1.4
#              declines UCX without those when it sees no InfiniBand device), UCX's own
#              transport choice
# Then redist's `redistribute` between jobs (malleable-redist-bench between-jobs, redist/bench/between_jobs_redist.cpp, when
# built): N x N, 1x2 -> 2x2 onto 2 spawned processes against 4 processes of one job, per
# transport (message, node window, single copy, auto), `--rounds` times round robin:
# docs/data/between_jobs/redistribute.txt.
# Output: docs/data/between_jobs/pingpong.txt (every round's lines, prefixed by setting and
# round) and a summary (median over rounds; bandwidth in GB/s, latency in us) on stdout and
# in docs/data/between_jobs/summary.txt.
#   scripts/bench/redist.sh between-jobs [--rounds R] [--reps K] [--n N] [--out DIR] [--summary-only]
# --summary-only: no runs, the summary of the files already in DIR.
case_between_jobs() {
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$here/docs/data/between_jobs rounds=5 reps=20 n=3200 only=0
build=${MALLEABLE_BUILD_DIR:-$here/build}
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --summary-only) only=1; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "redist.sh between-jobs: unknown argument $1" >&2; exit 2 ;;
  esac
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mpicc -O2 -Wall -Wextra -DPROBE_SPAWN_PINGPONG "$here/scripts/bench/probes.c" -o "$scratch/spawn_pingpong"
# PMIX_MCA_gds=hash as the library sets it before MPI_Init (docs/reference/blacs-dyn.md): without it a
# spawn of the raw programs hung in PMIx_Init / PMIx_Lookup here.
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1
declare -A mca=(
  [ob1]=""
  [ob1-frag]="--mca btl_tcp_max_send_size 1048576 --mca btl_tcp_rdma_pipeline_send_length 1048576 --mca btl_tcp_rdma_pipeline_frag_size 4194304"
  [ob1-links2]="--mca btl_tcp_links 2"
  [ucx]="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
)
settings="ob1 ob1-frag ob1-links2 ucx"
mkdir -p "$out"
raw=$out/pingpong.txt
bench=$build/redist/malleable-redist-bench
red=$out/redistribute.txt
if ((!only)); then
{
  echo "# scripts/bench/redist.sh between-jobs on $(hostname), $(env -u OMP_NUM_THREADS nproc) cpus, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown); $(mpiexec --version | head -1)"
  echo "# rounds $rounds, $reps round trips per batch (8 B: 20x), best batch of 5; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# setting round pair bytes latency_us bandwidth_GBps"
} >"$raw"
cd "$scratch"
for r in $(seq 1 "$rounds"); do
  for s in $settings; do
    # shellcheck disable=SC2086
    if ! timeout 120 mpiexec --oversubscribe --bind-to none ${mca[$s]} -n 2 ./spawn_pingpong "$reps" >"$scratch/run.txt" 2>&1; then
      echo "# $s round $r failed: $(tail -1 "$scratch/run.txt")" >>"$raw"
      continue
    fi
    grep -E '^original' "$scratch/run.txt" | sed "s/^/$s $r /" >>"$raw"
  done
done
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw"
if [[ -x $bench ]]; then
  echo "# malleable-redist-bench between-jobs N=$n nb=64, $rounds rounds (best of 3 per round); load at start: $(cut -d' ' -f1-3 /proc/loadavg)" >"$red"
  for r in $(seq 1 "$rounds"); do
    timeout 300 mpiexec --oversubscribe --bind-to none -n 2 "$bench" between-jobs --spawn "$n" 64 3 2>&1 | sed "s/^/$r /" >>"$red" || echo "# round $r between jobs failed" >>"$red"
    timeout 300 mpiexec --oversubscribe --bind-to none -n 4 "$bench" between-jobs --same-job "$n" 64 3 2>&1 | sed "s/^/$r /" >>"$red" || echo "# round $r same job failed" >>"$red"
  done
  echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$red"
else
  echo "redist.sh between-jobs: $bench not built: redistribute between jobs skipped"
fi
fi
python3 - "$raw" <<'PY' | tee "$out/summary.txt"
import collections, statistics, sys
rows = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    s, r, pair, b, lat, bw = line.split()
    key = (s, pair, int(b))
    if key not in rows:
        order.append(key)
    rows[key].append(float(lat) if int(b) <= 8 else float(bw))
print("# median over rounds (min-max); 8 B: one-way latency in us, else bandwidth in GB/s (2 x bytes per round trip);")
print("# newcomer/orig: of the medians, then of the best rounds (least latency, most bandwidth)")
print(f"{'setting':11s} {'bytes':>8s} {'orig-orig':>20s} {'orig-newcomer':>20s} {'median':>8s} {'best':>7s}")
for s in dict.fromkeys(k[0] for k in order):
    for b in sorted({k[2] for k in order if k[0] == s}):
        oo, on = rows.get((s, "original-original", b)), rows.get((s, "original-newcomer", b))
        if not oo or not on:
            continue
        mo, mn = statistics.median(oo), statistics.median(on)
        cell = lambda v, m: f"{m:.2f} ({min(v):.2f}-{max(v):.2f})"
        best = (min(on) / min(oo)) if b <= 8 else (max(on) / max(oo))
        print(f"{s:11s} {b:8d} {cell(oo, mo):>20s} {cell(on, mn):>20s} {mn / mo:7.2f}x {best:6.2f}x")
PY
[[ -f $red ]] || exit 0
python3 - "$red" <<'PY' | tee -a "$out/summary.txt"
import collections, statistics, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 7 and not f[0].startswith("#") and not f[1].startswith("#"):
        t[(f[1], f[2])].append(float(f[3]))
print("# redistribute 1x2 -> 2x2 onto 2 spawned processes (between jobs) or within one job: median over rounds of the best of 3, ms (min-max)")
print(f"{'transport':12s} {'same job':>22s} {'between jobs':>22s} {'between/same':>13s}")
for tr in ("message", "window", "single-copy", "auto", "other-jobs"):
    s, b = t.get(("same-job", tr)), t.get(("between-jobs", tr))
    if s and b:
        ms, mb = statistics.median(s), statistics.median(b)
        cell = lambda v, m: f"{m * 1e3:.1f} ({min(v) * 1e3:.1f}-{max(v) * 1e3:.1f})"
        print(f"{tr:12s} {cell(s, ms):>22s} {cell(b, mb):>22s} {mb / ms:12.2f}x")
PY
}

#@case cost-model-error
# The redistribution cost model's prediction error on this machine (the target:
# median |predicted - measured| / measured <= 15% over the redist case's grid changes).
#
# Each run calibrates and then compares, in one MPI job (malleable-redist-bench cost --calibrate):
# malleable-calibrate's measurements (ping-pong, memcpy, redistributions at N = 3000, 5000)
# are fitted, and the benchmark's cases (N = 4000, 8000 by default: held out, never fitted)
# are predicted with the fitted parameters and measured; calibration and benchmark
# redistributions run in the same interleaved rounds, each measured as the median of REPS
# runs; by default fitted and compared twice from the same runs, on their median and on
# their minimum (the fastest run: the time without the other jobs' load bursts). Writes
# docs/data/cost_model/run<i>.json and run<i>.min.json (every case, every run time, the
# fitted parameters and the calibration record), cost_model_run<i>.json (the median fit's
# parameters as malleable-calibrate writes them), cases.csv / runs.csv (median),
# cases.min.csv / runs.min.csv, run<i>.log and section.md (markdown tables).
#
#   scripts/bench/redist.sh cost-model-error                 # 3 runs, ~3-6 min here
#   RUNS=1 REPS=7 NP=25 SIZES=4000,8000 STATISTIC=median BUILD_DIR=build OUT_DIR=... scripts/bench/redist.sh cost-model-error
case_cost_model_error() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
[[ $build = /* ]] || build=$here/$build
out=${OUT_DIR:-$here/docs/data/cost_model}
runs=${RUNS:-3}
reps=${REPS:-7}
np=${NP:-25}
sizes=${SIZES:-4000,8000}
statistic=${STATISTIC:-both}  # median, min (the fastest of the REPS runs) or both: two fits of the same runs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target malleable_redist_bench calibrate_cost >/dev/null
bench=$(find "$build" -name malleable-redist-bench -type f -perm -u+x | head -n 1)
[[ -n $bench ]] || { echo "redist.sh cost-model-error: malleable-redist-bench not built in $build" >&2; exit 1; }

mkdir -p "$out"
rm -f "$out"/run*.json "$out"/run*.log "$out"/cost_model_run*.json "$out"/*.csv
files=()
for ((i = 1; i <= runs; i++)); do
  echo "== run $i of $runs ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
  mpiexec --oversubscribe --bind-to none -n "$np" "$bench" cost --calibrate --n "$sizes" --reps "$reps" --statistic "$statistic" \
    --json "$out/run$i.json" --save "$out/cost_model_run$i.json" | tee "$out/run$i.log" | grep '^#' | tail -n 3
  files+=("$out/run$i.json")
done
cat >"$out/section.md" <<'HEAD'
## Predicting redistribution time: the calibrated cost model (SUIF-Adapt)

A redistribution's time predicted from redist's plan (messages, bytes per process within and between nodes, schedule steps) with per-event costs that `malleable-calibrate` measures once per machine (`redist/cost_model.hpp`, docs/reference/redist.md "Predicting redistribution time"), against the measured time, on the redistribution benchmark's cases, which the calibration never fits on (held out). Generated by `scripts/bench/redist.sh cost-model-error` (data: `docs/data/cost_model/`).
HEAD
echo >>"$out/section.md"
for stat in median min; do
  [[ $statistic == both || $statistic == "$stat" ]] || continue
  sfx=; [[ $stat == median ]] || sfx=.$stat
  jsons=()
  for f in "${files[@]}"; do jsons+=("${f%.json}$sfx.json"); done
  if [[ $statistic != both || $stat == median ]]; then  # the first statistic is in run<i>.json
    jsons=("${files[@]}")
  fi
  python3 "$here/redist/bench/summarize_cost.py" --csv-dir "$out" --tag "$sfx" "${jsons[@]}" >>"$out/section.md"
  echo >>"$out/section.md"
done
{
  echo "Open MPI $(ompi_info --parsable 2>/dev/null | sed -n 's/^ompi:version:full://p' | head -n 1), $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')."
} >>"$out/section.md"
echo "wrote $out/section.md"
sed -n '1,12p' "$out/section.md"
# the runs go into docs/data/cost_model/runs.tar.xz (scripts/bench/data_archive.py)
python3 "$here/scripts/bench/data_archive.py" pack "$out" >/dev/null
}

#@case plan-scale
# One rank's redist planning time and heap for P = 4 .. 66,049 (docs/measurements/scale.md's table):
# builds the benchmark in ${BUILD_DIR:-build} and writes its output to docs/data/plan-scale.txt;
# then the coprime blocks-of-1 case at 16,641 alone with more repetitions (the target's
# hardest case, 33,024 transfers a rank) to docs/data/plan-scale-coprime1.txt.
case_plan_scale() {
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
cmake --build "$build" -j "${JOBS:-2}" --target redist_plan_scale_bench >/dev/null
mkdir -p docs/data
"$build/redist/redist_plan_scale_bench" --n "${N:-100000}" --max-p 65536 --budget-s "${BUDGET_S:-0.05}" "$@" |
  tee docs/data/plan-scale.txt
"$build/redist/redist_plan_scale_bench" --n "${N:-100000}" --family coprime --blocks 1 --min-p 16000 --max-p 17000 \
  --budget-s "${FOCUS_BUDGET_S:-2}" | tee docs/data/plan-scale-coprime1.txt
}

#@case scale-sim
# redist's real plan + execute path (redist_sim, SimGrid SMPI) at 256-4,225
# simulated processes on the fat trees of redist/sim/platforms/ (non-blocking and 2:1
# uplinks), default and caterpillar schedules, matrices folded (--shared, timing only).
# Per run it records the simulated time of redistribute(), the busiest node link's bound
# (inter-node bytes through the busiest node link / 100 Gbit/s, from the rank-local plans,
# as redist::node_traffic computes it for the emulated-cluster bench), the busiest leaf
# switch's uplink bound, and the simulation's own cost (wall, CPU, peak memory). Runs one
# simulation at a time. Output: $OUT/results.tsv (one line per run, appended; a rerun of a
# run replaces its line), $OUT/raw/*.log, $OUT/results.md (tables), and
# $IMG (default docs/data/scale_sim/scale_sim.png: time and bounds against P). docs/measurements/scale.md, "Simulated at 256-4,096 processes" explains.
#
#   scripts/bench/redist.sh scale-sim [case-name-regex]      # default: every case
#   env: SIM=build/redist-sim/redist_sim  N=16384 (cases without their own N)  OUT=docs/data/scale_sim
#        PLATFORMS="fattree fattree-2to1"  SCHEDULES="default caterpillar"
#        SIMCFG (SimGrid settings, default below)  VARIANT (its label in results.tsv, default "notest")
#        MAXOUT (ExecOptions::max_outstanding; empty: the library's default, 64)
#        FORCE_N (run every selected case at this N, e.g. for the cost comparison)
#        REPORT_ONLY=1 (rebuild tables and plot from results.tsv)
# SIMCFG's default sets smpi/test:0: SMPI (3.32) injects a sleep of smpi/test (1e-4 s) into
# every failed MPI_Test, growing with the count of failed tests (smpi/grow-injected-times),
# and its MPI_Waitsome tests requests that way; that simulated polling cost, not the
# network, made the all-at-once schedule 44x the bound at 289 ranks (docs/measurements/scale.md).
# maxmin/precision:1e-4: SimGrid 3.32's solver aborts ("Cannot saturate more a constraint
# that has no active element") at its default 1e-5 with thousands of flows of 32 KiB.
# smpi/privatization:no: redist keeps no mutable globals that matter; less CPU.
# smpi/allreduce:rdb: SMPI's default MPI_Allreduce is a linear reduce + broadcast whose
# root costs the simulator more than P^2 (minutes of CPU per call at 4,225 ranks);
# recursive doubling is what MPICH uses for small allreduces.
case_scale_sim() {
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIM=${SIM:-$here/build/redist-sim/redist_sim}
N=${N:-16384}
OUT=${OUT:-$here/docs/data/scale_sim}
IMG=${IMG:-$here/docs/data/scale_sim/scale_sim.png}
SIMCFG=${SIMCFG:-"--cfg=smpi/test:0 --cfg=maxmin/precision:1e-4 --cfg=smpi/privatization:no --cfg=smpi/allreduce:rdb"}
VARIANT=${VARIANT:-notest}
MAXOUT=${MAXOUT:-}
PLATFORMS=${PLATFORMS:-"fattree fattree-2to1"}
SCHEDULES=${SCHEDULES:-"default caterpillar"}
pdir=$here/redist/sim/platforms
filter=${1:-.}

# name  from  to  nb_a  nb_b  [N]  (P = the larger grid; cheapest first; N defaults to $N)
# The coprime and block-size cases run at N = 8,192: at 16,384 a coprime step has 65,536
# messages (one per block: the grids share no divisor), more than this machine simulates
# in the session (docs/measurements/scale.md, "Cost of the simulation").
cases=(
  "exp256      8x8   16x16 64 64"
  "shrink256   16x16 8x8   64 64"
  "coprime289  16x16 17x17 64 64  8192"
  "exp1024     16x16 32x32 64 64"
  "nb1024      32x32 32x32 64 100 8192"
  "coprime1089 32x32 33x33 64 64  8192"
  "wide2048    32x32 64x32 64 64"
  "exp4096     32x32 64x64 64 64"
  "shrink4096  64x64 32x32 64 64"
  "nb4096      64x64 64x64 64 100 8192"
  "coprime4096 45x45 64x64 64 64  8192"
  "coprime4225 64x64 65x65 64 64  8192"
)

mkdir -p "$OUT/raw" "$(dirname "$IMG")"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tsv=$OUT/results.tsv
header="case	P	from	to	nb_a	nb_b	N	schedule	platform	sim_time_s	node_bound_s	ratio	uplink_bound_s	ratio_max_bound	max_partners	wall_s	cpu_s	rss_kb	anon_peak_kb	load1	variant	max_outstanding	messages"
[[ -f $tsv ]] || echo "$header" >"$tsv"

# Largest Anonymous (private, really allocated) memory of process $1 while it lives, in kB.
# time -v's RSS counts every mapping of a folded (shared) page, so it overstates.
sample_anon() {
  local pid=$1 peak=0 v
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^Anonymous:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null)
    [[ -n $v && $v -gt $peak ]] && peak=$v
    sleep 1
  done
  echo "$peak"
}

run_one() {  # name from to nb_a nb_b schedule platform N
  local name=$1 from=$2 to=$3 nba=$4 nbb=$5 sched=$6 plat=$7 N=$8
  local pa=$((${from%x*} * ${from#*x})) pb=$((${to%x*} * ${to#*x}))
  local np=$((pa > pb ? pa : pb))
  local uplink=1600
  [[ $plat == fattree-2to1 ]] && uplink=800
  local log=$OUT/raw/$name.$sched.$plat.$VARIANT.log
  local wopt=()
  [[ -n $MAXOUT ]] && wopt=(--max-outstanding "$MAXOUT")
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "== $name $from nb $nba -> $to nb $nbb, P=$np, N=$N, $sched, $plat, $VARIANT ${MAXOUT:+window $MAXOUT }(load $load) $(date -u +%H:%M:%S)"
  # smpirun leaves its unrolled hostfile (smpitmp-*) in the current directory on failure.
  (cd "$scratch" && exec /usr/bin/time -v -o "$log.time" smpirun -np "$np" -platform "$pdir/$plat.xml" -hostfile "$pdir/hostfile.txt" \
    --cfg=smpi/simulate-computation:no --cfg=contexts/stack-size:256 $SIMCFG --log=root.thresh:warning \
    "$SIM" --from "$from" --to "$to" --n "$N" --nb-a "$nba" --nb-b "$nbb" --schedule "$sched" --shared \
    --leaf-uplink-gbit "$uplink" "${wopt[@]}") >"$log" 2>&1 &
  local tpid=$! child="" anon=0  # the subshell exec'd time: $! is time's pid
  local srun=""
  for _ in $(seq 40); do  # the simulator: smpimain, child of smpirun, child of time
    [[ -z $srun ]] && srun=$(pgrep -P "$tpid" | head -1)
    [[ -n $srun ]] && child=$(pgrep -n -P "$srun" smpimain)
    [[ -n $child ]] && break
    sleep 0.25
  done
  [[ -n $child ]] && anon=$(sample_anon "$child")
  wait "$tpid"
  local rc=$?
  local res wall cpu rss
  res=$(grep '^RESULT' "$log")
  if [[ $rc -ne 0 || -z $res ]]; then
    echo "   FAILED (exit $rc), see $log"
    tail -5 "$log"
    return 1
  fi
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log.time")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$log.time")
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log.time")
  local t b r ub p
  t=$(sed -E 's/.*time_s=([^ ]+).*/\1/' <<<"$res")
  b=$(sed -E 's/.*[^_]bound_s=([^ ]+).*/\1/' <<<"$res")
  r=$(sed -E 's/.*ratio=([^ ]+).*/\1/' <<<"$res")
  ub=$(sed -E 's/.*uplink_bound_s=([^ ]+).*/\1/' <<<"$res")
  p=$(sed -E 's/.*partners=([^ ]+).*/\1/' <<<"$res")
  local mo msgs
  mo=$(sed -E 's/.*max_outstanding=([^ ]+).*/\1/' <<<"$res")
  msgs=$(sed -E 's/.*messages=([^ ]+).*/\1/' <<<"$res")
  local rm
  rm=$(awk -v t="$t" -v b="$b" -v u="$ub" 'BEGIN {m = b > u ? b : u; printf "%.3f", t / m}')
  awk -F'\t' -v n="$name" -v N="$N" -v s="$sched" -v p="$plat" -v v="$VARIANT" -v m="$mo" \
    '!($1 == n && $7 == N && $8 == s && $9 == p && $21 == v && $22 == m)' "$tsv" >"$tsv.tmp"
  mv "$tsv.tmp" "$tsv"
  printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$np" "$from" "$to" \
    "$nba" "$nbb" "$N" "$sched" "$plat" "$t" "$b" "$r" "$ub" "$rm" "$p" "$wall" "$cpu" "$rss" "$anon" "$load" "$VARIANT" "$mo" "$msgs" >>"$tsv"
  echo "   simulated $t s, node-link bound $b s (x$r), uplink bound $ub s, partners $p; wall ${wall}s cpu ${cpu}s anon ${anon} kB"
}

if [[ -z ${REPORT_ONLY:-} ]]; then
  if ! command -v smpirun >/dev/null || [[ ! -x $SIM ]]; then
    echo "scale_sim: needs smpirun (libsimgrid-dev) and $SIM (cmake --build build --target redist_sim)" >&2
    exit 1
  fi
  echo "scale_sim: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
  for c in "${cases[@]}"; do
    read -r name from to nba nbb cn <<<"$c"
    [[ $name =~ $filter ]] || continue
    for plat in $PLATFORMS; do
      for sched in $SCHEDULES; do
        run_one "$name" "$from" "$to" "$nba" "$nbb" "$sched" "$plat" "${FORCE_N:-${cn:-$N}}"
      done
    done
  done
fi

# Tables (one per platform and variant: default beside caterpillar) and the plot.
python3 - "$tsv" "$OUT/results.md" "$IMG" <<'EOF'
import csv, subprocess, sys
tsv, md, img = sys.argv[1:4]
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
for r in rows:
    r["variant"] = r.get("variant") or "smpi-test-sleep"
    r["max_outstanding"] = r.get("max_outstanding") or "64"
key = lambda r: (r["platform"], r["variant"], r["case"], r["N"], r["max_outstanding"])
by = {}
for r in rows:
    by.setdefault(key(r), {})[r["schedule"]] = r
first = lambda k: by[k][next(iter(by[k]))]
order = sorted(by, key=lambda k: (k[0], k[1] != "notest", k[1], int(first(k)["P"]), k[2], int(k[3]), -int(k[4])))
ms = lambda x: f"{float(x) * 1e3:.2f} ms"
out = []
for grp in dict.fromkeys((k[0], k[1]) for k in order):
    out.append(f"### {grp[0]}, {grp[1]}\n")
    out.append("| case | P | grids (nb) | N | partners | messages | window | node-link bound | uplink bound | default | ratio | caterpillar | ratio | default / cat. | CPU s, anon. memory (def. / cat.) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in order:
        if (k[0], k[1]) != grp:
            continue
        d, c = by[k].get("default"), by[k].get("caterpillar")
        a = d or c
        cell = lambda r: (ms(r["sim_time_s"]), f"{float(r['ratio']):.2f}") if r else ("not run", "")
        dt, dr = cell(d)
        ct, cr = cell(c)
        rel = f"{float(d['sim_time_s']) / float(c['sim_time_s']):.2f}" if d and c else ""
        cost = " / ".join(f"{float(r['cpu_s']):.0f}, {int(r['anon_peak_kb']) / 1048576:.1f} GiB" if r else "-" for r in (d, c))
        msgs = a.get("messages") or ""
        out.append(f"| {k[2]} | {a['P']} | {a['from']} ({a['nb_a']}) → {a['to']} ({a['nb_b']}) | {a['N']} | "
                   f"{a['max_partners']} | {msgs} | {k[4]} | {ms(a['node_bound_s'])} | {ms(a['uplink_bound_s'])} | {dt} | {dr} | {ct} | {cr} | {rel} | {cost} |")
    out.append("")
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))

# Plot: on the non-blocking tree, variant notest, window 64: time of redistribute() against
# P per kind of case (expansion, shrink, coprime, block size), default and caterpillar,
# with the node-link bound (dashed) of the same runs.
plot_rows = [r for r in rows if r["platform"] == "fattree" and r["variant"] == "notest" and r["max_outstanding"] == "64"]
series = {}
for r in plot_rows:
    kind = "".join(ch for ch in r["case"] if not ch.isdigit())
    lab = f"{kind} (N {r['N']})"
    series.setdefault((lab, r["schedule"]), []).append((int(r["P"]), float(r["sim_time_s"]) * 1e3))
    series.setdefault((lab, "node-link bound"), []).append((int(r["P"]), float(r["node_bound_s"]) * 1e3))
datfile = img.rsplit(".", 1)[0] + ".dat"
plots, blocks = [], []
colours = {}
for i, (k, pts) in enumerate(sorted(series.items())):
    pts = sorted(set(pts))
    blocks.append(f"# {k[0]}, {k[1]}: P time_ms\n" + "\n".join(f"{p} {t}" for p, t in pts))
    c = colours.setdefault(k[0], len(colours) + 1)
    style = {"node-link bound": "linespoints dt 2 pt 2 ps 0.8 lw 1", "default": "linespoints pt 7 ps 0.9 lw 2",
             "caterpillar": "linespoints pt 4 ps 0.9 lw 1 dt 3"}[k[1]]
    plots.append(f"'{datfile}' index {i} with {style} lc {c} title '{k[0]}, {k[1]}'")
open(datfile, "w").write("\n\n\n".join(blocks) + "\n")
if plots:
    gp = f"""set terminal pngcairo size 1100,640 font 'DejaVu Sans,9' noenhanced
set output '{img}'
set title 'redist on a simulated fat tree (SimGrid SMPI 3.32, smpi/test:0): time of redistribute() against P, with the busiest node-link bound'
set xlabel 'processes P (the larger grid)'
set ylabel 'time (ms)'
set logscale x 2
set logscale y
set xrange [200:5500]
set yrange [0.05:100]
# coprime grids sit at 289, 1089 and 4225 processes, too close to 256, 1024 and 4096 for
# labels of their own: the points show them, the title says so
set xtics (256, 512, 1024, 2048, 4096)
set label 1 'coprime grids: P = 289, 1089, 4225 (just right of 256, 1024, 4096)' at graph 0.02, graph 0.04
set key outside right
set grid
plot {", ".join(plots)}
"""
    subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    print(f"plot: {img}")
EOF
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$OUT"
}

#@case bound
# Every part of a resize against its bound on this machine (docs/measurements/
# redist.md, "Against the machine's bound"), all in one run on the same cores:
#   1. copy: node_copy in probes.c (a memcpy per rank, all ranks at once, STREAM copy) at 256 MiB;
#   2. start: a bare mpiexec of the same RANKS processes to MPI_Init + barrier (node_copy
#      with 1 MiB, 1 repetition; wall clock of mpiexec, median of 5), a bare
#      MPI_Comm_spawn + merge of 2 processes (spawn_pingpong's (probes.c) spawn mode) and a bare
#      join of 2 processes (bare_join in probes.c through an ompi-server: a separate mpiexec's launch
#      to the merged world): each the JOB'S FIRST spawn or join, median over 5 jobs, as a
#      resize is its job's first (the warm repetitions after it, which a first join is
#      slower than, printed beside; scripts/bench/redist.sh start-split splits the difference);
#   3. malleable-redist-bench bound: redist, PDGEMR2D (and COSTA with --costa-native or
#      MALLEABLE_COSTA_NATIVE, run with OMP_NUM_THREADS=1) against the copy/shared-memory
#      bound of the same redistribution, 1 MiB to --max-mib MiB per rank (capped so that
#      the ranks' 3 arrays fit in half the memory available);
#   4. (not with --skip-sweep) one resize of the PDGEMM driver (N 2048, 1x2 -> 2x2 by spawn and back) with the bench's
#      rates at 16 MiB per rank (a matrix's share on 1x2) and the bare spawn in the environment, and once with the
#      report's own probe: the JSON's "bound" of each resize; then the same resize by a
#      join (malleable-run --job-dir) with the probe and the bare join.
# The load average is written beside every figure: on a shared machine the numbers are noisy.
# The sweep's repetitions are interleaved (each runs every arm once: copy, shm, PDGEMR2D,
# redist, COSTA), best and median of each reported; each row carries its load1 before and
# after and the runnable processes besides the ranks (/proc/stat), marked quiet or LOADED.
# meta.txt states the machine, the commit and the load before and after the sweep; bound.md
# is the table (scripts/bench/bound_report.py: fractions of the single-copy bound).
# Usage: redist.sh bound [--build DIR] [--out DIR] [--ranks N] [--max-mib M] [--reps R]
#                       [--costa-native SO] [--skip-sweep | --sweep-only]
#                       [--changes LIST] [--require-quiet] [--wait-quiet S]
# --skip-sweep: the starts and the resizes by the report's probe only (no step 3).
# --sweep-only: step 3 alone.
# --changes LIST: the sweep's grid changes (NB@RxC:NB@RxC, comma-separated; every grid of
#   --ranks processes), default the bench's 2-rank ones, e.g. for 16 ranks
#   64@4x4:64@2x8,64@4x4:100@4x4,64@2x8:100@4x4.
# --require-quiet: refuse to run (exit 3) when the machine is loaded before the sweep (load1
#   above the ranks, or more other runnable processes than the cores leave free); without it
#   a loaded run is marked (meta.txt, bound.md). --wait-quiet S: wait up to S seconds for a
#   quiet machine first (checked every 10 s).
case_bound() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
args="$*"
build=$here/build out='' ranks=2 max_mib=1024 reps=5 costa=${MALLEABLE_COSTA_NATIVE:-} sweep=1 only=0 require=0 wait_s=0
changes_opt=()
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --max-mib) max_mib=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --costa-native) costa=$2; shift 2 ;;
    --skip-sweep) sweep=0; shift ;;
    --sweep-only) only=1; shift ;;
    --changes) changes_opt=(--changes "$2"); shift 2 ;;
    --require-quiet) require=1; shift ;;
    --wait-quiet) wait_s=$2; shift 2 ;;
    *) echo "redist.sh bound: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $ranks =~ ^[1-9][0-9]{0,2}$ && $max_mib =~ ^[1-9][0-9]*$ && $reps =~ ^[1-9][0-9]?$ && $wait_s =~ ^[0-9]+$ ]] ||
  { echo "redist.sh bound: --ranks, --max-mib, --reps and --wait-quiet are positive numbers" >&2; exit 2; }
((sweep || !only)) || { echo "redist.sh bound: --skip-sweep and --sweep-only exclude each other" >&2; exit 2; }
quiet_now() { python3 "$here/scripts/bench/bound_report.py" load "$ranks"; }
# The load before anything of ours runs: refuse (--require-quiet) or mark.
for ((waited = 0; ; waited += 10)); do
  before=$(quiet_now)
  [[ $before == *quiet || $waited -ge $wait_s ]] && break
  sleep 10
done
if [[ $before == *LOADED && $require == 1 ]]; then
  echo "redist.sh bound: the machine is loaded ($before; ranks $ranks): refused (--require-quiet)" >&2
  exit 3
fi
bench=$build/redist/malleable-redist-bench prog=$build/apps/pdgemm_resizable
[[ -x $bench && -x $prog ]] || { echo "redist.sh bound: build malleable_redist_bench and pdgemm_resizable first" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 RESIZE_HISTORY=off PMIX_MCA_gds=hash
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${out:-$work/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
load() { cut -d' ' -f1 /proc/loadavg; }
mpirun_n() { mpiexec --oversubscribe -n "$@"; }

# The sizes: 1 MiB .. max, while RANKS x 3 arrays x size fit in half of MemAvailable.
avail_mib=$(awk '/MemAvailable/ {print int($2 / 1024)}' /proc/meminfo)
sizes=
for s in 1 4 16 64 256 1024 4096; do
  ((s <= max_mib && ranks * 3 * s <= avail_mib / 2)) && sizes+=${sizes:+,}$s
done
{
  echo "# scripts/bench/redist.sh bound $args (--ranks $ranks --max-mib $max_mib --reps $reps), $(date -u +%FT%TZ)"
  echo "# $(getconf _NPROCESSORS_ONLN) cores ($(lscpu | sed -n 's/^Model name: *//p')), MemAvailable $avail_mib MiB, sizes $sizes MiB per rank"
  echo "# $(mpiexec --version | head -1)"
  echo "# machine: $(hostname), $(getconf _NPROCESSORS_ONLN) cores; commit $(git -C "$here" describe --always --dirty --abbrev=8 2>/dev/null || echo unknown)"
  echo "# before: $before"
} >"$out/meta.txt"

if ((only)); then
  mpirun_n "$ranks" "$bench" bound --mib "$sizes" --max-mib "$max_mib" --reps "$reps" "${changes_opt[@]}" \
    ${costa:+--costa-native "$costa"} --json "$out/bound.json" | tee "$out/bound.txt"
  echo "# after: $(quiet_now)" >>"$out/meta.txt"
  python3 "$here/scripts/bench/bound_report.py" table "$out" >"$out/bound.md"
  echo "redist.sh bound: wrote $out"
  exit 0
fi
# The probes (scripts/bench/probes.c) the starts need; step 3 alone needs none (nor mpicc).
mpicc -O2 -DPROBE_NODE_COPY "$here/scripts/bench/probes.c" -o "$work/node_copy"
mpicc -O2 -DPROBE_SPAWN_PINGPONG "$here/scripts/bench/probes.c" -o "$work/spawn_pingpong"
mpicc -O2 -DPROBE_BARE_JOIN "$here/scripts/bench/probes.c" -o "$work/bare_join"

# 1. The node's copy rate, STREAM copy on every rank (the bench measures its own per size too).
l=$(load)
best=$(mpirun_n "$ranks" "$work/node_copy" 256 10 | grep '^best')
echo "node_copy	$best	load1 $l" | tee "$out/starts.txt"

# 2. Bare starts.
times=()
for i in 1 2 3 4 5 6; do
  t0=$(date +%s.%N)
  mpirun_n "$ranks" "$work/node_copy" 1 1 >/dev/null
  t1=$(date +%s.%N)
  ((i > 1)) && times+=("$(echo "$t1 - $t0" | bc -l)")  # the first warms the file cache
done
l=$(load)
bare_mpiexec=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)
echo "bare_mpiexec_s	$bare_mpiexec	(median of 5, mpiexec -n $ranks to MPI_Init + barrier + exit; all: ${times[*]})	load1 $l" |
  tee -a "$out/starts.txt"
l=$(load)
firsts=() warms=() hung=0
# A job's first spawn (the resize's), then 3 warm ones; 5 jobs. Open MPI 4.1.4's spawn hangs
# now and then (a rank spinning in the merge): such a job is killed after 120 s, counted, and
# another started in its place (at most 3 more).
for ((i = 0; ${#firsts[@]} < 5 && i < 8; ++i)); do
  if ! spawn_line=$(timeout 120 mpiexec --oversubscribe -n "$ranks" "$work/spawn_pingpong" spawn 2 3 | grep raw_spawn_merge_ms); then
    hung=$((hung + 1))
    continue
  fi
  firsts+=("$(awk '{print $4 / 1000}' <<<"$spawn_line")") warms+=("$(awk '{print $3 / 1000}' <<<"$spawn_line")")
done
((${#firsts[@]})) || { echo "redist.sh bound: every bare spawn failed or timed out ($hung)" >&2; exit 4; }
bare_spawn_s=$(printf '%s\n' "${firsts[@]}" | sort -g | sed -n "$(((${#firsts[@]} + 1) / 2))p")
echo "bare_spawn_s	$bare_spawn_s	(MPI_Comm_spawn of 2 + merge, the job's first spawn, median of ${#firsts[@]} jobs, $hung more failed or killed after 120 s; all: ${firsts[*]}; each job's warm median after it: ${warms[*]})	load1 $l" |
  tee -a "$out/starts.txt"
rm -f "$work/uri"
ompi-server --no-daemonize --report-uri "$work/uri" </dev/null &
server=$!
for ((i = 0; i < 100; ++i)); do [[ -s $work/uri ]] && break; sleep 0.1; done
l=$(load)
joins=() warms=()
for j in 1 2 3 4 5; do  # a job's first join (the resize's), then 2 warm ones
  rm -f "$work/join.out"
  mpirun_n 2 --ompi-server "file:$work/uri" "$work/bare_join" job "$work/port$j" 3 >"$work/join.out" &
  job=$!
  for r in 1 2 3; do
    t0=$(date +%s.%N)
    timeout 120 mpiexec --oversubscribe --ompi-server "file:$work/uri" -n 2 "$work/bare_join" launch "$work/port$j.$r"
    for ((i = 0; i < 1000; ++i)); do grep -q "^merged $r " "$work/join.out" && break; sleep 0.01; done
    t1=$(awk -v r="$r" '$1 == "merged" && $2 == r {print $3}' "$work/join.out")
    if ((r == 1)); then joins+=("$(echo "$t1 - $t0" | bc -l)"); else warms+=("$(echo "$t1 - $t0" | bc -l)"); fi
  done
  wait "$job"
done
kill "$server" 2>/dev/null || true
bare_join_s=$(printf '%s\n' "${joins[@]}" | sort -g | sed -n 3p)
echo "bare_join_s	$bare_join_s	(a separate mpiexec -n 2's launch to the merged world through ompi-server, the job's first join, median of 5 jobs; all: ${joins[*]}; the warm joins after them: ${warms[*]})	load1 $l" |
  tee -a "$out/starts.txt"

# 3. The bound sweep.
arms=(probe)
if ((sweep)); then
arms=(given probe)
costa_opt=()
[[ -n $costa ]] && costa_opt=(--costa-native "$costa")
mpirun_n "$ranks" "$bench" bound --mib "$sizes" --max-mib "$max_mib" --reps "$reps" "${changes_opt[@]}" "${costa_opt[@]}" \
  --json "$out/bound.json" | tee "$out/bound.txt"
echo "# after the sweep: $(quiet_now)" >>"$out/meta.txt"
python3 "$here/scripts/bench/bound_report.py" table "$out" >"$out/bound.md"

# 4. One resize, its report's "bound": with the bench's rates at 16 MiB per rank (the
#    1x2 -> 2x1 change) and the bare spawn, then with the report's own probe.
read -r copy shm < <(python3 - "$out/bound.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["change"] == "64@1x2:64@2x1"]
r = min(rows, key=lambda r: abs(r["mib_per_rank"] - 16))
print(r["copy_Bps"], r["shm_Bps"])
PY
)
fi
for arm in "${arms[@]}" join; do
  env_arm=(MALLEABLE_BARE_SPAWN_S="$bare_spawn_s" MALLEABLE_BARE_JOIN_S="$bare_join_s")
  [[ $arm == given ]] && env_arm+=(MALLEABLE_BOUND_COPY_BPS="$copy" MALLEABLE_BOUND_SHM_BPS="$shm")
  runner=(mpiexec --oversubscribe -n 2)
  [[ $arm == join ]] && runner=("$build/bin/malleable-run" --job-dir "$work/job-dir" -n 2 --)
  l=$(load)
  env "${env_arm[@]}" "${runner[@]}" "$prog" -n 2048 --nb 64 -g 1x2 -i 4 -p scripted \
    -s 2:expand:2x2,3:shrink:1x2 -q --json "$out/resize_$arm.json" >"$work/resize_$arm.log" 2>&1 ||
    { tail -20 "$work/resize_$arm.log" >&2; exit 1; }
  python3 - "$out/resize_$arm.json" "$arm" "$l" <<'PY' | tee -a "$out/resize.txt"
import json, sys
f, arm, load = sys.argv[1:]
def whole(e, b):
    # The resize's whole time against its floor: bare start + hand-over + its move's bound.
    if b["start_over_bare"] is None:
        return f"total {e['t_total_s']:.4f} s"
    floor = b["bare_start_s"] + e["other_phases"]["handover_s"] + b["bound_s"]
    return (f"total {e['t_total_s']:.4f} s = {e['t_total_s'] / floor:.2f}x (bare start + hand-over "
            f"{e['other_phases']['handover_s']:.4f} s + bound)")
for e in json.load(open(f))["resizes"]:
    b = e["bound"]
    frac = "-" if b["fraction_of_bound"] is None else f"{b['fraction_of_bound']:.2f}"
    start = "-" if b["start_over_bare"] is None else f"{b['t_start_s']:.3f} s = {b['start_over_bare']:.2f}x bare {b['bare_start_s']:.3f} s"
    print(f"{arm}\t{e['action']} {e['from']['rows']}x{e['from']['cols']}->{e['to']['rows']}x{e['to']['cols']}\t"
          f"kept {b['bytes_kept'] / 2**20:.1f} MiB\tmoved {b['bytes_moved'] / 2**20:.1f} MiB\t"
          f"t_redist {b['t_redist_s']:.4f} s\t{b['redist_GBps']:.2f} GB/s\tcopy {b['copy_GBps']:.2f} shm {b['shm_GBps']:.2f} GB/s\t"
          f"bound {b['bound_s']:.4f} s\tfraction {frac}\tstart {start}\t{whole(e, b)}\tload1 {load}")
PY
done
echo "redist.sh bound: wrote $out"
}

#@case mapped-bound
# The routes between ranks of one node against the single-copy bound, interleaved in one
# run: the node window (two copies), the kernel's single copy and mapped arrays (one copy in
# user space: docs/reference/mapped-arrays.md): malleable-redist-bench mapped on 2 ranks (one node).
# Usage: redist.sh mapped-bound [--build DIR] [--mib 64,256] [--reps 5] [--changes LIST]
#                               [--resize-ab ROUNDS] --out DIR
# Writes DIR/mapped.txt: the run's date, commit, cores, command and uptime before and after,
# and the table (per change and size the copy rate, the single-copy bound, each route's best
# and median time and their fractions of the bound, whether every B was identical, load1
# before-after and quiet: yes when it stayed within the 2 ranks, else **no**).
# DIR/map_fault.txt: what a fresh mapping costs its reader, 128 MiB copied out of a memfd
# mapped anew (its pages faulted in), populated first (MADV_POPULATE_READ, MAP_POPULATE)
# or kept: map_fault in probes.c, 7 repetitions with the order rotating.
# --resize-ab ROUNDS: then a real resize, RESIZE_MAPPED_ARRAYS on against off, paired: the
# build's pdgemm_resizable (N = 4000, blocks 64) on 2 processes grown 1x2 -> 2x2 by spawn
# (the newcomers copy out of the old processes' arrays), on and off one right after the
# other, the order alternating by round; DIR/mapped_resize.txt gets each run's move
# (t_redist_s) and exchange, load1 before it, and the medians and per-round ratios on/off.
case_mapped_bound() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$here/build mib=64,256 reps=5 changes="64@1x2:64@2x1,64@1x2:100@1x2,64@2x1:100@1x2" out='' ab=0
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --changes) changes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --resize-ab) ab=$2; shift 2 ;;
    *) echo "redist.sh mapped-bound: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n $out ]] || { echo "redist.sh mapped-bound: --out DIR is required" >&2; exit 2; }
[[ $ab =~ ^[0-9]{1,3}$ ]] || { echo "redist.sh mapped-bound: --resize-ab is a number of rounds" >&2; exit 2; }
bench=$build/redist/malleable-redist-bench
[[ -x $bench ]] || { echo "redist.sh mapped-bound: no $bench: build malleable_redist_bench" >&2; exit 2; }
mkdir -p "$out"
file=$out/mapped.txt table=$(mktemp)
trap 'rm -f "$table"' EXIT
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git -C "$here" rev-parse --short HEAD)"
  echo "cores: $(nproc)"
  echo "uptime before: $(uptime)"
  echo "command: mpiexec -n 2 malleable-redist-bench mapped --mib $mib --reps $reps --changes $changes"
} >"$file.tmp"
mpiexec --oversubscribe --bind-to none -n 2 "$bench" mapped --mib "$mib" --reps "$reps" --changes "$changes" --out "$table"
{
  echo "uptime after: $(uptime)"
  echo
  cat "$table"
} >>"$file.tmp"
mv "$file.tmp" "$file"
probe=$(mktemp)
trap 'rm -f "$table" "$probe"' EXIT
"${CC:-cc}" -std=c11 -O2 -Wall -Wextra -DPROBE_MAP_FAULT "$here/scripts/bench/probes.c" -o "$probe"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git -C "$here" rev-parse --short HEAD)"
  echo "command: map_fault 128 7 (scripts/bench/probes.c, -DPROBE_MAP_FAULT)"
  "$probe" 128 7
} >"$out/map_fault.txt"
((ab > 0)) || return 0
drv=$build/apps/pdgemm_resizable
[[ -x $drv ]] || { echo "redist.sh mapped-bound: $drv missing: build pdgemm_resizable" >&2; exit 2; }
export PMIX_MCA_gds=hash OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
runs=$(mktemp -d)
trap 'rm -rf "$runs" "$table" "$probe"' EXIT
for ((r = 1; r <= ab; ++r)); do
  order=(on off)
  ((r % 2)) || order=(off on)
  for s in "${order[@]}"; do
    cut -d' ' -f1 /proc/loadavg >"$runs/$s.$r.load"
    RESIZE_MAPPED_ARRAYS=$s timeout 300 mpiexec --oversubscribe --bind-to none -n 2 -x RESIZE_MAPPED_ARRAYS "$drv" -n 4000 \
      --nb 64 -g 1x2 -i 2 -p scripted -s 1:expand:2x2 --no-check -q --json "$runs/$s.$r.json" >/dev/null 2>&1 ||
      echo "round $r $s: the run failed" >&2
  done
done
python3 - "$runs" "$ab" "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$(git -C "$here" rev-parse --short HEAD)" <<'PY' > "$out/mapped_resize.txt"
import json, os, statistics, sys
runs, rounds, when, commit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
print(f"pdgemm_resizable N=4000 nb=64, 2 processes grown 1x2 -> 2x2 by spawn, RESIZE_MAPPED_ARRAYS on/off paired; ended {when}, commit {commit}")
print()
print("| round | setting | load1 before | move s (t_redist_s) | exchange s |")
print("|---|---|---|---|---|")
move = {"on": {}, "off": {}}
for r in range(1, rounds + 1):
    for s in ("on", "off"):
        try:
            x = json.load(open(os.path.join(runs, f"{s}.{r}.json")))["resizes"][0]
        except (OSError, KeyError, IndexError, ValueError):
            print(f"| {r} | {s} | - | failed | - |")
            continue
        load = open(os.path.join(runs, f"{s}.{r}.load")).read().strip()
        move[s][r] = x["t_redist_s"]
        print(f"| {r} | {s} | {load} | {x['t_redist_s']:.4f} | {x['move_phases']['exchange_s']:.4f} |")
both = [r for r in move["on"] if r in move["off"]]
print()
if both:
    ratios = [move["on"][r] / move["off"][r] for r in both]
    print(f"median move on {statistics.median(move['on'][r] for r in both):.4f} s, off {statistics.median(move['off'][r] for r in both):.4f} s; "
          f"on/off per round median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}), {len(both)} rounds")
PY
}

#@case start-split
# A resize's process start split against a bare start, one thing added at a time
# (docs/measurements/redist.md, "The process start split, fourth run"). Every variant times the same
# interval: from the moment the running 2-process job starts growing by 2 processes to the
# grown world (a barrier on it, or blacs-dyn's own last collective), on world rank 0, and
# each is the job's FIRST start (a resize is its job's first spawn or join); the raw ones
# also give the median of REPS warm repetitions after it (what redist.sh bound's
# "bare_spawn_s" and "bare_join_s" were). Variants, each ROUNDS times, interleaved (the
# order rotates from round to round), the load average beside each:
#   raw_plain     spawn_pingpong's (probes.c) spawn mode: MPI_Comm_spawn of 2 + merge + barrier, the
#                 program alone (the bare spawn);
#   raw_ext       the same program linked with the driver's external libraries only
#                 (ScaLAPACK, OpenBLAS, LAPACKE, HDF5, libcrypto, libstdc++ and theirs):
#                 their loading and relocation in the newcomers;
#   raw_libs      linked with all of the driver's libraries (the project's too, blacs-dyn's
#                 MPI_Init wrapper included, as a process that is no newcomer);
#   expand        start_split in probes.c: blacs_dyn_expand of 2 (same libraries): blacs-dyn's
#                 protocol (checks, spawn over MPI_COMM_SELF, check-in, go, both merges, dup,
#                 hosts, BLACS's world); BLACS_DYN_TRACE's phases kept;
#   resize        pdgemm_resizable -n 2048 --nb 64 -g 1x2 -i 4 -s 2:expand:2x2,3:shrink:1x2
#                 (redist.sh bound's resize): the JSON's t_spawn_s, its prefault_s and the
#                 trace's phases;
#   resize_nopf   the same with RESIZE_PREFAULT=off (no thread staging the new arrays and
#                 the node window while the newcomers start; the move then touches them);
#   join_bare     bare_join in probes.c through an ompi-server: a separate mpiexec -n 2 to the merged
#                 world (first, then REPS warm), and the launch's port written (ready_s);
#   join_libs     the same program linked with all of the driver's libraries;
#   join_resize   the resize by a join (malleable-run --job-dir), t_spawn_s and the trace;
#   join_nopf     the same with RESIZE_PREFAULT=off.
# The resizes' t_redist_s and t_total_s are kept too (what the prefault saves the move).
# The build is copied to a scratch folder first (a rebuild during the run changes nothing).
# Output in OUT: rounds.tsv (one line per round and variant), phases.tsv (the traces'
# phases), summary.txt (medians and ratios: scripts/bench/start_split_report.py), meta.txt.
# Usage: redist.sh start-split [--build DIR] [--out DIR] [--rounds R] [--reps K]
case_start_split() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
args="$*"
build=$here/build out='' rounds=7 reps=3
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    -h | --help) _help start-split; exit 0 ;;
    *) echo "redist.sh start-split: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]?$ && $reps =~ ^[1-9]$ ]] || { echo "redist.sh start-split: --rounds 1-99, --reps 1-9" >&2; exit 2; }
[[ -x $build/apps/pdgemm_resizable && -x $build/bin/malleable-run ]] ||
  { echo "redist.sh start-split: build pdgemm_resizable and malleable-run first" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 RESIZE_HISTORY=off PMIX_MCA_gds=hash
work=$(mktemp -d)
server=''
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
out=${out:-$work/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
load() { cut -d' ' -f1 /proc/loadavg; }
mpx() { timeout -k 10 120 mpiexec --oversubscribe --bind-to none "$@"; }

# The build's snapshot: the driver, the launcher and the project's libraries.
snap=$work/snap
mkdir -p "$snap/apps" "$snap/bin" "$snap/lib"
cp "$build/apps/pdgemm_resizable" "$snap/apps/"
cp "$build/bin/malleable-run" "$snap/bin/"
find "$build" -maxdepth 2 -name 'libmalleable_*.so*' -exec cp -P {} "$snap/lib/" \;
export LD_LIBRARY_PATH=$snap/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
prog=$snap/apps/pdgemm_resizable
build_commit=$(sed -n 's/^#define MALLEABLE_GIT_COMMIT "\(.*\)"$/\1/p' "$build/generated/include/malleable/version.h" 2>/dev/null)

# The programs. all: the driver's NEEDED libraries (blacs-dyn ahead of ScaLAPACK, as the
# driver links them); ext: every library the driver loads that is not the project's.
all=$(readelf -d "$prog" | sed -n 's/.*Shared library: \[\(.*\)\]/-l:\1/p' | grep -v -e libmpi.so -e libc.so -e libm.so -e libgcc_s)
ext=$(ldd "$prog" | awk '$1 ~ /^lib/ && $1 !~ /^libmalleable_|^libmpi\.|^libc\.|^libm\.|^libgcc_s/ {print "-l:" $1}')
cc() { mpicc -O2 "-DPROBE_${1^^}" "$here/scripts/bench/probes.c" -o "$work/$2" "${@:3}"; }  # <program of probes.c> <output> [flags]
cc spawn_pingpong raw_plain
# shellcheck disable=SC2086
cc spawn_pingpong raw_ext -Wl,--no-as-needed $ext
# shellcheck disable=SC2086
cc spawn_pingpong raw_libs -L"$snap/lib" -Wl,--no-as-needed $all -Wl,-rpath,"$snap/lib"
# shellcheck disable=SC2086
cc start_split expand -L"$snap/lib" -Wl,--no-as-needed $all -ldl -Wl,-rpath,"$snap/lib"
cc bare_join join_bare
# shellcheck disable=SC2086
cc bare_join join_libs -L"$snap/lib" -Wl,--no-as-needed $all -Wl,-rpath,"$snap/lib"

{
  echo "date $(date -u +%FT%TZ)"
  echo "command scripts/bench/redist.sh start-split $args (rounds $rounds, reps $reps)"
  echo "build_commit ${build_commit:-unknown}; HEAD $(git -C "$here" rev-parse --short HEAD 2>/dev/null)"
  echo "machine $(getconf _NPROCESSORS_ONLN) cores ($(lscpu | sed -n 's/^Model name: *//p')); $(mpiexec --version | head -1)"
  echo "load_before $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/meta.txt"
printf 'round\tvariant\tfirst_s\twarm_median_s\textra\tload1\n' >"$out/rounds.tsv"
printf 'round\tvariant\tphase\tms\n' >"$out/phases.tsv"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$out/rounds.tsv"; }
# The trace's lines ("blacs-dyn trace: PHASE  X ms (at ...)") of a start (not the leaving ones).
phases() {  # <round> <variant> <stderr file>
  sed -n 's/^blacs-dyn trace: \(.*[^ ]\) \+\([0-9.]*\) ms (at .*/\1\t\2/p' "$3" | grep -v '^leaving' |
    sed "s/launch [^ ]* \(seen\|merged\)/launch \1/; s/^/$1\t$2\t/" >>"$out/phases.tsv" || true
}

raw() {  # <round> <variant>
  local line
  if line=$(mpx -n 2 "$work/$2" spawn 2 "$reps" 2>"$work/err" | grep raw_spawn_merge_ms); then
    row "$1" "$2" "$(awk '{print $4 / 1000}' <<<"$line")" "$(awk '{print $3 / 1000}' <<<"$line")" - "$(load)"
  else row "$1" "$2" NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$(load)"; fi
}
expand() {
  local line
  if line=$(BLACS_DYN_TRACE=1 mpx -n 2 "$work/expand" 2 2>"$work/err" | grep expand_ms); then
    row "$1" expand "$(awk '{print $3 / 1000}' <<<"$line")" - - "$(load)"
    phases "$1" expand "$work/err"
  else row "$1" expand NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$(load)"; fi
}
resize() {  # <round> <resize|resize_nopf|join_resize|join_nopf>
  local pf=on runner=(mpx -n 2) l
  [[ $2 == *_nopf ]] && pf=off
  [[ $2 == join_* ]] && { rm -rf "$work/job-dir"; runner=(timeout -k 10 180 "$snap/bin/malleable-run" --job-dir "$work/job-dir" -n 2 --); }
  l=$(load)
  if RESIZE_PREFAULT=$pf BLACS_DYN_TRACE=1 "${runner[@]}" "$prog" -n 2048 --nb 64 -g 1x2 -i 4 -p scripted \
    -s 2:expand:2x2,3:shrink:1x2 -q --no-check --json "$work/r.json" >"$work/out.log" 2>"$work/err"; then
    read -r t pre mech red tot < <(python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['resizes'][0]
print(e['t_spawn_s'], e.get('move_phases', {}).get('prefault_s', 0), e['mechanism'], e['t_redist_s'], e['t_total_s'])" "$work/r.json")
    row "$1" "$2" "$t" - "mechanism $mech, prefault_s $pre, t_redist_s $red, t_total_s $tot" "$l"
    phases "$1" "$2" "$work/err"
  else row "$1" "$2" NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$l"; fi
}
# One job joined by reps + 1 separate launches: the first, the warm median, and when the
# first launch had written its port (its MPI_Init and MPI_Open_port done).
join() {  # <round> <join_bare|join_libs>
  local port=$work/port.$1.$2 l times=() t0 t1 ready=''
  l=$(load)
  rm -f "$work/join.out"
  mpx -n 2 --ompi-server "file:$work/uri" "$work/$2" job "$port" $((reps + 1)) >"$work/join.out" 2>"$work/err" &
  local job=$!
  for ((k = 1; k <= reps + 1; ++k)); do
    t0=$(date +%s.%N)
    mpx --ompi-server "file:$work/uri" -n 2 "$work/$2" launch "$port.$k" 2>>"$work/err" || break
    for ((i = 0; i < 1000; ++i)); do grep -q "^merged $k " "$work/join.out" && break; sleep 0.01; done
    t1=$(awk -v r="$k" '$1 == "merged" && $2 == r {print $3}' "$work/join.out")
    [[ -n $t1 ]] || break
    times+=("$(echo "$t1 - $t0" | bc -l)")
    ((k == 1)) && ready=$(echo "$(find "$port.1" -printf '%T@') - $t0" | bc -l)
  done
  wait "$job" || true
  if ((${#times[@]} == reps + 1)); then
    row "$1" "$2" "${times[0]}" "$(printf '%s\n' "${times[@]:1}" | sort -g | awk '{v[NR]=$1} END {print NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')" \
      "ready_s $ready" "$l"
  else row "$1" "$2" NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$l"; fi
}

ompi-server --no-daemonize --report-uri "$work/uri" </dev/null &
server=$!
for ((i = 0; i < 100; ++i)); do [[ -s $work/uri ]] && break; sleep 0.1; done
variants=(raw_plain raw_ext raw_libs expand resize resize_nopf join_bare join_libs join_resize join_nopf)
# A warm-up of each program (the file cache), not recorded.
mpx -n 2 "$work/raw_plain" spawn 2 1 >/dev/null 2>&1 || true
mpx -n 2 "$work/expand" 2 >/dev/null 2>&1 || true
for ((r = 1; r <= rounds; ++r)); do
  echo "round $r/$rounds: load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "load_round$r $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"
  n=${#variants[@]}
  for ((j = 0; j < n; ++j)); do
    v=${variants[$(((j + r - 1) % n))]}
    case $v in
      raw_*) raw "$r" "$v" ;;
      expand) expand "$r" ;;
      resize | resize_nopf | join_resize | join_nopf) resize "$r" "$v" ;;
      join_*) join "$r" "$v" ;;
    esac
  done
done
echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"
python3 "$here/scripts/bench/start_split_report.py" "$out" | tee "$out/summary.txt"
echo "redist.sh start-split: wrote $out"
}

#@lib costa_native
# Called by the cases that time COSTA through its own API
# (costa::block_cyclic_layout + costa::transform, redist/bench/costa_native.cpp).
# costa_native <costa build dir> <our build dir> <our source dir>: compiles that shim against
# the user's COSTA build (headers from the source tree its CMake cache names, or an install
# tree's include/) and prints the shared object's path.
lib_costa_native() {
costa_native() {
  local costa=$1 build=$2 here=$3 src inc lib so
  src=$(sed -n 's/^costa_SOURCE_DIR:STATIC=//p' "$costa/CMakeCache.txt" 2>/dev/null | head -1 || true)
  inc=${src:+$src/src}
  inc=${inc:-$costa/include}
  lib=$(dirname "$(find "$costa" -name libcosta.so -print -quit)")
  so=$build/redist/costa_native.so
  mpicxx -std=c++17 -O2 -fopenmp -fPIC -shared -DOMPI_SKIP_MPICXX "$here/redist/bench/costa_native.cpp" -isystem "$inc" \
    -L"$lib" -lcosta -Wl,-rpath,"$lib" -o "$so" >&2 || return 1
  echo "$so"
}
}

# Run, the case named; sourced (device16.sh respawn sources redist.sh for costa_native), the functions only.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then bench_main "$0" "$@"; fi
