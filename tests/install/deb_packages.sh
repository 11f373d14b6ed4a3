#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages (cmake/MalleablePackaging.cmake): cpack builds libmalleable0,
# libmalleable-dev and malleable-tools from the build tree; each carries the Debian
# dependencies its files need (dpkg-deb -I); together they hold exactly what
# `cmake --install` installs; extracted with dpkg -x into a scratch root (no root
# rights, no dpkg database), a C++ session program builds against <root>/usr with CMake
# and with pkg-config and runs under MPI, and malleable-config and a driver from the
# tools package answer from there.
# Usage: deb_packages.sh <build-dir> <source-dir> <mpiexec>
set -euo pipefail
build=$1 src=$2 mpiexec=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
fail() { echo "deb packages: FAILED: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v $tool >/dev/null || fail "$tool not found (scripts/setup.sh installs dpkg-dev)"
done
version=$(sed -n 's/^project(malleable VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")

start=$(date +%s)
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack"; }
echo "cpack: $(($(date +%s) - start)) s"
declare -A deb
for p in libmalleable0 libmalleable-dev malleable-tools; do
  deb[$p]=$(ls "$work"/pkg/${p}_${version}_*.deb 2>/dev/null | head -1)
  [[ -n ${deb[$p]} ]] || { ls "$work/pkg" >&2; fail "no ${p}_${version}_*.deb"; }
done

depends() { dpkg-deb -f "$1" Depends; }
for p in libmalleable0 libmalleable-dev malleable-tools; do
  echo "$p: $(dpkg-deb -f "${deb[$p]}" Package) $(dpkg-deb -f "${deb[$p]}" Version) $(dpkg-deb -f "${deb[$p]}" Architecture), $(du -k "${deb[$p]}" | cut -f1) KiB"
  echo "  Depends: $(depends "${deb[$p]}")"
done
need() {  # need <package> <dependency> ...
  local p=$1 d
  shift
  for d in "$@"; do
    grep -q "^$d\b" <<<"$(depends "${deb[$p]}" | tr ',' '\n' | sed 's/^ *//')" || fail "$p does not depend on $d: $(depends "${deb[$p]}")"
  done
}
need libmalleable0 libopenmpi3 libscalapack-openmpi2.2 liblapacke libstdc++6 libgfortran5 libc6
need libmalleable-dev libmalleable0 libopenmpi-dev libscalapack-openmpi-dev libopenblas-dev liblapacke-dev
need malleable-tools libmalleable0 openmpi-bin python3
grep -q "libmalleable0 (= $version)" <<<"$(depends "${deb[libmalleable-dev]}")" || fail "libmalleable-dev must depend on libmalleable0 (= $version)"
# The BLAS: any package giving libopenblas.so.0 / libblas.so.3 will do.
grep -Eq 'libopenblas0|libblas3' <<<"$(depends "${deb[libmalleable0]}")" || fail "libmalleable0 has no BLAS dependency"

root=$work/root
for p in libmalleable0 libmalleable-dev malleable-tools; do dpkg -x "${deb[$p]}" "$root"; done
# The packages hold what `cmake --install` installs, no more, no less, each file once.
cmake --install "$build" --prefix "$work/ref" >/dev/null
(cd "$work/ref" && find . \( -type f -o -type l \) | sort) >"$work/ref.list"
(cd "$root/usr" && find . \( -type f -o -type l \) | sort) >"$work/deb.list"
diff "$work/ref.list" "$work/deb.list" >&2 || fail "the packages' files differ from cmake --install's (< install only, > packages only)"
for p in libmalleable0 libmalleable-dev malleable-tools; do dpkg-deb -c "${deb[$p]}" | awk '{print $NF}' | grep -v '/$'; done |
  sort | uniq -d >"$work/dups"
[[ ! -s $work/dups ]] || fail "files in two packages: $(cat "$work/dups")"
echo "packages: $(wc -l <"$work/deb.list") files, as cmake --install; runtime $(dpkg-deb -c "${deb[libmalleable0]}" | grep -c '\.so')" \
  "library files, dev $(dpkg-deb -c "${deb[libmalleable-dev]}" | grep -c '\.h\(pp\)\?$') headers"

# A consumer against the extracted root: CMake package and pkg-config, relocated.
prefix=$root/usr
cmake -S "$src/tests/install/session_cxx" -B "$work/cxx" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$work/cxx.log" 2>&1 && cmake --build "$work/cxx" >>"$work/cxx.log" 2>&1 || { cat "$work/cxx.log" >&2; fail "CMake consumer"; }
grep -q "$prefix/lib/libmalleable_resize.so" "$work/cxx/CMakeFiles/session_cxx.dir/link.txt" ||
  fail "the CMake consumer did not link the extracted root's library"
"$mpiexec" --oversubscribe --bind-to none -n 2 "$work/cxx/session_cxx" || fail "CMake consumer run"
# shellcheck disable=SC2046
PKG_CONFIG_PATH=$prefix/lib/pkgconfig mpicxx -std=c++20 -o "$work/pc" "$src/tests/install/session_cxx/session_cxx.cpp" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs malleable) || fail "pkg-config consumer build"
grep -q "libmalleable_resize.so.0 => $prefix/" <<<"$(ldd "$work/pc")" || { ldd "$work/pc" >&2; fail "pkg-config consumer does not load the extracted library"; }
"$mpiexec" --oversubscribe --bind-to none -n 2 "$work/pc" || fail "pkg-config consumer run"

# The tools package: malleable-config and a driver, answering from the root.
[[ $("$prefix/bin/malleable-config" --preload blacs_dyn) == "$prefix/lib/libmalleable_blacs_dyn.so" ]] ||
  fail "malleable-config --preload blacs_dyn: $("$prefix/bin/malleable-config" --preload blacs_dyn)"
# The launcher from the tools package: its usage, then a resize by restart 2x2 -> 1x3 -> 2x2
# of the packaged pdgemm driver (launches of 4, 3, 4 processes, result check OK).
[[ $("$prefix/bin/malleable-run" --help) == "usage: malleable-run "* ]] || fail "malleable-run --help: $("$prefix/bin/malleable-run" --help 2>&1 | head -3)"
run_out=$(MALLEABLE_MPIEXEC="$mpiexec --oversubscribe --bind-to none" timeout 200 "$prefix/bin/malleable-run" -n 4 -- \
          "$prefix/libexec/malleable/pdgemm_resizable" -n 120 --nb 16 -i 4 -p scripted -s 1:shrink:1x3,2:expand:2x2 \
          --mechanism restart --checkpoint "$work/ck" -q 2>&1) || fail "malleable-run from the package: $run_out"
[[ $(grep -o "^malleable-run: launch [0-9]*: [0-9]*" <<<"$run_out" | awk '{print $4}' | tr '\n' ' ') == "4 3 4 " ]] &&
  grep -q "result check: .*OK" <<<"$run_out" || fail "malleable-run from the package did not resize by restart 4 -> 3 -> 4: $run_out"
grep -q "malleable $version" <<<"$("$prefix/libexec/malleable/pdgemm_resizable" --version)" ||
  fail "pdgemm_resizable --version: $("$prefix/libexec/malleable/pdgemm_resizable" --version)"
echo "deb packages: built, dependencies checked, extracted and used: CMake and pkg-config consumers ran against $prefix; $("$prefix/libexec/malleable/pdgemm_resizable" --version)"
