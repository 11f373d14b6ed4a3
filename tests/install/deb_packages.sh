#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages (cmake/MalleablePackaging.cmake): cpack builds, per MPI flavour
# (<s> empty for Open MPI, -mpich for MPICH), libmalleable0<s>, libmalleable<s>-dev,
# malleable<s>-tools, and malleable-common (the files both flavours share) from the
# build tree; each carries the Debian dependencies its files need (dpkg-deb -f);
# together they hold exactly what `cmake --install` installs, each file once; extracted
# with dpkg -x into a scratch root (no root rights, no dpkg database), a C++ session
# program builds against <root>/usr with CMake and with pkg-config and runs under MPI,
# and malleable-config and a driver from the tools package answer from there.
# With OTHER_BUILD (the other flavour's build folder; scripts/test.sh passes the Open MPI
# build to the MPICH one) the other flavour's packages too: no file in two packages but
# malleable-common, which both builds make with the same content; both flavours extracted
# into one root, and for each MPI a PBLAS program built by its documented CMake and
# malleable-config lines (docs/guide/mpi-flavours.md) runs 4 ranks as one world of 4.
# Usage: deb_packages.sh <build-dir> <source-dir> <mpiexec> [openmpi|mpich] [OTHER_BUILD]
set -euo pipefail
build=$1 src=$2 mpiexec=$3 flavour=${4:-openmpi} other=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "deb packages: FAILED: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v $tool >/dev/null || fail "$tool not found (scripts/setup.sh installs dpkg-dev)"
done
version=$(sed -n 's/^project(malleable VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
sfx_of() { [[ $1 == mpich ]] && echo -mpich || true; }
other_flavour() { [[ $1 == mpich ]] && echo openmpi || echo mpich; }
declare -A deb

# make_debs <build> <flavour> <cpack|installer>: cpack into $work/pkg-<flavour>, dependencies
# and contents checked.
make_debs() {
  local b=$1 fl=$2 mode=$3 s p start
  s=$(sfx_of "$fl")
  start=$(date +%s)
  config=$b/CPackConfig.cmake
  if [[ $mode == installer ]]; then
    # The MPICH build holds everything installed (target mall_mpich_suite) but not `all`
    # (every test program), which cpack's preinstall step would build first (and the
    # other flavour's build is up to date already: scripts/test.sh built and tested it):
    # cpack gets the build's install rules through an empty project that runs them.
    local stage=$work/installer-$fl
    mkdir -p "$stage/src"
    printf 'cmake_minimum_required(VERSION 3.20)\nproject(malleable_installer NONE)\ninstall(SCRIPT "%s/cmake_install.cmake" ALL_COMPONENTS)\n' \
      "$b" >"$stage/src/CMakeLists.txt"
    cmake -S "$stage/src" -B "$stage" -DCMAKE_BUILD_TYPE="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$b/CMakeCache.txt")" \
      >"$work/installer-$fl.log" 2>&1 || { cat "$work/installer-$fl.log" >&2; fail "installer project"; }
    sed "s|^set(CPACK_INSTALL_CMAKE_PROJECTS \"$b;|set(CPACK_INSTALL_CMAKE_PROJECTS \"$stage;|" "$b/CPackConfig.cmake" >"$stage/CPackConfig.cmake"
    grep -q "CPACK_INSTALL_CMAKE_PROJECTS \"$stage;" "$stage/CPackConfig.cmake" || fail "no CPACK_INSTALL_CMAKE_PROJECTS in $b/CPackConfig.cmake"
    config=$stage/CPackConfig.cmake
  fi
  (cd "$work" && cpack -G DEB --config "$config" -B "$work/pkg-$fl" >"$work/cpack-$fl.log" 2>&1) ||
    { cat "$work/cpack-$fl.log" >&2; fail "cpack ($fl)"; }
  echo "cpack ($fl): $(($(date +%s) - start)) s"
  for p in libmalleable0$s libmalleable$s-dev malleable$s-tools malleable-common; do
    deb[$fl:$p]=$(ls "$work/pkg-$fl"/${p}_${version}_*.deb 2>/dev/null | head -1)
    [[ -n ${deb[$fl:$p]} ]] || { ls "$work/pkg-$fl" >&2; fail "no ${p}_${version}_*.deb ($fl)"; }
    echo "$p: $(dpkg-deb -f "${deb[$fl:$p]}" Package) $(dpkg-deb -f "${deb[$fl:$p]}" Version) $(dpkg-deb -f "${deb[$fl:$p]}" Architecture), $(du -k "${deb[$fl:$p]}" | cut -f1) KiB"
    echo "  Depends: $(depends "${deb[$fl:$p]}")"
  done
  if [[ $fl == mpich ]]; then
    need "$fl" libmalleable0$s libmpich12 libscalapack-mpich2.2 liblapacke libstdc++6 libgfortran5 libc6
    need "$fl" libmalleable$s-dev libmalleable0$s malleable-common libmpich-dev libscalapack-mpich-dev libopenblas-dev liblapacke-dev
    need "$fl" malleable$s-tools libmalleable0$s malleable-common mpich
    ! grep -Eq 'openmpi|libmpi[0-9]' <<<"$(for p in libmalleable0$s libmalleable$s-dev malleable$s-tools; do depends "${deb[$fl:$p]}"; done)" ||
      fail "an MPICH package depends on Open MPI"
  else
    need "$fl" libmalleable0 libopenmpi3 libscalapack-openmpi2.2 liblapacke libstdc++6 libgfortran5 libc6
    need "$fl" libmalleable-dev libmalleable0 malleable-common libopenmpi-dev libscalapack-openmpi-dev libopenblas-dev liblapacke-dev
    need "$fl" malleable-tools libmalleable0 malleable-common openmpi-bin
  fi
  need "$fl" malleable-common python3
  grep -q "libmalleable0$s (= $version)" <<<"$(depends "${deb[$fl:libmalleable$s-dev]}")" ||
    fail "libmalleable$s-dev must depend on libmalleable0$s (= $version)"
  # The BLAS: any package giving libopenblas.so.0 / libblas.so.3 will do.
  grep -Eq 'libopenblas0|libblas3' <<<"$(depends "${deb[$fl:libmalleable0$s]}")" || fail "libmalleable0$s has no BLAS dependency"
  # The packages hold what `cmake --install` installs, no more, no less, each file once.
  for p in libmalleable0$s libmalleable$s-dev malleable$s-tools malleable-common; do dpkg -x "${deb[$fl:$p]}" "$work/root-$fl"; done
  cmake --install "$b" --prefix "$work/ref-$fl" >/dev/null
  (cd "$work/ref-$fl" && find . \( -type f -o -type l \) | sort) >"$work/ref-$fl.list"
  # (the arbiter's configuration: /etc in the packages, the full sysconfdir of /usr; ref/etc
  # for that prefix)
  (cd "$work/root-$fl" && find . \( -type f -o -type l \) | sed 's|^\./usr/|./|' | sort) >"$work/deb-$fl.list"
  diff "$work/ref-$fl.list" "$work/deb-$fl.list" >&2 || fail "the $fl packages' files differ from cmake --install's (< install only, > packages only)"
  for p in libmalleable0$s libmalleable$s-dev malleable$s-tools malleable-common; do dpkg-deb -c "${deb[$fl:$p]}" | awk '{print $6}' | grep -v '/$'; done |
    sort | uniq -d >"$work/dups"
  [[ ! -s $work/dups ]] || fail "files in two $fl packages: $(cat "$work/dups")"
  echo "packages ($fl): $(wc -l <"$work/deb-$fl.list") files, as cmake --install; runtime $(dpkg-deb -c "${deb[$fl:libmalleable0$s]}" | grep -c '\.so')" \
    "library files, common $(dpkg-deb -c "${deb[$fl:malleable-common]}" | grep -c '\.h\(pp\)\?$') headers"
}
depends() { dpkg-deb -f "$1" Depends; }
need() {  # need <flavour> <package> <dependency> ...
  local fl=$1 p=$2 d
  shift 2
  for d in "$@"; do
    grep -q "^$d\b" <<<"$(depends "${deb[$fl:$p]}" | tr ',' '\n' | sed 's/^ *//')" || fail "$p does not depend on $d: $(depends "${deb[$fl:$p]}")"
  done
}

