#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The figures of a lent 16-core machine (docs/measurements/redist.md, resize.md): one command, the case first:
#   scripts/bench/device16.sh <case> [its arguments]   (--help lists the cases; <case> --help
#   prints the case's notes)
# Each case below runs as the script it was (its notes above its function, its arguments
# and environment unchanged); the libraries (#@lib) are what the cases sourced.

# the dispatcher, _help and _cases (scripts/bench/dispatch.sh); sourced by another, its own stays
[[ -n ${bench_script:-} && ${BASH_SOURCE[0]} != "$0" ]] || bench_script=${BASH_SOURCE[0]}
source "$(dirname "${BASH_SOURCE[0]}")/dispatch.sh"

#@case run
# The 16-core figures in one run (a lent 16-core machine, ../shared/device/pack.sh's runtime
# and build unpacked at their absolute paths; run from the checkout's root):
#   growth  PDGEMM (N = 6,000) and PDGETRF (N = 8,000): a job started on 2x2 grows to 4x4 by
#           spawn after iteration 1 against the same driver started on 4x4, ROUNDS rounds each,
#           the order alternating (all --bind-to none: a spawned job's ranks would be bound over
#           the parent's cores) (the same growth under Open MPI's UCX PML: device16.sh ucx,
#           which runs Debian's Open MPI whole; the machine's own could not open pml ucx);
#   redist  malleable-redist-bench redist --shapes, 8 grid changes x N = 4,000 and 8,000 (2 to 16 ranks) with
#           PDGEMR2D, redist and COSTA's native transform (OMP_NUM_THREADS=1), one mpiexec of
#           16 ranks bound to cores.
# Every record lands in OUT (default $OUT, else docs/data/device16/raw); the report is
# scripts/bench/device16_report.py OUT.
#   scripts/bench/device16.sh run [BUILD_DIR] [ROUNDS]
# (GEMM_N, LU_N, REDIST_NS override the orders for a quick check)
case_run() {
set -uo pipefail
build=${1:-build} rounds=${2:-3}
out=${OUT:-docs/data/device16/raw}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
{ echo "date $(date -u +%FT%TZ)"; echo "cpus $(nproc)"; lscpu | grep -E 'Model name|Socket|Thread|NUMA node\(s\)'
  mpiexec --version | head -1; echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; } >"$out/machine.txt" 2>&1
run() {  # <file> <mpiexec args...>
  local f=$1; shift
  timeout 240 mpiexec --oversubscribe "$@" >"$out/$f.log" 2>&1 || echo "FAILED $f rc=$?" | tee -a "$out/failures.txt"
}
growth() {  # <driver> <N> <iters> <tag> [mca args...]
  local d=$1 n=$2 it=$3 tag=$4; shift 4
  local r
  for ((r = 1; r <= rounds; ++r)); do
    local order=(grow fresh) w
    ((r % 2)) || order=(fresh grow)
    for w in "${order[@]}"; do
      echo "$(date -u +%T) $tag $d $w round $r"
      if [[ $w == grow ]]; then
        run "${tag}_${d}_grow.$r" --bind-to none -n 4 "$@" "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 2x2 -i "$it" \
          -p scripted -s 1:expand:4x4 --no-check -q --json "$out/${tag}_${d}_grow.$r.json"
      else
        run "${tag}_${d}_fresh.$r" --bind-to none -n 16 "$@" "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 4x4 \
          -i "$((it - 1))" --no-check -q --json "$out/${tag}_${d}_fresh.$r.json"
      fi
    done
  done
}
growth pdgemm "${GEMM_N:-6000}" 6 node
growth pdgetrf "${LU_N:-8000}" 6 node
lib_device16_shapes
echo "$(date -u +%T) redist"
run redist --bind-to core -n 16 "$build/redist/malleable-redist-bench" redist --shapes "${shapes[@]}" --reps 5 \
  --costa-native "$build/redist/costa_native.so" --json "$out/redist.json"
echo "$(date -u +%T) done"
}

