#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Idempotent set-up: installs the missing Debian packages (apt-get update once, only when
# something is missing), configures and builds into build/ (Release, -Wall -Wextra).
# Environment: BUILD_DIR (default build), MALL_SANITIZE=1 for the ASan+UBSan build
# (default dir build-asan), CMAKE_ARGS for extra configure flags, JOBS (default nproc).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

packages=(g++ gfortran make cmake pkg-config python3
  libopenmpi-dev openmpi-bin libscalapack-openmpi-dev libopenblas-dev liblapacke-dev
  libgtest-dev nlohmann-json3-dev libcli11-dev gnuplot-nox
  # SimGrid's SMPI (smpicxx, smpirun): redist_sim, tests labelled simulated (docs/measurements/scale.md, "Simulated at 256-4,096 processes")
  libsimgrid-dev
  # checkpoint/restart: parallel HDF5 (MPI-IO driver) for Open MPI
  libhdf5-openmpi-dev
  # h5dump: tests read checkpoints with HDF5's own reader
  hdf5-tools
  # the combination suite's pairwise generator (tests/combinations/combinations.py)
  python3-allpairspy
  # the MPICH flavour (-DMALLEABLE_MPI=mpich, build-mpich; docs/guide/mpi-flavours.md), beside
  # Open MPI, which stays the system's default MPI (update-alternatives)
  libmpich-dev mpich libscalapack-mpich-dev libhdf5-mpich-dev
  # Debian's ScaLAPACK testers, run with blacs-dyn preloaded (test blacs_dyn.stock_testers_preloaded)
  scalapack-mpi-test
  # Debian packages of malleable (cpack, test install.deb_packages): dpkg-shlibdeps, file
  dpkg-dev file
  # the emulated cluster and its Slurm (scripts/cluster.sh, tests labelled cluster)
  iproute2 util-linux bc slurmctld slurmd slurm-client munge
  # its accounting (a job may change size more than once only with slurmdbd): started by
  # cluster.sh inside the cluster, never as the machine's services
  slurmdbd mariadb-server
  # a compiler cache: a second build of the same sources (another clone, CI after a session)
  # compiles only what changed; a fresh machine's first build gains nothing from it
  ccache
  # the arbiter daemon (malleable-arbiterd) authenticates requests with MUNGE (munge_decode)
  libmunge-dev
  # growing by joining proves the job's secret with HMAC-SHA256 (OpenSSL's libcrypto)
  libssl-dev)

missing=()
for p in "${packages[@]}"; do
  if ! grep -q "install ok installed" <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing missing packages: ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "setup: not root and no sudo; as root run: apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

sanitize=OFF
default_dir=build
if [[ "${MALL_SANITIZE:-0}" == 1 ]]; then
  sanitize=ON
  default_dir=build-asan
fi
build_dir=${BUILD_DIR:-$default_dir}
build_type=${BUILD_TYPE:-Release}
[[ $sanitize == ON ]] && build_type=${BUILD_TYPE:-RelWithDebInfo}

launcher=()
if command -v ccache >/dev/null && [[ "${MALL_CCACHE:-1}" == 1 ]]; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
            -DCMAKE_Fortran_COMPILER_LAUNCHER=ccache)
  # paths below the checkout are hashed relative to it: a clone in another folder hits
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$here}
fi
# shellcheck disable=SC2086
if [[ ! -f "$build_dir/CMakeCache.txt" ]] || [[ -n "${CMAKE_ARGS:-}" ]]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" -DMALL_SANITIZE="$sanitize" \
    "${launcher[@]}" ${CMAKE_ARGS:-} >/dev/null
fi
# A first build takes long on a small machine (many minutes on 2 cores, much less with a
# warm compiler cache): say so, then print one progress line per 10% instead of make's
# line per file (warnings and errors still show). One counter: the main build's (the
# simulated build, redist/sim/build.cmake, logs its own steps to files, and a line of a
# lower percentage than one already printed, from make's parallel jobs, is not printed).
[[ -f "$build_dir/apps/pdgemm_resizable" ]] || echo "setup: building $build_dir (the first build takes a while; progress every 10%)"
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" 2>&1 | awk '
  BEGIN { next_p = 0 }
  /^-- redist_sim [a-z]+ command succeeded/ { next }
  /^\[ *[0-9]+%\]/ { p = $0; sub(/^\[ */, "", p); p = int(p)
                      if (p >= next_p) { printf "setup: build %d%%\n", p; fflush(); next_p = p - p % 10 + 10 } next }
  { print; fflush() }' || true
# awk condenses the progress lines; a failed build must still fail set-up.
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" >/dev/null
echo "setup: built $build_dir ($build_type, sanitizers $sanitize)"
