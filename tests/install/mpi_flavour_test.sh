#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The MPI flavours side by side (docs/mpi-flavours.md), for the build given:
#   - ldd: its libraries load the flavour's MPI (MPICH: libmpich, no libmpi.so.40; Open
#     MPI: libmpi.so.40, no libmpich), in the build tree and once installed;
#   - the install layout: Open MPI's libraries in lib/, MPICH's in lib/malleable-mpich/,
#     each pkg-config file saying malleable_MPI;
#   - find_package(malleable) from a C project on the same MPI configures, builds and runs;
#     on the other MPI it is refused with a message naming both MPIs;
#   - with OTHER_BUILD (the other flavour's build folder) installed into the same prefix:
#     both pkg-config files and packages coexist, and each MPI's consumer gets its own.
# Usage: mpi_flavour_test.sh <build-dir> <source-dir> <openmpi|mpich> [OTHER_BUILD]
set -euo pipefail
build=$1 src=$2 flavour=$3 other=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
prefix=$work/prefix
fail() { echo "mpi_flavour_test: FAILED: $*" >&2; exit 1; }
other_flavour() { [[ $1 == mpich ]] && echo openmpi || echo mpich; }
mpicc_of() { [[ $1 == mpich ]] && echo /usr/bin/mpicc.mpich || echo /usr/bin/mpicc.openmpi; }
mpiexec_of() { [[ $1 == mpich ]] && echo /usr/bin/mpiexec.mpich || echo /usr/bin/mpiexec.openmpi; }
libdir_of() { [[ $1 == mpich ]] && echo "$prefix/lib/malleable-mpich" || echo "$prefix/lib"; }
pc_of() { [[ $1 == mpich ]] && echo malleable-mpich || echo malleable; }

check_ldd() {  # <flavour> <root> <library or program>...: MPI of the flavour, project libraries under root
  local fl=$1 root=$2 f deps
  shift 2
  for f in "$@"; do
    deps=$(ldd "$f")
    if grep -q "not found" <<<"$deps"; then echo "$deps" >&2; fail "$f has unresolved libraries"; fi
    if [[ $fl == mpich ]]; then
      grep -q 'libmpich\.so' <<<"$deps" || fail "$f does not load libmpich"
      ! grep -q 'libmpi\.so\.40' <<<"$deps" || fail "$f (MPICH flavour) loads Open MPI's libmpi.so.40"
    else
      grep -q 'libmpi\.so\.40' <<<"$deps" || fail "$f does not load Open MPI's libmpi.so.40"
      ! grep -q 'libmpich' <<<"$deps" || fail "$f (Open MPI flavour) loads libmpich"
    fi
    # The project's own libraries come from the tree checked (the build, or the flavour's libdir).
    while read -r lib path; do
      [[ $(readlink -f "$path") == "$root"/* ]] || fail "$f loads $lib from $path, outside $root"
    done < <(awk '/libmalleable_/ && $3 ~ /^\// {print $1, $3}' <<<"$deps")
  done
  echo "ldd ($fl): $# file(s) load only $fl"
}

mapfile -t built < <(find "$build" -name 'libmalleable_*.so' -not -path '*/CMakeFiles/*' | sort)
((${#built[@]})) || fail "no libmalleable_*.so in $build"
check_ldd "$flavour" "$(readlink -f "$build")" "${built[@]}"

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(libdir_of "$flavour")
mapfile -t installed < <(find "$libdir" -maxdepth 1 -name 'libmalleable_*.so' | sort)
((${#installed[@]})) || fail "no libmalleable_*.so in $libdir"
check_ldd "$flavour" "$libdir" "${installed[@]}"
got=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=malleable_MPI "$(pc_of "$flavour")")
[[ $got == "$flavour" ]] || fail "$(pc_of "$flavour").pc says malleable_MPI=$got, not $flavour"
echo "pkg-config: $(pc_of "$flavour").pc says malleable_MPI=$got"

consumer() {  # <name> <mpi flavour of the consumer>: configure, build, run; output in $work/<name>.log
  local name=$1 fl=$2
  cmake -S "$src/tests/install/flavour_consumer" -B "$work/$name" -DCMAKE_PREFIX_PATH="$prefix" \
    -DMPI_C_COMPILER="$(mpicc_of "$fl")" >"$work/$name.log" 2>&1 || return 1
  cmake --build "$work/$name" >>"$work/$name.log" 2>&1 || fail "build of the $fl consumer ($name): $(cat "$work/$name.log")"
  check_ldd "$fl" "$(libdir_of "$fl")" "$work/$name/flavour_consumer"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 "$(mpiexec_of "$fl")" -n 1 \
    "$work/$name/flavour_consumer" >>"$work/$name.log" 2>&1 || fail "the $fl consumer does not run: $(cat "$work/$name.log")"
  grep -q "malleable_MPI=$fl" "$work/$name.log" || fail "the $fl consumer got another flavour: $(cat "$work/$name.log")"
}

consumer same "$flavour" || fail "a $flavour consumer cannot use the $flavour build: $(cat "$work/same.log")"
echo "find_package: a $flavour consumer builds and runs"
wrong=$(other_flavour "$flavour")
if consumer wrong "$wrong"; then fail "a $wrong consumer accepted the $flavour build"; fi
grep -q "built for $flavour; this project uses $wrong" "$work/wrong.log" ||
  { cat "$work/wrong.log" >&2; fail "the refusal does not name both MPIs"; }
echo "find_package: a $wrong consumer is refused: $(grep -o "built for $flavour; this project uses $wrong" "$work/wrong.log")"

if [[ -n $other && -f $other/CMakeCache.txt ]]; then
  cmake --install "$other" --prefix "$prefix" >/dev/null
  mapfile -t theirs < <(find "$(libdir_of "$wrong")" -maxdepth 1 -name 'libmalleable_*.so' | sort)
  ((${#theirs[@]})) || fail "the $wrong build installed no libraries in $(libdir_of "$wrong")"
  check_ldd "$wrong" "$(libdir_of "$wrong")" "${theirs[@]}"
  check_ldd "$flavour" "$libdir" "${installed[@]}"
  for fl in "$flavour" "$wrong"; do
    got=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=malleable_MPI "$(pc_of "$fl")")
    [[ $got == "$fl" ]] || fail "side by side: $(pc_of "$fl").pc says malleable_MPI=$got"
    rm -rf "$work/side_$fl"
    consumer "side_$fl" "$fl" || fail "side by side: the $fl consumer is refused: $(cat "$work/side_$fl.log")"
  done
  echo "side by side: both flavours in one prefix, each consumer gets its own"
else
  echo "side by side: not checked (no other flavour's build given)"
fi
echo PASS