#@case ab
# device16.sh run's redist cases (16 ranks bound to cores, N = 4,000 and 8,000, COSTA's native
# transform beside) for two builds side by side: ROUNDS rounds, each running OLD's bench then
# NEW's (the order alternating from round to round). Records into OUT (default $OUT);
# scripts/bench/device16_report.py --ab OUT prints new/old per case.
#   scripts/bench/device16.sh ab OLD_BUILD NEW_BUILD [ROUNDS]
case_ab() {
set -uo pipefail
old=$1 new=$2 rounds=${3:-2}
out=${OUT:-docs/data/device16/ab}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
{ echo "date $(date -u +%FT%TZ)"; lscpu | grep -E 'Model name'; mpiexec --version | head -1
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; } >"$out/machine.txt" 2>&1
lib_device16_shapes
for ((r = 1; r <= rounds; ++r)); do
  order=(old new)
  ((r % 2)) || order=(new old)
  for w in "${order[@]}"; do
    b=$old
    [[ $w == new ]] && b=$new
    echo "$(date -u +%T) round $r $w"
    timeout 240 mpiexec --oversubscribe --bind-to "${BIND:-core}" -n 16 "$b/redist/malleable-redist-bench" redist --shapes "${shapes[@]}" --reps 5 \
      --costa-native "$b/redist/costa_native.so" --json "$out/$w.$r.json" >"$out/$w.$r.log" 2>&1 ||
      echo "FAILED $w.$r rc=$?" | tee -a "$out/failures.txt"
  done
done
}

