#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Reproduces the experiments of the thesis's chapters 4-6 on this machine and writes
# docs/measurements/results.md (ours beside the thesis's numbers) and docs/img/*.png.
#
#   scripts/bench/reproduce.sh [--quick] [--build-dir DIR] [--out DIR] [--no-build]
#
#   --quick       small sizes, a few minutes (the ctest test reproduce_quick runs this)
#   --build-dir   build tree with the programs (default $MALLEABLE_BUILD_DIR, else build/;
#                 scripts/setup.sh is run first if it does not exist)
#   --out DIR     where measurements/results.md and img/ go (default docs/); raw logs and JSON go to
#                 DIR/raw, or to BUILD/reproduce-raw when DIR is docs/
#   --no-build    do not (re)build the programs first
#   --smoke       every experiment of the full mode at tiny sizes (tests this script)
#   --cluster     also run the emulated-cluster measurements (growing onto nodes,
#                 redistribution over 1 Gbit/s links; Slurm), root needed: their
#                 data go to OUT/data/{cluster,slurm} (the sections "On the emulated
#                 cluster" and "Under Slurm"); without it those sections show the data
#                 last committed in docs/data/
#
# Every number in results.md comes from this run; the thesis's numbers are quoted from
# the thesis and labelled as such. Exits non-zero if a run fails or a check on the data
# fails (see the "Checks" section of results.md).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
INVOCATION="scripts/bench/reproduce.sh $*"
MODE=full
BUILD=${MALLEABLE_BUILD_DIR:-$ROOT/build}
OUT=$ROOT/docs
DO_BUILD=1
CLUSTER=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) MODE=quick ;;
    --full) MODE=full ;;
    --smoke) MODE=smoke ;;
    --build-dir) BUILD=$2; shift ;;
    --out) OUT=$2; shift ;;
    --no-build) DO_BUILD=0 ;;
    --cluster) CLUSTER=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "reproduce.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
BUILD=$(realpath -m "$BUILD")
OUT=$(realpath -m "$OUT")

# MPI on a 2-core machine: oversubscribe, never bind, yield while polling; allow root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# payoff on the dedicated-core clock needs the kernels metered (opt-in)
export RESIZE_METER_KERNELS=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
MPIEXEC=(mpiexec --oversubscribe --bind-to none)

TARGETS=(repro_plan repro_redist repro_hetero_life pdgemm_resizable pdgemv_resizable
         pdgetrf_resizable life_resizable life_hetero)
if [[ ! -d $BUILD ]]; then
  echo "reproduce: no build tree at $BUILD; running scripts/setup.sh" >&2
  "$ROOT/scripts/setup.sh"
  [[ -d $BUILD ]] || cmake -S "$ROOT" -B "$BUILD" >/dev/null
fi
if [[ $DO_BUILD == 1 ]]; then
  cmake --build "$BUILD" -j2 --target "${TARGETS[@]}" >/dev/null
fi
BIN_R=$BUILD/apps/reproduce
BIN_A=$BUILD/apps
for t in "$BIN_R/repro_plan" "$BIN_R/repro_redist" "$BIN_R/repro_hetero_life" "$BIN_A/pdgemm_resizable" \
         "$BIN_A/pdgemv_resizable" "$BIN_A/pdgetrf_resizable" "$BIN_A/life_resizable"; do
  [[ -x $t ]] || { echo "reproduce: missing program $t (build the targets: ${TARGETS[*]})" >&2; exit 2; }
done

