#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Level recovery against `redistribute` of the same blocks, both timed in each run
# (resize/bench/levels_recover_bench.cpp), on one machine with nodes emulated by
# MALLEABLE_NODE_MAP, levels in /dev/shm. Two cases, ROUNDS rounds each:
#   regrid     4 processes on 2 "nodes" write the levels on 2x2; 4 processes recover onto
#              4x1 from the local copies (nothing lost); baseline: `redistribute` 2x2 -> 4x1
#              on the same 4 processes (plain layouts: every transport of the engine);
#   lost-node  6 processes on 3 "nodes" write on 3x2 (local + partner); node3's copies are
#              removed; 4 processes on node1 + node2 recover onto 2x2 (node3's blocks from
#              the partner copies on node1); baseline: `redistribute` of the same blocks,
#              3x2 -> 2x2, old positions 4 and 5 held by ranks 0 and 1 as in the recovery.
# Each read run times `redistribute` REPS times before the recovery and REPS times after it
# (median of both) and the recovery once; the ratio is per run, the table gives the median
# and spread over the rounds, the load average is printed.
# --old BUILD: in each round the same cases with BUILD's levels_recover_bench too (its own
# write and read; cases named old-regrid, old-lost-node): a paired run old against new.
# --pause S: sleep S seconds between the write and the read, as a relaunch after a failure
# takes seconds (5.1 s measured, docs/measurements/checkpoint.md): the memory the writing
# job freed is then no longer fresh in the kernel's lists (on a VM whose host takes back
# freed memory, it is the host's again), as in a real recovery. Default 0.
# --switch VAR: in each round every case twice, with VAR=on and VAR=off (cases named
# regrid-on, regrid-off, ...; the order alternating from round to round): a paired run of a
# configuration switch (RESIZE_HUGEPAGES).
#   scripts/bench/levels_recover_bench.sh [--n N] [--nb NB] [--rounds R] [--reps K] [--old BUILD]
#                                         [--switch VAR] [--pause S] [--out DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
n=4000 nb=64 rounds=3 reps=3 out="" old="" pause=0 switch=""
while (($#)); do
  case $1 in
    --n) n=$2; shift 2 ;;
    --nb) nb=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    --pause) pause=$2; shift 2 ;;
    --switch) switch=$2; shift 2 ;;
    -h | --help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "levels_recover_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