#@case ucx
# The growth part of scripts/bench/device16.sh run with Open MPI's UCX PML (BLACS_DYN_PML=ucx,
# docs/reference/blacs-dyn.md "Old and new processes on one node"), on a lent 16-core machine:
# PDGETRF (N = 8,000) and PDGEMM (N = 6,000), block 64, started on 2x2 and grown to 4x4 by
# spawn after iteration 1, against the same driver started on 4x4, both under UCX, ROUNDS
# rounds each, the order alternating (all --bind-to none, as in device16.sh run); then, while
# time is left, the job started on 4x4 under Open MPI's default PML (ob1) as a reference.
#
# Debian's Open MPI is used whole, not the machine's own: ../shared/device/pack.sh's
# .device/rt.tar.xz is unpacked into DEB_ROOT (default /opt/debmpi, not over /) and run from
# there (OPAL_DESTDIR; PMIx, UCX and hwloc told their component folders), so that Debian's
# mca_pml_ucx and UCX's shared-memory transports are the ones loaded; .device/bin.tar.xz (the
# build) is unpacked at its absolute paths when BUILD_DIR lacks the drivers.
#   scripts/bench/device16.sh ucx [BUILD_DIR] [ROUNDS]
# Records (JSON and logs) go to WORK (default OUT/records), packed after every run into
# OUT/records.tar (default OUT: docs/data/device16/ucx); BUDGET_S > 0 starts no run after
# that many seconds less 35; GEMM_N, LU_N override the orders for a quick check. The table:
# scripts/bench/device16_report.py --ucx DIR (DIR holding the records, or records.tar).
case_ucx() {
set -uo pipefail
build=${1:-build} rounds=${2:-3}
out=${OUT:-docs/data/device16/ucx}
work=${WORK:-$out/records}
deb=${DEB_ROOT:-/opt/debmpi}
budget=${BUDGET_S:-0}
t0=$SECONDS
mpiexec=$deb/usr/bin/orterun
GROW_TIMEOUT=${GROW_TIMEOUT:-75} FRESH_TIMEOUT=${FRESH_TIMEOUT:-50}
# log, pack, run (budget), grow and fresh (2x2 -> 4x4, 6 iterations against 5)
lib_device16_lib

# The runtime: Debian's Open MPI, PMIx, UCX, ScaLAPACK and OpenBLAS under $deb.
if [[ ! -x $deb/usr/bin/orterun ]]; then
  [[ -f .device/rt.tar.xz ]] || { log "no $deb/usr/bin/orterun and no .device/rt.tar.xz"; exit 2; }
  mkdir -p "$deb" && tar -xJf .device/rt.tar.xz -C "$deb" || exit 2
  # absolute links (the BLAS/LAPACK alternatives) point into $deb, not at the machine's files
  find "$deb" -type l -lname '/*' | while read -r l; do
    t=$(readlink "$l"); ln -sfn "$deb$t" "$l"
  done
  log "unpacked .device/rt.tar.xz into $deb"
fi
if [[ ! -x $build/apps/pdgetrf_resizable ]] && [[ -f .device/bin.tar.xz ]]; then
  tar -xJf .device/bin.tar.xz -C / 2>&1 | grep -v 'Removing leading'
  log "unpacked .device/bin.tar.xz"
fi
L=$deb/usr/lib/x86_64-linux-gnu
export OPAL_DESTDIR=$deb LD_LIBRARY_PATH=$L/openmpi/lib:$L:$L/openblas-pthread
export PMIX_MCA_mca_base_component_path=$L/pmix2/lib/pmix UCX_MODULE_DIR=$L/ucx HWLOC_PLUGINS_PATH=$L/hwloc
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

{ echo "date $(date -u +%FT%TZ)"; echo "cpus $(nproc --all)"
  lscpu | grep -E 'Model name|Socket|Thread|NUMA node\(s\)'
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "kernel $(uname -r); yama ptrace_scope $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo -)"
  echo "packed: $("$mpiexec" --version 2>&1 | head -1)"
  echo "machine's own: $(env -u OPAL_DESTDIR -u LD_LIBRARY_PATH mpiexec --version 2>&1 | head -1) ($(command -v mpiexec))"
  env -u OPAL_DESTDIR -u LD_LIBRARY_PATH ompi_info 2>&1 | grep -E 'Prefix:|MCA pml' | sed 's/^/  own: /'
  echo "packed ompi_info (paths, pml/ucx components):"
  "$deb/usr/bin/ompi_info" --all --parsable 2>&1 | grep -E '^path:(prefix|pkglibdir|sysconfdir)'
  "$deb/usr/bin/ompi_info" 2>&1 | grep -i -E 'MCA pml|ucx'
} >"$work/machine.txt" 2>&1
cat "$work/machine.txt"

maps() {  # <driver> <file>: which Open MPI, PMIx and UCX one running rank mapped (once)
  local p i m
  for ((i = 0; i < 40; ++i)); do
    sleep 0.5
    p=$(pgrep -n -f "apps/$1_resizable") || continue
    m=$(grep -o -E '/[^ ]*(libmpi\.so|libopen-pal|mca_pml_[a-z]+|libucp|libuct[a-z_]*|libpmix|libscalapack|libopenblas)[^ ]*' \
      "/proc/$p/maps" 2>/dev/null | sort -u)
    [[ $m == *mca_pml_* ]] && { echo "$m" >"$work/$2"; return; }
  done
}
ucx=(-x BLACS_DYN_PML=ucx)

# Preflight: a small growth under UCX; if it fails, the reason is recorded and nothing else runs.
maps pdgetrf maps_ucx.txt &
if ! grow preflight pdgetrf 1000 1 "${ucx[@]}"; then
  log "UCX growth failed: the PML's own account follows (preflight_verbose.log)"
  run preflight_verbose 40 --bind-to none -n 1 --mca pml_base_verbose 100 --mca pml_ucx_verbose 100 \
    --mca mca_base_component_show_load_errors 1 "${ucx[@]}" "$build/apps/pdgetrf_resizable" -n 400 --nb 64 -g 1x1 -i 1 \
    --no-check -q
  ldd "$L/openmpi/lib/openmpi3/mca_pml_ucx.so" >"$work/ldd_pml_ucx.txt" 2>&1
  wait; pack; exit 1
fi
wait
log "preflight ok: $(grep -c . "$work/maps_ucx.txt" 2>/dev/null) libraries mapped (maps_ucx.txt)"
# the same growth with UCX's shared-memory transports alone: it grows only if the old and the
# new processes reach each other through shared memory (tests/blacs-dyn/runtime/spawn_shm.sh's check)
grow preflight_shm pdgetrf 1000 1 "${ucx[@]}" -x UCX_TLS=self,sm && log "preflight with UCX_TLS=self,sm ok"

for spec in "pdgetrf ${LU_N:-8000}" "pdgemm ${GEMM_N:-6000}"; do
  read -r d n <<<"$spec"
  for ((r = 1; r <= rounds; ++r)); do
    if ((r % 2)); then grow ucx "$d" "$n" "$r" "${ucx[@]}"; fresh ucx "$d" "$n" "$r" "${ucx[@]}"
    else fresh ucx "$d" "$n" "$r" "${ucx[@]}"; grow ucx "$d" "$n" "$r" "${ucx[@]}"; fi
  done
done
# the reference a user gets by default: started on 4x4 under ob1 (vader), while time is left
maps pdgetrf maps_ob1.txt &
for spec in "pdgetrf ${LU_N:-8000}" "pdgemm ${GEMM_N:-6000}"; do
  read -r d n <<<"$spec"
  for ((r = 1; r <= rounds; ++r)); do fresh ob1 "$d" "$n" "$r"; done
done
wait
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/machine.txt"
pack
log "done"
}

