#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Respawn and merge against a fresh job, redist against COSTA and the node's copy bound, in
# one call of a lent 16-core machine (../shared/device/pack.sh's runtime and build unpacked
# at their absolute paths by .device/unpack.sh; run from the checkout's root;
# docs/measurements/respawn.md "On 16 cores: the prepared run"):
#   copy     the node's copy bandwidth: scripts/bench/node_copy.c (STREAM's Copy, one array
#            per rank) on RANKS ranks (default 16) bound to cores, COPY_MIB MiB a rank;
#   growth   PDGETRF (N = 8,000) and PDGEMM (N = 6,000), block 64, started on 2x2 and grown
#            to 4x4 after iteration 1 with RESIZE_RECONFIGURE=respawn and with =merge,
#            against the driver started on 4x4; ROUNDS rounds, the arms' order rotating
#            (device16_lib.sh's grow and fresh: --bind-to none, GROW_ITERS iterations,
#            default 5, the fresh job one less; RESIZE_HISTORY=off: no arm predicts from
#            another's);
#   redist   malleable-redist-bench redist --shapes over device16_shapes.sh's 16 cases (REDIST_NS,
#            default 4,000 and 8,000) with PDGEMR2D, redist and COSTA's native transform
#            (BUILD/redist/costa_native.so, when built: PREPARE below), RANKS ranks bound
#            to cores, REDIST_REPS repetitions (default 5): COSTA's time over redist's, and
#            redist's bytes moved per second as a fraction of the copy's.
# Order: copy, growth round 1, redist, then rounds 2.. (what a short budget keeps matters
# most first); an arm that failed once is not run again. Records go to WORK (default
# OUT/records), packed into OUT/records.tar after every run (OUT default
# docs/data/device16/respawn); BUDGET_S > 0 starts no run after that many seconds less 35.
# At the end scripts/bench/device16_report.py --respawn WORK prints the table with the
# targets (respawn-grown / fresh <= 1.05x, redist >= 1.5x COSTA, the copy fraction).
#   scripts/bench/device16_respawn.sh [BUILD_DIR] [ROUNDS]
# PREPARE=1 (on the machine that packs, before pack.sh): compile node_copy into
# BUILD/bench/node_copy and, with COSTA=DIR (a COSTA build made outside this repository:
# docs/measurements/redist.md "Comparing with COSTA"), BUILD/redist/costa_native.so; then exit.
# Overrides for a quick check: GEMM_N, LU_N, NB, FROM, TO, REDIST_NS, REDIST_REPS, RANKS,
# COPY_MIB, GROW_ITERS, BIND (default core; none where RANKS passes the cores).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-build} rounds=${2:-3}
out=${OUT:-docs/data/device16/respawn}
work=${WORK:-$out/records}
budget=${BUDGET_S:-0}
ranks=${RANKS:-16}
t0=$SECONDS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export RESIZE_HISTORY=off GROW_ITERS=${GROW_ITERS:-5}

if [[ ${PREPARE:-0} == 1 ]]; then
  mkdir -p "$build/bench"
  mpicc -std=c11 -O2 -o "$build/bench/node_copy" "$here/node_copy.c" || exit 1
  echo "built $build/bench/node_copy"
  if [[ -n ${COSTA:-} ]]; then
    # shellcheck source=costa_native.sh
    . "$here/costa_native.sh"
    costa_native "$(cd "$COSTA" && pwd)" "$build" "$(cd "$here/../.." && pwd)" || exit 1
  fi
  exit 0
fi
# log, pack, run (budget), grow and fresh
# shellcheck source=device16_lib.sh
. "$here/device16_lib.sh"

{ echo "date $(date -u +%FT%TZ)"; echo "cpus $(nproc --all)"; lscpu | grep -E 'Model name|Socket|Thread|NUMA node\(s\)'
  mpiexec --version | head -1; echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "build $build; rounds $rounds; budget ${budget}s; ranks $ranks"; } >"$work/machine.txt" 2>&1
cat "$work/machine.txt"

declare -A broken=()
arm() {  # <arm> <driver> <N> <round>: one run of an arm, none after it failed once
  local a=$1 d=$2 n=$3 r=$4
  [[ -n ${broken[$a$d]:-} ]] && { log "SKIPPED ${a}_$d.$r (failed before)"; return; }
  case $a in
    respawn | merge) grow "$a" "$d" "$n" "$r" -x RESIZE_RECONFIGURE="$a" ;;
    fresh) fresh node "$d" "$n" "$r" ;;
  esac || broken[$a$d]=1
}
round() {  # <r>: every arm of both drivers once, the arms' order rotating
  local r=$1 arms=(respawn merge fresh) k spec d n
  for spec in "pdgetrf ${LU_N:-8000}" "pdgemm ${GEMM_N:-6000}"; do
    read -r d n <<<"$spec"
    for ((k = 0; k < 3; ++k)); do arm "${arms[$(((k + r - 1) % 3))]}" "$d" "$n" "$r"; done
  done
}

if [[ -x $build/bench/node_copy ]]; then
  run copy 60 --bind-to "${BIND:-core}" -n "$ranks" "$build/bench/node_copy" "${COPY_MIB:-256}" 10
else
  log "no $build/bench/node_copy (PREPARE=1 builds it): no copy bound"
fi
round 1
# shellcheck source=device16_shapes.sh
. "$here/device16_shapes.sh"
costa=()
[[ -f $build/redist/costa_native.so ]] && costa=(--costa-native "$build/redist/costa_native.so")
((${#costa[@]})) || log "no $build/redist/costa_native.so (PREPARE=1 COSTA=DIR builds it): COSTA not timed"
run redist 240 --bind-to "${BIND:-core}" -n "$ranks" "$build/redist/malleable-redist-bench" redist \
  --shapes "${shapes[@]}" --reps "${REDIST_REPS:-5}" "${costa[@]}" --json "$work/redist.json"
for ((r = 2; r <= rounds; ++r)); do round "$r"; done
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/machine.txt"
pack
log "done"
python3 "$here/device16_report.py" --respawn "$work" ||
  log "no table here (python3?): device16_report.py --respawn DIR on the records of $out/records.tar"