# The case levels-recover of malleable-resize-bench; an --old build from before that program
# (a commit up to c5d3a5b5) has it as its own levels_recover_bench.
bench_of() {  # <build dir>: the command that runs the case there
  if [[ -x $1/resize/malleable-resize-bench ]]; then echo "$1/resize/malleable-resize-bench levels-recover"
  elif [[ -x $1/resize/levels_recover_bench ]]; then echo "$1/resize/levels_recover_bench"
  else echo "levels_recover_bench.sh: no $1/resize/malleable-resize-bench: cmake --build $1 --target malleable_resize_bench" >&2; return 1
  fi
}
cmd=$(bench_of "$build") || exit 2
read -ra exe <<<"$cmd"
if [[ -n $old ]]; then cmd=$(bench_of "$old") || exit 2; read -ra old_exe <<<"$cmd"; fi
cases="regrid lost-node"
[[ -n $old ]] && cases="old-regrid old-lost-node regrid lost-node"
[[ -z $switch || $switch =~ ^RESIZE_[A-Z_]+$ ]] || { echo "levels_recover_bench.sh: --switch takes a RESIZE_ variable, not $switch" >&2; exit 2; }
[[ -n $switch ]] && cases="regrid-on regrid-off lost-node-on lost-node-off"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
tmp=$(mktemp -d /dev/shm/malleable-levels-recover.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[[ -n $out ]] && mkdir -p "$out"
tsv=${out:-$tmp}/recover.tsv
printf 'case\tround\trecover_s\tredistribute_s\tratio\tload\tfiles_ms\tread_ms\tgrid_ms\tmove_ms\tplanning_ms\tratio_without_reading\tcold_s\tratio_cold\tratio_cold_without_reading\n' >"$tsv"
mpi() { timeout 900 mpiexec --oversubscribe --bind-to none "$@"; }
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); N $n NB $nb, $rounds rounds, $reps + $reps redistributions per run, pause $pause s"
one() {  # <case> <round>: write, (lose), read; a line into the table
  local c=$1 r=$2 log v=${1##*-} run=("${exe[@]}")
  [[ $c == old-* ]] && run=("${old_exe[@]}")
  [[ -n $switch ]] && export "$switch=$v"
  rm -rf "$tmp/l"
  if [[ ${c#old-} == regrid* ]]; then
    MALLEABLE_NODE_MAP=every=2 mpi -n 4 "${run[@]}" write "$n" "$nb" 2x2 "$tmp/l" >/dev/null
    sleep "$pause"
    log=$(MALLEABLE_NODE_MAP=every=2 mpi -n 4 "${run[@]}" read "$n" "$nb" 4x1 "$tmp/l" 2x2 0,1,2,3 "$reps")
  else
    MALLEABLE_NODE_MAP=every=2 mpi -n 6 "${run[@]}" write "$n" "$nb" 3x2 "$tmp/l" >/dev/null
    rm -rf "$tmp/l/node3"
    sleep "$pause"
    log=$(MALLEABLE_NODE_MAP=node1,node1,node2,node2 mpi -n 4 "${run[@]}" read "$n" "$nb" 2x2 "$tmp/l" 3x2 0,1,2,3,0,1 "$reps")
  fi
  [[ -n $out ]] && echo "$log" >"$out/$c.$r.txt"
  grep -q '^wrong_elements 0$' <<<"$log" || { echo "levels_recover_bench.sh: $c round $r: wrong result" >&2; echo "$log" >&2; exit 1; }
  # The recovery's parts from its line (each the slowest process's): listing the files,
  # choosing and reading them, the new grid, the move (and the part of it before the
  # exchange, when the build prints it: planning); the ratio without the reading is
  # (recovery - choosing and reading) / redistribute; the cold ratios are against one
  # `redistribute` on a new communicator into untouched pages (when the build prints it).
  awk -v c="$c" -v r="$r" -v la="$(cut -d" " -f1 /proc/loadavg)" '/^recover_s/ {t = $2} /^redistribute_s/ {d = $2} /^redistribute_cold_s/ {cd = $2}
    /restart from levels in/ { s = $0; sub(/.*ms: files /, "", s); gsub(/[^0-9. ]/, "", s); split(s, p, " +") }
    END {printf "%s\t%d\t%.4f\t%.4f\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f", c, r, t, d, t / d, la, p[1], p[2], p[3], p[4],
                p[5] == "" ? "-" : p[5], (t - p[2] / 1e3) / d
         if (cd == "") printf "\t-\t-\t-\n"; else printf "\t%.4f\t%.3f\t%.3f\n", cd, t / cd, (t - p[2] / 1e3) / cd}' <<<"$log" | tee -a "$tsv"
}
for ((r = 1; r <= rounds; ++r)); do
  order=$cases
  ((r % 2 == 0)) && [[ -n $switch ]] && order="regrid-off regrid-on lost-node-off lost-node-on"
  for c in $order; do one "$c" "$r"; done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
{
echo "| case | recovery ms (median) | redistribute ms (median) | recovery / redistribute: median (min-max) | without the reading: median (min-max) | recovery / cold redistribute, with / without the reading (medians) | files / choose and read / grid / move (planning) ms (medians) |"
echo "|---|---:|---:|---:|---:|---:|---|"
for c in $cases; do
  awk -F'\t' -v c="$c" '$1 == c {t[++k] = $3; d[k] = $4; q[k] = $5; f[k] = $7; rd[k] = $8; g[k] = $9; mv[k] = $10; pl[k] = $11; w[k] = $12; qc[k] = $14; wc[k] = $15}
    function med(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { lo = hi = q[1]; wl = wh = w[1]
          for (i = 1; i <= k; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i]; if (w[i] < wl) wl = w[i]; if (w[i] > wh) wh = w[i] }
          cold = qc[1] == "-" ? "-" : sprintf("%.2fx / %.2fx", med(qc, k), med(wc, k))
          printf "| %s | %.0f | %.0f | %.2fx (%.2f-%.2f) | %.2fx (%.2f-%.2f) | %s | %.1f / %.1f / %.1f / %.1f (%s) |\n", c, med(t, k) * 1e3, med(d, k) * 1e3,
                 med(q, k), lo, hi, med(w, k), wl, wh, cold, med(f, k), med(rd, k), med(g, k), med(mv, k), pl[1] == "-" ? "-" : sprintf("%.1f", med(pl, k)) }' "$tsv"
done
} | tee "${out:-$tmp}/summary.txt"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
[[ -z $out ]] || python3 "$here/scripts/bench/data_archive.py" pack "$(dirname "$out")"