[[ $flavour == mpich ]] && mode=installer || mode=cpack
make_debs "$build" "$flavour" "$mode"
s=$(sfx_of "$flavour")
root=$work/root
for p in libmalleable0$s libmalleable$s-dev malleable$s-tools malleable-common; do dpkg -x "${deb[$flavour:$p]}" "$root"; done
prefix=$root/usr
libdir=$prefix/lib${s:+/malleable$s}
if [[ $flavour == mpich ]]; then
  mpiexec_np() { "$mpiexec" -bind-to none -n "$@"; }
  cmake_mpi=(-DMALLEABLE_MPI=mpich) mpicxx=mpicxx.mpich pc=malleable-mpich
else
  mpiexec_np() { "$mpiexec" --oversubscribe --bind-to none -n "$@"; }
  cmake_mpi=() mpicxx=mpicxx pc=malleable
fi

# A consumer against the extracted root: CMake package and pkg-config, relocated.
cmake -S "$src/tests/install/session_cxx" -B "$work/cxx" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  "${cmake_mpi[@]}" >"$work/cxx.log" 2>&1 && cmake --build "$work/cxx" >>"$work/cxx.log" 2>&1 || { cat "$work/cxx.log" >&2; fail "CMake consumer"; }
grep -q "$libdir/libmalleable_resize.so" "$work/cxx/CMakeFiles/session_cxx.dir/link.txt" ||
  fail "the CMake consumer did not link the extracted root's library"
