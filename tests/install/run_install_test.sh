#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds programs against it from
# outside the source tree as users do, and runs each under MPI with no LD_LIBRARY_PATH
# and no run path of their own:
#   - consumer/: C++, C and Fortran through find_package (redist, gridmap, blacs-dyn);
#   - session_cxx/: a LANGUAGES CXX-only resize session program (spawns a copy of
#     itself, so the installed program must find the libraries alone), with CMake and
#     with mpicxx + pkg-config; its Session is destroyed after MPI_Finalize;
#   - session_fortran/: a LANGUAGES Fortran-only project building the installed example
#     share/malleable/examples/pdgemv_fortran.f90, with CMake and with mpif90 + pkg-config;
#   - the README's manual link lines, extracted from README.md and run verbatim;
#   - release 0.3 dropped the 0.1 names: no compat headers, no libmall_* links;
#   - the layout: no test or example programs in bin/, user tools prefixed.
# Usage: run_install_test.sh <build-dir> <source-dir> <mpiexec> [consumer compile flags]
# (a sanitizer build passes -fsanitize=...: an application linking sanitized libraries
# must itself be built with the sanitizer runtime first)
set -euo pipefail
build=$1 src=$2 mpiexec=$3 flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
prefix=$work/prefix
run() { echo "+ $*" >&2; "$@"; }
mpirun() { run "$mpiexec" --oversubscribe --bind-to none "$@"; }
fail() { echo "install test: FAILED: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$prefix/lib
[[ -d $libdir ]] || fail "no $libdir"

# Layout: user tools in bin/ carry the malleable- prefix; nothing else is there.
for f in "$prefix"/bin/*; do
  [[ -e $f ]] || continue
  [[ $(basename "$f") == malleable-* ]] || fail "bin/ holds $(basename "$f"), not a prefixed user tool"
done
[[ -f $prefix/share/malleable/examples/pdgemv_fortran.f90 ]] || fail "examples not under share/malleable/examples"
[[ -f $prefix/include/malleable/fortran/malleable_resize.f90 ]] || fail "Fortran module sources not installed"
# Installed libraries find their siblings by themselves.
for lib in "$libdir"/libmalleable_*.so; do
  if ldd "$lib" | grep -q "not found"; then ldd "$lib" >&2; fail "$(basename "$lib") has unresolved libraries"; fi
done

cmake_app() {  # <name> <source dir> [cmake args]
  local name=$1 dir=$2
  shift 2
  cmake -S "$dir" -B "$work/$name" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_Fortran_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; fail "configure $name"; }
  cmake --build "$work/$name" >>"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; fail "build $name"; }
}

cmake_app consumer "$src/tests/install/consumer"
mpirun -n 4 "$work/consumer/consumer"
mpirun -n 2 "$work/consumer/consumer_f"

cmake_app session_cxx "$src/tests/install/session_cxx"
mpirun -n 2 "$work/session_cxx/session_cxx"
cmake_app session_fortran "$src/tests/install/session_fortran" \
  -DEXAMPLE_SOURCE="$prefix/share/malleable/examples/pdgemv_fortran.f90"
mpirun -n 4 "$work/session_fortran/session_fortran" 200 5 '2:expand:2x3,4:shrink:2x2'

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046,SC2086
run mpicxx -std=c++20 $flags -o "$work/pc_session_cxx" "$src/tests/install/session_cxx/session_cxx.cpp" \
  $(pkg-config --cflags --libs malleable)
mpirun -n 2 "$work/pc_session_cxx"
# shellcheck disable=SC2046,SC2086
run mpif90 $flags -o "$work/pc_session_f" "$prefix/share/malleable/examples/pdgemv_fortran.f90" \
  $(pkg-config --cflags --libs malleable-fortran)
mpirun -n 4 "$work/pc_session_f" 200 4 '2:expand:2x3,3:shrink:2x2'
# shellcheck disable=SC2046,SC2086
run mpicc $flags -o "$work/pc-app" "$src/tests/install/consumer/consumer_c.c" $(pkg-config --cflags --libs malleable)
mpirun -n 2 "$work/pc-app"

# The README's link lines, verbatim: every line of a shell block marked
# <!-- install-test: link lines --> that starts with mpicc/mpicxx/mpif90. A user with the
# prefix outside the default paths tells the compiler and linker where it is (README).
mkdir -p "$work/readme" && cp "$src"/tests/install/link_lines/app.* "$work/readme/"
lines=$(awk '/<!-- install-test: link lines -->/{armed=1; next} armed && /^```/{inblock=!inblock; if (!inblock) armed=0; next} armed && inblock && /^(mpicc|mpicxx|mpif90) /' "$src/README.md")
[[ -n $lines ]] || fail "no marked link lines in README.md"
(
  cd "$work/readme"
  export LIBRARY_PATH=$libdir CPATH=$prefix/include LD_RUN_PATH=$libdir
  # mpicc/mpif90 take extra flags from the environment (sanitizer runtime)
  export OMPI_CFLAGS="$flags" OMPI_FCFLAGS="$flags" OMPI_LDFLAGS="$flags"
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    rm -f a.out
    run bash -c "$line"
    mv a.out "app$n"
    [[ $line == mpif90* ]] && np=3 || np=2
    mpirun -n "$np" "./app$n"
  done <<<"$lines"
)

[[ -e $libdir/libmall_resize.so ]] && fail "release 0.3 dropped the 0.1 library name libmall_resize.so, yet it is installed"
[[ -e $prefix/include/malleable/compat ]] && fail "release 0.3 dropped the 0.1 compat headers, yet they are installed"
echo "install test: find_package (C++, C, Fortran; C++-only and Fortran-only session programs), pkg-config and README link lines all built and ran; no 0.1 names installed"
