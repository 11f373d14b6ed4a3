#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the build tree into a scratch prefix, then builds programs against it from
# outside the source tree as users do, and runs each under MPI with no LD_LIBRARY_PATH
# and no run path of their own:
#   - consumer/: C++, C and Fortran through find_package (redist, gridmap, blacs-dyn);
#   - session_cxx/: a LANGUAGES CXX-only resize session program (spawns a copy of
#     itself, so the installed program must find the libraries alone), with CMake and
#     with mpicxx + pkg-config; its Session is destroyed after MPI_Finalize;
#   - session_fortran/: a LANGUAGES Fortran-only project building the installed example
#     share/malleable/examples/pdgemv_fortran.f90, with CMake and with mpif90 + pkg-config;
#   - the porting guide's three malleable programs (C++, C, Fortran), from a copy of the
#     installed share/malleable/examples/porting/ with the CMakeLists.txt installed beside
#     them (README "Your own program"), each through an expansion and a shrink;
#   - the user guide's manual link lines, extracted from docs/guide/README.md and run verbatim;
#   - every documented LD_PRELOAD command (lines `mpiexec -x LD_PRELOAD=...` in README.md
#     and docs/*/*.md), run verbatim with the prefix's bin/ on PATH against an unmodified
#     ScaLAPACK program, and the library's own line shows it was really in use;
#   - malleable-config answers from the prefix it sits in;
#   - the CMake package defines only public targets, and the installed examples'
#     CMake project builds with them alone;
#   - release 0.3 dropped the 0.1 names: no compat headers, no libmall_* links;
#   - the layout: no test or example programs in bin/, user tools prefixed;
#   - only the public headers (tests/install/installed_headers.txt), compiling on their own.
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
  if grep -q "not found" <<<"$(ldd "$lib")"; then ldd "$lib" >&2; fail "$(basename "$lib") has unresolved libraries"; fi
done