mpiexec_np 2 "$work/cxx/session_cxx" || fail "CMake consumer run"
# shellcheck disable=SC2046
PKG_CONFIG_PATH=$prefix/lib/pkgconfig $mpicxx -std=c++20 -o "$work/pc" "$src/tests/install/session_cxx/session_cxx.cpp" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs $pc) || fail "pkg-config consumer build"
grep -q "libmalleable_resize.so.0 => $prefix/.*/lib${s:+/malleable$s}/libmalleable_resize.so.0" <<<"$(ldd "$work/pc")" || { ldd "$work/pc" >&2; fail "pkg-config consumer does not load the extracted library"; }
mpiexec_np 2 "$work/pc" || fail "pkg-config consumer run"

# The tools: malleable-config and a driver, answering from the root.
[[ $("$prefix/bin/malleable-config" --preload blacs_dyn) == "$libdir/libmalleable_blacs_dyn.so" ]] ||
  fail "malleable-config --preload blacs_dyn: $("$prefix/bin/malleable-config" --preload blacs_dyn)"
driver=$prefix/libexec/malleable$s/pdgemm_resizable
grep -q "malleable $version" <<<"$("$driver" --version)" || fail "pdgemm_resizable --version: $("$driver" --version)"
if [[ $flavour == openmpi ]]; then
  # The launcher from malleable-common: its usage, then a resize by restart 2x2 -> 1x3 -> 2x2
  # of the packaged pdgemm driver (launches of 4, 3, 4 processes, result check OK).
  [[ $("$prefix/bin/malleable-run" --help) == "usage: malleable-run "* ]] || fail "malleable-run --help: $("$prefix/bin/malleable-run" --help 2>&1 | head -3)"
  run_out=$(MALLEABLE_MPIEXEC="$mpiexec --oversubscribe --bind-to none" timeout 200 "$prefix/bin/malleable-run" -n 4 -- \
            "$driver" -n 120 --nb 16 -i 4 -p scripted -s 1:shrink:1x3,2:expand:2x2 \
            --mechanism restart --checkpoint "$work/ck" -q 2>&1) || fail "malleable-run from the package: $run_out"
  [[ $(grep -o "^malleable-run: launch [0-9]*: [0-9]*" <<<"$run_out" | awk '{print $4}' | tr '\n' ' ') == "4 3 4 " ]] &&
    grep -q "result check: .*OK" <<<"$run_out" || fail "malleable-run from the package did not resize by restart 4 -> 3 -> 4: $run_out"
fi
if [[ -x $build/cluster/malleable-arbiterd ]]; then
  # The arbiter in malleable-tools: its configuration a conffile (dpkg keeps an edited one
  # across upgrades), the one its unit reads and the guide names; the unit's paths in the
  # package; the daemon started by the unit's ExecStart reads it (arbiter_unit_check.sh).
  tools_deb=${deb[$flavour:malleable$s-tools]}
  conffiles=$(dpkg-deb -I "$tools_deb" conffiles 2>&1) || fail "malleable$s-tools has no conffiles: $conffiles"
  grep -qx /etc/malleable/arbiterd.conf <<<"$conffiles" || fail "malleable$s-tools's conffiles do not list /etc/malleable/arbiterd.conf: $conffiles"
  tools_files=$(dpkg-deb -c "$tools_deb" | awk '{print $6}')
  while read -r f; do
    grep -qx ".$f" <<<"$tools_files" || fail "conffile $f is not in malleable$s-tools"
  done <<<"$conffiles"
  # dpkg keeps it: the package installed into a scratch dpkg root (no dependencies there),
  # the configuration edited, the package installed again (as an upgrade does).
  dr=$work/dpkg-root
  mkdir -p "$dr/var/lib/dpkg/info" "$dr/var/lib/dpkg/updates" "$dr/var/lib/dpkg/triggers"
  touch "$dr/var/lib/dpkg/status" "$dr/var/lib/dpkg/available"
  dpkg_i() { dpkg --root="$dr" --force-not-root --force-depends --force-script-chrootless -i "$tools_deb" </dev/null >"$work/dpkg.log" 2>&1 ||
               { cat "$work/dpkg.log" >&2; fail "dpkg -i malleable$s-tools into $dr"; }; }
  dpkg_i
  echo "# edited by install.deb_packages" >>"$dr/etc/malleable/arbiterd.conf"
  dpkg_i
  grep -qx "# edited by install.deb_packages" "$dr/etc/malleable/arbiterd.conf" ||
    fail "installing malleable$s-tools again replaced the edited /etc/malleable/arbiterd.conf"
  "$src/tests/install/arbiter_unit_check.sh" "$root" "$src" "the .deb packages" || (($? == 77)) ||
    fail "the arbiter from the packages"
  echo "deb packages ($flavour): the arbiter's configuration a conffile ($(tr '\n' ' ' <<<"$conffiles")), kept edited by dpkg -i again"
