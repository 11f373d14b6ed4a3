#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds two applications against
# it from outside the source tree - one with find_package(malleable), one with
# pkg-config - and runs them under MPI.
# Usage: run_install_test.sh <build-dir> <source-dir> <mpiexec> [consumer compile flags]
# (a sanitizer build passes -fsanitize=...: an application linking sanitized libraries
# must itself be built with the sanitizer runtime first)
set -euo pipefail
build=$1 src=$2 mpiexec=$3 flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/tests/install/consumer" -B "$work/cmake-app" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_Fortran_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/cmake-app" >/dev/null
"$mpiexec" --oversubscribe --bind-to none -n 4 "$work/cmake-app/consumer"
"$mpiexec" --oversubscribe --bind-to none -n 2 "$work/cmake-app/consumer_f"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig:${PKG_CONFIG_PATH:-}"
# shellcheck disable=SC2086
mpicc $flags -o "$work/pc-app" "$src/tests/install/consumer/consumer_c.c" \
  $(pkg-config --cflags --libs malleable) -Wl,-rpath,"$work/prefix/lib"
"$mpiexec" --oversubscribe --bind-to none -n 2 "$work/pc-app"
echo "install test: find_package (C++, Fortran) and pkg-config (C) consumers built and ran"