# Raw logs/JSON: beside the report for --out elsewhere; in the build tree for docs/ (only
# results.md and img/ are committed).
if [[ $OUT == "$ROOT/docs" ]]; then RAW=$BUILD/reproduce-raw; else RAW=$OUT/raw; fi
mkdir -p "$RAW" "$OUT/img"
rm -f "$RAW"/*.json "$RAW"/*.log
CMDS=$RAW/commands.tsv
: >"$CMDS"
T_START=$(date +%s)

# run NAME CMD... : runs CMD, logs its output to raw/NAME.log and its command line, duration
# and exit code to raw/commands.tsv. A failed run is retried once (both attempts are
# listed); if it fails again the script goes on, the report marks what is missing and the
# script exits non-zero at the end.
FAILED=()
run() {
  local name=$1; shift
  local t0 t1 rc attempt
  for attempt in 1 2; do
    rc=0
    t0=$(date +%s.%N)
    "$@" >"$RAW/$name.log" 2>&1 </dev/null || rc=$?
    t1=$(date +%s.%N)
    printf "%s\t%s\t%s\t%s\n" "$name" "$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")" "$rc" "$*" >>"$CMDS"
    printf "  %-28s %6s s%s\n" "$name" "$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")" \
      "$([[ $rc != 0 ]] && echo "  FAILED (exit $rc, attempt $attempt)")"
    [[ $rc == 0 ]] && return 0
    tail -5 "$RAW/$name.log" >&2
  done
  FAILED+=("$name")
  return 0
}
# json NAME CMD... : like run, but CMD writes JSON to stdout, kept as raw/NAME.json.
json() {
  local name=$1; shift
  run "$name" "$@"
  cp "$RAW/$name.log" "$RAW/$name.json"
}

# ---- sizes: the thesis's N (12000-42000) scaled to a 2-core machine -------------------
if [[ $MODE == quick ]]; then
  REDIST_N=(1000); REDIST_REPS=2; SPLIT_N=1000; REDIST_25_N=()
  # each topology runs once, the two apps taking turns (every grid shape and both apps
  # are checked; the full and smoke modes run every pair for the tables' orderings)
  TOPO_N=(600); TOPO_ITERS=2; TOPO_ALL=0
  RESIZE_N=(1200); RESIZE_GEMM_N=(600); RESIZE_GRIDS=(2x2 3x3 4x4); SEG=3; RESIZE_REPS=1
  T63_N=1000
  HET_TPPS="600"; HET_EXPS=(2a)
  T41_P="4,8,16"
elif [[ $MODE == smoke ]]; then
  REDIST_N=(600 900); REDIST_REPS=1; SPLIT_N=900; REDIST_25_N=(600)
  TOPO_N=(400 600); TOPO_ITERS=2; TOPO_ALL=1
  RESIZE_N=(600 1200); RESIZE_GEMM_N=(400); RESIZE_GRIDS=(2x2 3x3 4x4 5x5); SEG=3; RESIZE_REPS=2
  HET_TPPS="all"; HET_EXPS=(2a 2b)
  T41_P="4,8,16,32"
else
  REDIST_N=(2000 4000 6000 8000); REDIST_REPS=5; SPLIT_N=6000; REDIST_25_N=(2000 4000 6000)
  TOPO_N=(1000 2000 3000); TOPO_ITERS=3; TOPO_ALL=1
  RESIZE_N=(2400 4800 7200); RESIZE_GEMM_N=(1200 2400 3600); RESIZE_GRIDS=(2x2 3x3 4x4 5x5); SEG=4; RESIZE_REPS=3
  HET_TPPS="all"; HET_EXPS=(2a 2b)
  T41_P="4,8,16,32"
fi
T63_N=${T63_N:-2000}
echo "reproduce ($MODE): build $BUILD, output $OUT"
uptime >"$RAW/load_start.txt"

# ---- Table 4.1: exact data moved per placement (pure) -------------------------------
# N divisible by every p and p+r so the block distribution is exact, as in §4.5.
T41_N=$([[ $T41_P == "4,8,16" ]] && echo 24480 || echo 538560)
json table41 "$BIN_R/repro_plan" table41 --p "$T41_P" -n "$T41_N"

# ---- Tables 4.2-4.6: redistribution time per placement and schedule, beside PDGEMR2D --
for n in "${REDIST_N[@]}"; do
  trs=("2x2 3x3" "3x3 4x4")
  [[ " ${REDIST_25_N[*]} " == *" $n "* ]] && trs+=("4x4 5x5")
  for tr in "${trs[@]}"; do
    set -- $tr
    np=$(( ${2%x*} * ${2#*x} ))
    split=""
    [[ $n == "$SPLIT_N" && $1 == 2x2 ]] && split="caterpillar,matching,allatonce"
    run "redist_${1}_${2}_n$n" "${MPIEXEC[@]}" -n "$np" "$BIN_R/repro_redist" -n "$n" --from "$1" --to "$2" \
      --placements global,local1,local2,optimal \
      --schedules caterpillar,circulant,matching,allatonce,default,pdgemr2d \
      --split "$split" --reps "$REDIST_REPS" --json "$RAW/redist_${1}_${2}_n$n.json"
  done
done

# ---- Tables 5.1/5.2: PDGETRF and PDGEMM on the topologies of 9, 12 and 14 processes ---
TOPOS=(3x3 4x3 3x4 6x2 2x6 12x1 1x12 7x2 2x7)
a=0
for app in pdgetrf pdgemm; do
  for n in "${TOPO_N[@]}"; do
    for i in "${!TOPOS[@]}"; do
      g=${TOPOS[i]}
      ((TOPO_ALL || i % 2 == a)) || continue
      np=$(( ${g%x*} * ${g#*x} ))
      run "topo_${app}_n${n}_$g" "${MPIEXEC[@]}" -n "$np" "$BIN_A/${app}_resizable" -n "$n" --nb 64 -g "$g" \
        -i "$TOPO_ITERS" -p fixed -q --json "$RAW/topo_${app}_n${n}_$g.json"
    done
  done
  a=$((a + 1))
done

# ---- Tables 5.3-5.12: Life, PDGEMV, PDGEMM expanding 2x2 -> 3x3 -> ..., Global vs Local2
sched() {  # sched PLACEMENT: the scripted expansions, one every $SEG iterations
  local s="" k=0 g
  for g in "${RESIZE_GRIDS[@]:1}"; do
    k=$((k + SEG))
    s+="${s:+,}$k:expand:$g:$1"
  done
  echo "$s"
}
last=${RESIZE_GRIDS[-1]}
NP_MAX=$(( ${last%x*} * ${last#*x} ))
# Every rank is started up front and the grid grows inside that world (no spawn): Open MPI
# 4.1.4 + PMIx 4.2 hang in about one MPI_Comm_spawn in 10-20 on this host (docs/reference/blacs-dyn.md),
# and the thesis's payoff uses the redistribution time, not the spawn. REPRO_SPAWN=1 grows by
# MPI_Comm_spawn through blacs-dyn from the initial 2x2 instead (when the drivers have it).
WORLD=$("${MPIEXEC[@]}" -n 1 "$BIN_A/life_resizable" -n 16 -g 1x1 -i 1 -p fixed 2>&1 </dev/null |
        sed -n 's/.*world: \([^;]*\);.*/\1/p' | head -1)