#@case respawn
# Respawn and merge against a fresh job, redist against COSTA and the node's copy bound, in
# one call of a lent 16-core machine (../shared/device/pack.sh's runtime and build unpacked
# at their absolute paths by .device/unpack.sh; run from the checkout's root;
# docs/measurements/respawn.md "On 16 cores: the prepared run"):
#   copy     the node's copy bandwidth: node_copy in scripts/bench/probes.c (STREAM's Copy, one array
#            per rank) on RANKS ranks (default 16) bound to cores, COPY_MIB MiB a rank;
#   growth   PDGETRF (N = 8,000) and PDGEMM (N = 6,000), block 64, started on 2x2 and grown
#            to 4x4 after iteration 1 with RESIZE_RECONFIGURE=respawn and with =merge,
#            against the driver started on 4x4; ROUNDS rounds, the arms' order rotating
#            (device16_lib's grow and fresh: --bind-to none, GROW_ITERS iterations,
#            default 5, the fresh job one less; RESIZE_HISTORY=off: no arm predicts from
#            another's);
#   redist   malleable-redist-bench redist --shapes over device16_shapes' 16 cases (REDIST_NS,
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
#   scripts/bench/device16.sh respawn [BUILD_DIR] [ROUNDS]
# PREPARE=1 (on the machine that packs, before pack.sh): compile node_copy into
# BUILD/bench/node_copy and, with COSTA=DIR (a COSTA build made outside this repository:
# docs/measurements/redist.md "Comparing with COSTA"), BUILD/redist/costa_native.so; then exit.
# Overrides for a quick check: GEMM_N, LU_N, NB, FROM, TO, REDIST_NS, REDIST_REPS, RANKS,
# COPY_MIB, GROW_ITERS, BIND (default core; none where RANKS passes the cores).
case_respawn() {
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
  mpicc -std=c11 -O2 -DPROBE_NODE_COPY -o "$build/bench/node_copy" "$here/probes.c" || exit 1
  echo "built $build/bench/node_copy"
  if [[ -n ${COSTA:-} ]]; then
    . "$here/redist.sh" && lib_costa_native  # costa_native (redist.sh sourced: its functions only)
    costa_native "$(cd "$COSTA" && pwd)" "$build" "$(cd "$here/../.." && pwd)" || exit 1
  fi
  exit 0
fi
# log, pack, run (budget), grow and fresh
lib_device16_lib

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
lib_device16_shapes
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
}

