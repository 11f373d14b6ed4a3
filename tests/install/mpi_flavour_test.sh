#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The MPI flavours side by side (docs/guide/mpi-flavours.md), for the build given:
#   - ldd: its libraries load the flavour's MPI (MPICH: libmpich, no libmpi.so.40; Open
#     MPI: libmpi.so.40, no libmpich), in the build tree and once installed; the pure ones
#     load none: the cluster component's (libmalleable_cluster), redist's planning library
#     (libmalleable_redist_plan) and gridmap (libmalleable_gridmap, _fortran) over it;
#   - installed alone: the layout (Open MPI's libraries in lib/, MPICH's in
#     lib/malleable-mpich/), each pkg-config file saying malleable_MPI, malleable-config
#     answering for the one flavour there (--preload blacs_dyn in the flavour's libdir,
#     used by a 4-rank ScaLAPACK program under that MPI), refusing the other;
#   - find_package(malleable) from a C project on the same MPI configures, builds and runs;
#     on the other MPI it is refused with a message naming both MPIs;
#   - with OTHER_BUILD (the other flavour's build folder) installed into the same prefix:
#     no file installed by both with different content; for each MPI a PBLAS program
#     (flavour_consumer.c) built by the documented lines of docs/guide/mpi-flavours.md (CMake
#     package, malleable-config, pkg-config; checked to be there verbatim) loads only its
#     MPI and runs 4 ranks as one world of 4 under its mpiexec; a project naming one MPI
#     and finding the other is refused with a message naming both.
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
    if [[ $(basename "$f") =~ ^libmalleable_(cluster|redist_plan|gridmap|gridmap_fortran)\.so ]]; then
      # The cluster component talks to the batch system, never to MPI; redist's planning
      # library and gridmap plan and place: no MPI at all.
      ! grep -qE 'libmpi\.so|libmpich' <<<"$deps" || fail "$f (a pure library) loads an MPI"
    elif [[ $fl == mpich ]]; then
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
cmake --install "$build" --prefix "$work/alone" >/dev/null
libdir=$(libdir_of "$flavour")
mapfile -t installed < <(find "$libdir" -maxdepth 1 -name 'libmalleable_*.so' | sort)
((${#installed[@]})) || fail "no libmalleable_*.so in $libdir"
check_ldd "$flavour" "$libdir" "${installed[@]}"
got=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=malleable_MPI "$(pc_of "$flavour")")
[[ $got == "$flavour" ]] || fail "$(pc_of "$flavour").pc says malleable_MPI=$got, not $flavour"
echo "pkg-config: $(pc_of "$flavour").pc says malleable_MPI=$got"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun_of() {  # <flavour> <np> <program> [args]: the flavour's launcher, oversubscribed
  local fl=$1 np=$2
  shift 2
  if [[ $fl == mpich ]]; then timeout 120 /usr/bin/mpiexec.mpich -bind-to none -n "$np" "$@"
  else timeout 120 /usr/bin/mpiexec.openmpi --oversubscribe --bind-to none -n "$np" "$@"; fi
}
one_world_of_4() {  # <log> <what>: rank 0's one line, one world of 4, right result
  local n
  n=$(grep -c '^flavour consumer: world of' "$1" || true)
  [[ $n == 1 ]] || fail "$2: $n 'world of' lines (4 separate worlds?): $(cat "$1")"
  grep -q '^flavour consumer: world of 4 processes, PDGEMM + redist_Cpdgemr2d max error 0,' "$1" ||
    fail "$2: not one world of 4 with the right result: $(cat "$1")"
}

consumer() {  # <name> <mpi flavour of the consumer> [cmake args]: configure, build, run 4 ranks; log $work/<name>.log
  local name=$1 fl=$2
  shift 2
  cmake -S "$src/tests/install/flavour_consumer" -B "$work/$name" -DCMAKE_PREFIX_PATH="$prefix" \
    "$@" >"$work/$name.log" 2>&1 || return 1
  cmake --build "$work/$name" >>"$work/$name.log" 2>&1 || fail "build of the $fl consumer ($name): $(cat "$work/$name.log")"
  check_ldd "$fl" "$(libdir_of "$fl")" "$work/$name/flavour_consumer"
  mpirun_of "$fl" 4 "$work/$name/flavour_consumer" >"$work/$name.run" 2>&1 ||
    fail "the $fl consumer ($name) does not run: $(cat "$work/$name.log" "$work/$name.run")"
  one_world_of_4 "$work/$name.run" "the $fl consumer ($name)"
  grep -q "malleable_MPI=$fl" "$work/$name.log" || fail "the $fl consumer got another flavour: $(cat "$work/$name.log")"
  echo "  $name: $(grep -o 'malleable_MPI=.*' "$work/$name.log"); $(cat "$work/$name.run")"
}

consumer same "$flavour" -DMPI_C_COMPILER="$(mpicc_of "$flavour")" ||
  fail "a $flavour consumer cannot use the $flavour build: $(cat "$work/same.log")"
echo "find_package: a $flavour consumer builds and runs"
wrong=$(other_flavour "$flavour")
if consumer wrong "$wrong" -DMPI_C_COMPILER="$(mpicc_of "$wrong")"; then fail "a $wrong consumer accepted the $flavour build"; fi
grep -q "built for $flavour; this project uses $wrong" "$work/wrong.log" ||
  { cat "$work/wrong.log" >&2; fail "the refusal does not name both MPIs"; }
echo "find_package: a $wrong consumer is refused: $(grep -o "built for $flavour; this project uses $wrong" "$work/wrong.log")"

# malleable-config with this flavour alone: its libdir, the other flavour refused.
cfg=$prefix/bin/malleable-config
[[ $("$cfg" --flavours) == "$flavour" ]] || fail "malleable-config --flavours: $("$cfg" --flavours), not $flavour"
pre=$("$cfg" --preload blacs_dyn) || fail "malleable-config --preload blacs_dyn fails with $flavour alone"
[[ $pre == "$libdir/libmalleable_blacs_dyn.so" && -f $pre ]] || fail "malleable-config --preload blacs_dyn: $pre, not $libdir/libmalleable_blacs_dyn.so"
[[ $("$cfg" --mpi "$flavour" --libdir) == "$libdir" ]] || fail "malleable-config --mpi $flavour --libdir: $("$cfg" --mpi "$flavour" --libdir)"
[[ $("$cfg" --mpi) == "$flavour "* ]] || fail "malleable-config --mpi says $("$cfg" --mpi)"
if out=$("$cfg" --mpi "$wrong" --libs 2>&1); then fail "malleable-config --mpi $wrong answered with only $flavour installed: $out"; fi
grep -q "the $wrong flavour is not installed.*installed: $flavour" <<<"$out" || fail "malleable-config --mpi $wrong: $out"
echo "malleable-config ($flavour alone): --preload blacs_dyn $pre; --mpi $wrong refused: $out"
# The documented preload, under this flavour's MPI, on an unmodified ScaLAPACK program.
if [[ $flavour == mpich ]]; then
  mpicc.mpich -o "$work/stock" "$src/tests/install/link_lines/app.c" -lscalapack-mpich -lopenblas
  out=$(timeout 120 mpiexec.mpich -bind-to none -genv LD_PRELOAD "$("$cfg" --mpi mpich --preload blacs_dyn)" \
        -genv BLACS_DYN_VERBOSE 1 -n 4 "$work/stock" 2>&1) || fail "the MPICH preload run: $out"
else
  mpicc.openmpi -o "$work/stock" "$src/tests/install/link_lines/app.c" -lscalapack-openmpi -lopenblas
  out=$(timeout 120 mpiexec.openmpi --oversubscribe --bind-to none -x LD_PRELOAD="$("$cfg" --preload blacs_dyn)" \
        -x BLACS_DYN_VERBOSE=1 -n 4 "$work/stock" 2>&1) || fail "the Open MPI preload run: $out"
fi
grep -qF "blacs-dyn: active ($libdir/libmalleable_blacs_dyn.so), world of 4 processes" <<<"$out" &&
  grep -q "PDGEMM and PDGEMR2D on 4 processes, max error 0" <<<"$out" || fail "preload of blacs_dyn ($flavour alone): $out"
echo "preload ($flavour alone): $(grep -m1 'blacs-dyn: active' <<<"$out")"

if [[ -z $other || ! -f $other/CMakeCache.txt ]]; then
  echo "side by side: not checked (no other flavour's build given)"
  echo PASS
  exit 0
fi

# Both flavours in one prefix.
cmake --install "$other" --prefix "$prefix" >/dev/null
mapfile -t theirs < <(find "$(libdir_of "$wrong")" -maxdepth 1 -name 'libmalleable_*.so' | sort)
((${#theirs[@]})) || fail "the $wrong build installed no libraries in $(libdir_of "$wrong")"
check_ldd "$wrong" "$(libdir_of "$wrong")" "${theirs[@]}"
check_ldd "$flavour" "$libdir" "${installed[@]}"
# No file installed by both flavours with different content (one would overwrite the other).
cmake --install "$other" --prefix "$work/other_alone" >/dev/null
shared=0
while IFS= read -r f; do
  if [[ -e $work/other_alone/$f ]]; then
    shared=$((shared + 1))
    cmp -s "$work/other_alone/$f" "$work/alone/$f" || fail "$f is installed by both flavours with different content"
  fi
done < <(cd "$work/alone" && find . \( -type f -o -type l \) | sed 's|^\./||')
echo "side by side: $shared files installed by both flavours, each with the same content"
[[ $("$cfg" --flavours) == "openmpi mpich" ]] || fail "malleable-config --flavours with both: $("$cfg" --flavours)"

# Each MPI's documented lines (docs/guide/mpi-flavours.md, with /opt/malleable for the prefix and
# app/ the project), checked to be there verbatim, then run here.
doc=$src/docs/guide/mpi-flavours.md
documented() { grep -qxF "$1" <(sed 's/[[:space:]]*#.*$//; s/[[:space:]]*$//' "$doc") || fail "not in docs/guide/mpi-flavours.md: $1"; }
mkdir -p "$work/side" && cp "$src/tests/install/flavour_consumer/"* "$work/side/"
for fl in openmpi mpich; do
  got=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=malleable_MPI "$(pc_of "$fl")")
  [[ $got == "$fl" ]] || fail "side by side: $(pc_of "$fl").pc says malleable_MPI=$got"
  # The flags name only this MPI (a linker without --as-needed would load an extra -lmpi).
  [[ $fl == mpich ]] && other_mpi='openmpi|-lmpi( |$)|-lmpi_' || other_mpi='mpich'
  for flags in "$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs "$(pc_of "$fl")")" \
               "$("$cfg" --mpi "$fl" --cflags --libs)" "$("$cfg" --mpi "$fl" --fortran-libs)"; do
    ! grep -Eq -- "$other_mpi" <<<"$flags" || fail "side by side: the $fl flags name the other MPI: $flags"
  done
  if [[ $fl == openmpi ]]; then
    lines=("cmake -S app -B app/build -DCMAKE_PREFIX_PATH=/opt/malleable"
           "mpicc app.c \$(malleable-config --cflags --libs)"
           "mpicc app.c \$(pkg-config --cflags --libs malleable)"
           "cc app.c \$(malleable-config --cflags --libs)")
  else
    lines=("cmake -S app -B app/build -DCMAKE_PREFIX_PATH=/opt/malleable -DMALLEABLE_MPI=mpich"
           "cmake -S app -B app/build -DCMAKE_PREFIX_PATH=/opt/malleable -DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich"
           "mpicc.mpich app.c \$(malleable-config --mpi mpich --cflags --libs)"
           "mpicc.mpich app.c \$(pkg-config --cflags --libs malleable-mpich)"
           "cc app.c \$(malleable-config --mpi mpich --cflags --libs)")
  fi
  n=0
  for line in "${lines[@]}"; do
    documented "$line"
    n=$((n + 1))
    name=side_${fl}_$n
    run=${line//\/opt\/malleable/$prefix}
    if [[ $line == cmake* ]]; then
      read -ra args <<<"${run#cmake -S app -B app/build }"
      consumer "$name" "$fl" "${args[@]}" || fail "side by side: '$line' does not configure: $(cat "$work/$name.log")"
    else
      (cd "$work/side" && PATH=$prefix/bin:$PATH PKG_CONFIG_PATH=$prefix/lib/pkgconfig \
         bash -c "${run/app.c/flavour_consumer.c} -o $name" >"$work/$name.log" 2>&1) ||
        fail "side by side: '$line' does not build: $(cat "$work/$name.log")"
      check_ldd "$fl" "$(libdir_of "$fl")" "$work/side/$name"
      mpirun_of "$fl" 4 "$work/side/$name" >"$work/$name.run" 2>&1 || fail "'$line': the program does not run: $(cat "$work/$name.run")"
      one_world_of_4 "$work/$name.run" "'$line'"
      echo "  $line: $(cat "$work/$name.run")"
    fi
  done
done
# A project whose C compiler is MPICH's wrapper, nothing else said: the MPICH package.
CC=/usr/bin/mpicc.mpich consumer side_mpich_cc mpich ||
  fail "side by side: CC=mpicc.mpich does not configure: $(cat "$work/side_mpich_cc.log")"
# Refused: a project naming MPICH (MALLEABLE_MPI) whose MPI is Open MPI's mpicc.
if consumer mixed mpich -DMALLEABLE_MPI=mpich -DMPI_C_COMPILER=/usr/bin/mpicc; then
  fail "a project with MALLEABLE_MPI=mpich and Open MPI's mpicc was accepted"
fi
said=$(tr -s ' \n' '  ' <"$work/mixed.log")  # CMake wraps the message
grep -q "is built for mpich, but this project's MPI is 'openmpi'" <<<"$said" ||
  { cat "$work/mixed.log" >&2; fail "the mixed project's refusal does not name both MPIs"; }
echo "side by side: MALLEABLE_MPI=mpich with Open MPI's mpicc refused: $(grep -o "is built for mpich, but this project's MPI is 'openmpi'" <<<"$said")"
echo "side by side: both flavours in one prefix, each consumer gets its own"
echo PASS