fi
echo "deb packages ($flavour): built, dependencies checked, extracted and used: CMake and pkg-config consumers ran against $prefix; $("$driver" --version)"

if [[ -z $other || ! -f $other/CPackConfig.cmake ]]; then
  echo "both flavours' packages: not checked (no other flavour's build given)"
  exit 0
fi
wrong=$(other_flavour "$flavour")
make_debs "$other" "$wrong" installer
w=$(sfx_of "$wrong")
# Co-installable: no file in two packages but malleable-common, whose two builds agree.
{
  for p in libmalleable0$s libmalleable$s-dev malleable$s-tools malleable-common; do echo "${deb[$flavour:$p]}"; done
  for p in libmalleable0$w libmalleable$w-dev malleable$w-tools; do echo "${deb[$wrong:$p]}"; done
} | while read -r f; do
  dpkg-deb -c "$f" | awk '{print $6}' | grep -v '/$'
done | sort | uniq -d >"$work/dups"
[[ ! -s $work/dups ]] || fail "files in packages of both flavours: $(cat "$work/dups")"
rm -rf "$work/c1" "$work/c2"
dpkg -x "${deb[$flavour:malleable-common]}" "$work/c1"
dpkg -x "${deb[$wrong:malleable-common]}" "$work/c2"
diff -r "$work/c1" "$work/c2" >&2 || fail "the two builds' malleable-common packages differ"
for p in libmalleable0$w libmalleable$w-dev malleable$w-tools; do dpkg -x "${deb[$wrong:$p]}" "$root"; done
echo "both flavours' packages: no file in two packages, malleable-common the same from both builds"

# Both flavours in one root: each MPI's documented CMake and malleable-config lines.
mkdir -p "$work/app" && cp "$src/tests/install/flavour_consumer/"* "$work/app/"
for fl in openmpi mpich; do
  if [[ $fl == mpich ]]; then
    cm=(-DMALLEABLE_MPI=mpich) cc_line="mpicc.mpich flavour_consumer.c \$(malleable-config --mpi mpich --cflags --libs)"
    run_np() { timeout 120 mpiexec.mpich -bind-to none -n "$@"; }
  else
    cm=() cc_line="mpicc flavour_consumer.c \$(malleable-config --cflags --libs)"
    run_np() { timeout 120 mpiexec.openmpi --oversubscribe --bind-to none -n "$@"; }
  fi
  cmake -S "$work/app" -B "$work/app/build-$fl" -DCMAKE_PREFIX_PATH="$prefix" "${cm[@]}" >"$work/app-$fl.log" 2>&1 &&
    cmake --build "$work/app/build-$fl" >>"$work/app-$fl.log" 2>&1 || { cat "$work/app-$fl.log" >&2; fail "CMake consumer ($fl, both installed)"; }
  grep -q "consumer: malleable_MPI=$fl" "$work/app-$fl.log" || { cat "$work/app-$fl.log" >&2; fail "the $fl CMake consumer got another flavour"; }
  (cd "$work/app" && PATH=$prefix/bin:$PATH bash -c "$cc_line -o config-$fl") >"$work/cfg-$fl.log" 2>&1 ||
    { cat "$work/cfg-$fl.log" >&2; fail "malleable-config consumer ($fl, both installed)"; }
  for exe in "$work/app/build-$fl/flavour_consumer" "$work/app/config-$fl"; do
    deps=$(ldd "$exe")
    if [[ $fl == mpich ]]; then ! grep -q 'libmpi\.so\.40' <<<"$deps" || fail "$exe (MPICH) loads Open MPI"
    else ! grep -q 'libmpich' <<<"$deps" || fail "$exe (Open MPI) loads MPICH"; fi
    out=$(run_np 4 "$exe" 2>&1) || fail "$exe: $out"
    [[ $(grep -c '^flavour consumer: world of' <<<"$out") == 1 ]] &&
      grep -q '^flavour consumer: world of 4 processes, PDGEMM + redist_Cpdgemr2d max error 0,' <<<"$out" ||
      fail "$exe ($fl): not one world of 4: $out"
    echo "  $fl, $(basename "$(dirname "$exe")")/$(basename "$exe"): $out"
  done
done
echo "deb packages: both flavours extracted into one root, each MPI's consumers run 4 ranks as one world"