#@lib device16_lib
# Called by the cases run on a lent 16-core machine in one call of limited time
# (device16.sh ucx, device16.sh respawn): the records go to WORK, packed into OUT/records.tar
# after every run, so that what a cut-off call leaves still comes back. The caller sets
#   out, work   (folders; created here), budget (seconds, 0: none), t0 (=$SECONDS at start),
#   mpiexec     (the launcher; default mpiexec), build (the build folder).
# BUDGET: a run is started only while budget - (elapsed + 35) s is left, and its own timeout
# is cut to what is left less 20 s, so that the call ends with its records packed.
lib_device16_lib() {
mpiexec=${mpiexec:-mpiexec}
mkdir -p "$out" "$work"
log() { echo "$(date -u +%T) +$((SECONDS - t0))s $*" | tee -a "$work/progress.txt"; }
pack() { tar -cf "$out/records.tar.tmp" -C "$work" . && mv "$out/records.tar.tmp" "$out/records.tar"; }

run() {  # <file> <timeout_s> <mpiexec args...>: one mpiexec, its own timeout; 1 when skipped or failed
  local f=$1 lim=$2; shift 2
  if ((budget > 0 && SECONDS - t0 + 35 > budget)); then
    log "SKIPPED $f (budget)"; echo "SKIPPED $f" >>"$work/failures.txt"; return 1
  fi
  ((budget > 0 && lim > budget - (SECONDS - t0) - 20)) && lim=$((budget - (SECONDS - t0) - 20))
  log "start $f"
  local rc=0
  timeout "$lim" "$mpiexec" --oversubscribe "$@" >"$work/$f.log" 2>&1 || rc=$?
  if ((rc)); then
    log "FAILED $f rc=$rc"; echo "FAILED $f rc=$rc" >>"$work/failures.txt"; tail -15 "$work/$f.log"
  fi
  pack
  return $rc
}

# The growth of device16.sh run: a driver started on FROM (default 2x2) grown to TO (default 4x4)
# after iteration 1, GROW_ITERS iterations in all (default 6), against the driver started
# on TO for one iteration less (all --bind-to none: a spawned job's ranks would be bound
# over the parent's cores).
grow() {  # <tag> <driver> <N> <round> [mpiexec args...]
  local tag=$1 d=$2 n=$3 r=$4 from=${FROM:-2x2} to=${TO:-4x4}; shift 4
  run "${tag}_${d}_grow.$r" "${GROW_TIMEOUT:-90}" --bind-to none -n $((${from%x*} * ${from#*x})) "$@" \
    "$build/apps/${d}_resizable" -n "$n" --nb "${NB:-64}" -g "$from" -i "${GROW_ITERS:-6}" \
    -p scripted -s "1:expand:$to" --no-check -q --json "$work/${tag}_${d}_grow.$r.json"
}
fresh() {  # <tag> <driver> <N> <round> [mpiexec args...]
  local tag=$1 d=$2 n=$3 r=$4 to=${TO:-4x4}; shift 4
  run "${tag}_${d}_fresh.$r" "${FRESH_TIMEOUT:-60}" --bind-to none -n $((${to%x*} * ${to#*x})) "$@" \
    "$build/apps/${d}_resizable" -n "$n" --nb "${NB:-64}" -g "$to" -i "$((${GROW_ITERS:-6} - 1))" \
    --no-check -q --json "$work/${tag}_${d}_fresh.$r.json"
}
}

#@lib device16_shapes
# Called by the cases run and ab: the 16-core redist cases, 8 grid changes (block
# 64 unless named) at each order of REDIST_NS (default 4,000 and 8,000), into the array shapes.
lib_device16_shapes() {
shapes=()
for n in ${REDIST_NS:-4000 8000}; do
  shapes+=("${n}x${n}:64x64@1x2:64x64@2x1" "${n}x${n}:64x64@1x2:64x64@2x2" "${n}x${n}:64x64@2x4:64x64@4x2"
           "${n}x${n}:64x64@2x2:64x64@3x3" "${n}x${n}:64x64@3x3:100x100@3x3" "${n}x${n}:64x64@3x3:64x64@3x4"
           "${n}x${n}:64x64@3x3:64x64@4x4" "${n}x${n}:64x64@4x4:64x64@2x2")
done
}

# Run, the case named; sourced (device16.sh respawn sources redist.sh for costa_native), the functions only.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then bench_main "$0" "$@"; fi
