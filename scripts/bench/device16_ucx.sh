#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The growth part of scripts/bench/device16.sh with Open MPI's UCX PML (BLACS_DYN_PML=ucx,
# docs/reference/blacs-dyn.md "Old and new processes on one node"), on a lent 16-core machine:
# PDGETRF (N = 8,000) and PDGEMM (N = 6,000), block 64, started on 2x2 and grown to 4x4 by
# spawn after iteration 1, against the same driver started on 4x4, both under UCX, ROUNDS
# rounds each, the order alternating (all --bind-to none, as in device16.sh); then, while
# time is left, the job started on 4x4 under Open MPI's default PML (ob1) as a reference.
#
# Debian's Open MPI is used whole, not the machine's own: ../shared/device/pack.sh's
# .device/rt.tar.xz is unpacked into DEB_ROOT (default /opt/debmpi, not over /) and run from
# there (OPAL_DESTDIR; PMIx, UCX and hwloc told their component folders), so that Debian's
# mca_pml_ucx and UCX's shared-memory transports are the ones loaded; .device/bin.tar.xz (the
# build) is unpacked at its absolute paths when BUILD_DIR lacks the drivers.
#   scripts/bench/device16_ucx.sh [BUILD_DIR] [ROUNDS]
# Records (JSON and logs) go to WORK (default OUT/records), packed after every run into
# OUT/records.tar (default OUT: docs/data/device16/ucx); BUDGET_S > 0 starts no run after
# that many seconds less 35; GEMM_N, LU_N override the orders for a quick check. The table:
# scripts/bench/device16_report.py --ucx DIR (DIR holding the records, or records.tar).
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
# shellcheck source=device16_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/device16_lib.sh"

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
