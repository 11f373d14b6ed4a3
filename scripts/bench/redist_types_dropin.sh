#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# For the other element types and the drop-in path: malleable-redist-bench exec per case
# of the shapes suite, element type (s, d, c, z) and Open MPI shared-memory setting (cma,
# none), redist by message ("no-shm") and with the node window (default, "shm"), COSTA's
# native transform (COSTA_DIR's build, OMP_NUM_THREADS=1), PxGEMR2D and the memcpy floor
# round robin; every result compared element for element with PxGEMR2D's. Then the same
# with the drop-in (libmalleable_redist_gemr2d) preloaded, so the program's own PxGEMR2D
# calls are served by redist: COSTA / the drop-in, and the result's checksum against the
# stock run's. Writes $OUT_DIR/<case>.<type>.<setting>[.dropin].txt and summary.md.
#   scripts/bench/redist_types_dropin.sh --costa DIR [--cases "1 7"] [--types "s d c z"] [--reps 5]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT_DIR:-$here/docs/data/redist_types_dropin}
costa="" cases="1 7" types="s d c z" reps=5 settings="cma none"
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --types) types=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --single-copy) settings=$2; shift 2 ;;
    *) echo "redist_types_dropin.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
bench=$build/redist/malleable-redist-bench
dropin=$(find "$build/redist" -name 'libmalleable_redist_gemr2d.so' -print -quit)
[[ -x $bench && -n $dropin ]] || { echo "build malleable_redist_bench and redist_gemr2d first" >&2; exit 2; }
[[ -n $costa ]] || { echo "--costa DIR (a COSTA build) is required" >&2; exit 2; }
. "$here/scripts/bench/costa_native.sh"
so=$(costa_native "$costa" "$build" "$here") || exit 2
unset OMPI_MCA_btl_vader_single_copy_mechanism REDIST_GEMR2D
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$out"
list=$("$bench" redist --suite --list)
sum=$out/summary.md
{
  echo "# redist_types_dropin.sh, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD), reps $reps (medians of wall time, slowest rank)"
  echo
  echo "| case | P | type | setting | load | COSTA / redist (window) | COSTA / redist (by message) | redist (window) / floor | COSTA / drop-in | identical to PxGEMR2D | drop-in checksum = stock |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$sum"
for k in $cases; do
  line=$(awk -F'\t' -v k="$k" '$1 == k' <<<"$list")
  np=$(cut -f2 <<<"$line") shape=$(cut -f3 <<<"$line") kind=$(cut -f4 <<<"$line")
  for t in $types; do
    for sc in $settings; do
      load=$(uptime | sed 's/.*load average: //; s/,.*//')
      f=$out/case$k.$t.$sc.txt fd=$out/case$k.$t.$sc.dropin.txt
      run=(timeout 900 mpiexec --bind-to none -n "$np")
      args=("$bench" exec --shape "$shape" --type "$t" --reps "$reps" --variants no-shm,shm --costa-native "$so")
      { echo "# $kind, type $t, btl_vader_single_copy_mechanism=$sc, load $load"
        OMPI_MCA_btl_vader_single_copy_mechanism=$sc "${run[@]}" "${args[@]}"; } > "$f" 2>&1 || echo "case $k $t $sc failed" >&2
      { echo "# $kind, type $t, btl_vader_single_copy_mechanism=$sc, drop-in preloaded"
        OMPI_MCA_btl_vader_single_copy_mechanism=$sc "${run[@]}" -x LD_PRELOAD="$dropin" -x REDIST_GEMR2D_VERBOSE=1 \
          "${args[@]}"; } > "$fd" 2>&1 || echo "case $k $t $sc (drop-in) failed" >&2
      python3 - "$f" "$fd" "$kind" "$np" "$t" "$sc" "$load" >> "$sum" <<'PY'
import re, sys
f, fd, kind, np, t, sc, load = sys.argv[1:]
def table(path):
    rows, cs = {}, None
    for l in open(path):
        m = re.match(r'^(no-shm|shm|COSTA|PxGEMR2D|floor)\s+([\d.]+)\s+([\d.]+)\s.*\s(ok|DIFFERENT|-)$', l.strip())
        if m: rows[m[1]] = (float(m[3]), m[4])
        m = re.match(r"^checksum of PxGEMR2D's result ([0-9a-f]+)", l)
        if m: cs = m[1]
    return rows, cs
s, cs = table(f)
d, cd = table(fd)
served = any('served by malleable redist' in l for l in open(fd))
r = lambda a, b, tab: f"{tab[a][0] / tab[b][0]:.2f}x" if a in tab and b in tab and tab[b][0] > 0 else '-'
same = all(v[1] in ('ok', '-') for v in s.values()) and bool(s)
print(f"| {kind} | {np} | {t} | {sc} | {load} | {r('COSTA', 'shm', s)} | {r('COSTA', 'no-shm', s)} | "
      f"{s['shm'][0] / s['floor'][0]:.1f}x | {r('COSTA', 'PxGEMR2D', d)} | {'yes' if same else 'NO'} | "
      f"{'yes' if cs and cs == cd else 'NO'}{'' if served else ' (drop-in did not serve)'} |" if 'shm' in s and 'floor' in s else f"| {kind} | {np} | {t} | {sc} | {load} | failed |")
PY
      tail -1 "$sum"
    done
  done
done
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$out"