# Only the public API is installed: the files under include/ are exactly those listed in
# tests/install/installed_headers.txt (headers only the library and its tests use stay in
# the parts' src/), and together they compile with the prefix alone (no installed header
# needs one that is not installed).
listed=$(grep -v '^#' "$src/tests/install/installed_headers.txt")
installed=$(cd "$prefix/include" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
if [[ $listed != "$installed" ]]; then
  diff <(echo "$listed") <(echo "$installed") >&2 || true
  fail "the installed headers differ from tests/install/installed_headers.txt (< listed only, > installed only)"
fi
(cd "$prefix/include" && find malleable -name '*.h' -o -name '*.hpp' | LC_ALL=C sort | sed 's|.*|#include <&>|') |
  "${MPICXX:-mpicxx}" -std=c++20 -fsyntax-only -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1 -I"$prefix/include" -x c++ - ||
  fail "the installed headers do not compile with the prefix alone"

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

# The porting programs as a user builds them: the installed folder copied out, its own
# CMakeLists.txt, find_package(malleable) with the prefix alone.
porting=$prefix/share/malleable/examples/porting
[[ -f $porting/CMakeLists.txt ]] || fail "no CMakeLists.txt installed beside the porting sources"
cp -r "$porting" "$work/porting_src"
cmake_app porting "$work/porting_src"
for lang in cxx c f; do
  out=$(mpirun -n 4 "$work/porting/malleable_$lang" 3:expand:2x3,6:shrink:2x2 2>&1) || { echo "$out" >&2; fail "porting malleable_$lang"; }
  grep -Eiq "result check: max error +[0-9.e+-]+ \(tol 1e-12\): OK" <<<"$out" || { echo "$out" >&2; fail "porting malleable_$lang: no passing result check"; }
  grep -Eq "^ +3  2x2->2x3 " <<<"$out" || { echo "$out" >&2; fail "porting malleable_$lang: no expansion in the summary"; }
  echo "porting malleable_$lang: built from the installed prefix, result check OK through an expansion and a shrink"
done

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

# The user guide's link lines, verbatim: every line of a shell block marked
# <!-- install-test: link lines --> that starts with mpicc/mpicxx/mpif90. A user with the
# prefix outside the default paths tells the compiler and linker where it is (README).
mkdir -p "$work/readme" && cp "$src"/tests/install/link_lines/app.* "$work/readme/"
lines=$(awk '/<!-- install-test: link lines -->/{armed=1; next} armed && /^```/{inblock=!inblock; if (!inblock) armed=0; next} armed && inblock && /^(mpicc|mpicxx|mpif90) /' "$src/docs/guide/README.md")
[[ -n $lines ]] || fail "no marked link lines in docs/guide/README.md"
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

# malleable-config, from the prefix it is installed in.
cfg=$prefix/bin/malleable-config
[[ $("$cfg" --prefix) == "$prefix" ]] || fail "malleable-config --prefix says $("$cfg" --prefix), not $prefix"
[[ $("$cfg" --preload blacs_dyn) == "$libdir/libmalleable_blacs_dyn.so" ]] || fail "malleable-config --preload blacs_dyn: $("$cfg" --preload blacs_dyn)"
[[ $("$cfg" --preload gemr2d) == "$libdir/libmalleable_redist_gemr2d.so" ]] || fail "malleable-config --preload gemr2d"
version=$(sed -n 's/^project(malleable VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[[ $("$cfg" --version) == "$version" ]] || fail "malleable-config --version says $("$cfg" --version), CMakeLists.txt $version"
"$cfg" --preload nonsense >/dev/null 2>&1 && fail "malleable-config --preload nonsense must fail"
echo "malleable-config: --version $("$cfg" --version), --mpi $("$cfg" --mpi), --preload blacs_dyn $("$cfg" --preload blacs_dyn)"

# The documented preload commands, verbatim, against an unmodified ScaLAPACK program
# (./app: PDGEMM and PDGEMR2D, built without malleable).
mkdir -p "$work/preload"
run mpicc $flags -o "$work/preload/app" "$src/tests/install/link_lines/app.c" -lscalapack-openmpi -lopenblas
mapfile -t preloads < <(cd "$src" && grep -h '^mpiexec -x LD_PRELOAD=' README.md docs/*/*.md)
[[ ${#preloads[@]} -ge 4 ]] || fail "expected the documented preload commands (guide.md x2, blacs-dyn.md, redist.md), found ${#preloads[@]}"
bare=$(cd "$src" && grep -n 'LD_PRELOAD=lib' README.md docs/*/*.md || true)
[[ -z $bare ]] || fail "a document preloads a bare library name (ignored outside the loader's paths): $bare"
(
  cd "$work/preload"
  export PATH="$prefix/bin:$PATH" OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_rmaps_base_oversubscribe=1
  for line in "${preloads[@]}"; do
    echo "+ $line" >&2
    out=$(bash -c "$line" 2>&1) || { echo "$out" >&2; fail "documented command failed: $line"; }
    grep -q "PDGEMM and PDGEMR2D on 4 processes, max error 0" <<<"$out" || { echo "$out" >&2; fail "the program did not run right: $line"; }
    case $line in
      *"--preload blacs_dyn"*) want="blacs-dyn: active ($libdir/libmalleable_blacs_dyn.so), world of 4 processes" ;;
      *"--preload gemr2d"*) want="Cpdgemr2d served by malleable redist" ;;
      *) fail "unknown preload in: $line" ;;
    esac
    grep -qF "$want" <<<"$out" || { echo "$out" >&2; fail "not in use (no '$want'): $line"; }
    echo "$out" | grep -F "$want" | head -1
  done
  # The trap the full path avoids: a bare name is ignored and the job runs stock.
  out=$(mpiexec -x LD_PRELOAD=libmalleable_blacs_dyn.so -x BLACS_DYN_VERBOSE=1 -n 4 ./app 2>&1) || true
  grep -q "blacs-dyn: active" <<<"$out" && fail "control: a bare library name should not have been preloaded here"
  echo "control: a bare LD_PRELOAD=libmalleable_blacs_dyn.so is ignored: $(echo "$out" | grep -m1 -o 'cannot be preloaded[^)]*)' || echo 'no blacs-dyn line')"
)

# Only public targets: nothing of the project's helpers reaches consumers.
targets=$(grep -ho 'add_library([^ ]*' "$prefix"/lib/cmake/malleable/malleableTargets.cmake | sed 's/add_library(//' | sort | tr '\n' ' ')
echo "exported targets: $targets"
for t in $targets; do
  [[ $t =~ ^malleable::(blacs_dyn|redist|redist_plan|gridmap|cluster|resize|redist_fortran|gridmap_fortran|resize_fortran|redist_gemr2d|resize_meter)$ ]] ||
    fail "the CMake package exports $t, which is not a public target"
done
grep -q 'mall::' "$prefix"/lib/cmake/malleable/*.cmake && fail "the CMake package mentions a mall:: helper target"
cmake_app examples "$prefix/share/malleable/examples"
mpirun -n 4 "$work/examples/pdgemm_c" 120 3 2:shrink:1x2

[[ -e $libdir/libmall_resize.so ]] && fail "release 0.3 dropped the 0.1 library name libmall_resize.so, yet it is installed"
[[ -e $prefix/include/malleable/compat ]] && fail "release 0.3 dropped the 0.1 compat headers, yet they are installed"
echo "install test: find_package (C++, C, Fortran; the three porting programs; C++-only and Fortran-only session programs; the installed examples), pkg-config, the guide's link lines and ${#preloads[@]} documented preload commands all built and ran; only public targets and the $(wc -l <<<"$listed") listed headers; no 0.1 names installed"
