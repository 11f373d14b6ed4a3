# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the redistribution benches that time COSTA through its own API
# (costa::block_cyclic_layout + costa::transform, redist/bench/costa_native.cpp).
# costa_native <costa build dir> <our build dir> <our source dir>: compiles that shim against
# the user's COSTA build (headers from the source tree its CMake cache names, or an install
# tree's include/) and prints the shared object's path.
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