if [[ ${REPRO_SPAWN:-0} == 1 && $WORLD == blacs-dyn* ]]; then
  RESIZE_NP=4; echo "spawn $WORLD" >"$RAW/resize_world.txt"
else
  RESIZE_NP=$NP_MAX; echo "fixed $WORLD" >"$RAW/resize_world.txt"
fi
SEG_BASE=$SEG
for app in life pdgemv pdgemm; do
  # Life and PDGEMV iterations are cheap: more of them per grid steady the mean t_p.
  if [[ $app == pdgemm ]]; then sizes=("${RESIZE_GEMM_N[@]}"); SEG=$SEG_BASE; else sizes=("${RESIZE_N[@]}"); SEG=$((2 * SEG_BASE)); fi
  # The thesis's runs: one block per process row/column (Life's layout is always that).
  dist=(); [[ $app != life ]] && dist=(--dist block)
  ITERS=$(( SEG * ${#RESIZE_GRIDS[@]} ))
  for n in "${sizes[@]}"; do
    # Global and Local2 alternate, RESIZE_REPS times each: the report takes each expansion's
    # fastest t_r and the mean t_p, so one disturbed run does not decide the comparison.
    for ((rep = 1; rep <= RESIZE_REPS; rep++)); do
      for pl in global local2; do
        run "resize_${app}_n${n}_${pl}_r$rep" "${MPIEXEC[@]}" -n "$RESIZE_NP" "$BIN_A/${app}_resizable" -n "$n" \
          --nb 64 "${dist[@]}" -g 2x2 -i "$ITERS" -p scripted -s "$(sched $pl)" -q --resize-timeout 120 \
          --json "$RAW/resize_${app}_n${n}_${pl}_r$rep.json"
      done
    done
  done
done

# ---- Table 6.3: uniform vs power-proportional blocks on powers 1, 2, 2, 4 -------------
if [[ -x $BIN_A/life_hetero ]]; then
  run t63_alone "${MPIEXEC[@]}" -n 1 "$BIN_A/life_hetero" -n "$T63_N" -g 1x1 --powers 4 --mode uniform \
    --base-reps 20 -i 5 --json "$RAW/t63_alone.json"
  run t63_both "${MPIEXEC[@]}" -n 4 "$BIN_A/life_hetero" -n "$T63_N" -g 2x2 --powers 1,2,2,4 --mode both \
    --base-reps 20 -i 5 --json "$RAW/t63_both.json"
fi
json t63_map "$BIN_R/repro_plan" map --powers 1,2,2,4 --grid 2x2 -n 2000

# ---- Tables 6.7, 6.17, 6.20: heterogeneous selection under a TPP budget ---------------
for e in "${HET_EXPS[@]}" 3; do
  json "het_$e" "$BIN_R/repro_plan" hetero --exp "$e"
  json "het_${e}_thesis" "$BIN_R/repro_plan" hetero --exp "$e" --thesis-rules
done
# The measured column: each chosen grid runs the emulated-power Life (R = 320 >= every
# power, so a processor of power PP sweeps 320/PP times per generation).
for e in "${HET_EXPS[@]}"; do
  python3 - "$RAW/het_$e.json" "$HET_TPPS" >"$RAW/het_${e}_runs.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["exp"]
want = sys.argv[2]
init = d["initial"]
print("initial", 0, init["p"], init["q"], ",".join(map(str, init["rows"])), ",".join(map(str, init["cols"])),
      ",".join(repr(x) for x in init["powers"]))
for row in d["rows"]:
    if want != "all" and str(int(row["tpp"])) not in want.split(","):
        continue
    for s in ("global", "local", "mixed"):
        m = row[s]
        print(s, int(row["tpp"]), m["p"], m["q"], ",".join(map(str, m["rows"])), ",".join(map(str, m["cols"])),
              ",".join(repr(x) for x in m["powers"]))
PY
  while read -r strat tpp p q rows cols powers; do
    run "hetlife_${e}_${strat}_$tpp" "${MPIEXEC[@]}" -n $((p * q)) "$BIN_R/repro_hetero_life" --p "$p" --q "$q" \
      --rows "$rows" --cols "$cols" --powers "$powers" --R 320 --iters 4 --label "$e $strat $tpp" \
      --json "$RAW/hetlife_${e}_${strat}_$tpp.json" </dev/null
  done <"$RAW/het_${e}_runs.txt"
done

if ((CLUSTER)); then
  q=()
  [[ $MODE != full ]] && q=(--quick)
  MALLEABLE_BUILD_DIR=$BUILD "$ROOT/scripts/bench/slurm.sh" cluster "${q[@]}" --out "$OUT/data/cluster" || FAILED+=(cluster_bench)
  MALLEABLE_BUILD_DIR=$BUILD "$ROOT/scripts/bench/slurm.sh" slurm "${q[@]}" --out "$OUT/data/slurm" || FAILED+=(slurm_bench)
  python3 "$ROOT/scripts/bench/slurm_report.py" --data "$OUT/data/slurm" --plot "$OUT/img/slurm_timeline.png" >/dev/null ||
    FAILED+=(slurm_plot)
fi

uptime >"$RAW/load_end.txt"
T_END=$(date +%s)

# ---- the report -----------------------------------------------------------------------
printf "%s\n" "${FAILED[@]}" >"$RAW/failed.txt"
rc=0
data_dir=$ROOT/docs/data
((CLUSTER)) && data_dir=$OUT/data
python3 "$ROOT/scripts/bench/report.py" --raw "$RAW" --out "$OUT" --mode "$MODE" --data "$data_dir" \
  --seconds $((T_END - T_START)) --root "$ROOT" --build "$BUILD" \
  --invocation "${MALLEABLE_BUILD_DIR:+MALLEABLE_BUILD_DIR=$MALLEABLE_BUILD_DIR }${REPRO_SPAWN:+REPRO_SPAWN=$REPRO_SPAWN }$INVOCATION" || rc=$?
echo "reproduce: raw logs and JSON in $RAW"
if [[ ${#FAILED[@]} -gt 0 ]]; then
  echo "reproduce: FAILED runs: ${FAILED[*]}" >&2
  exit 1
fi
exit $rc
