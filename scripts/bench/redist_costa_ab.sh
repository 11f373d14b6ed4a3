#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The shapes suite with COSTA, two builds side by side: for each case of
# malleable-redist-bench redist --suite (redist_bench --suite in a build older than 58f7ebec), ROUNDS rounds, each round running the old build's bench then the new one's
# (the order alternating from round to round), both with COSTA's own API
# (redist/bench/costa_native.cpp compiled against a COSTA build, as redist_shapes_bench.sh
# does) and OMP_NUM_THREADS=1, vader's single copy (cma, Open MPI's default). Per case:
# the medians over the rounds of redist's and COSTA's time per build, new/old for redist,
# and redist/COSTA per build (each from the same run).
#   scripts/bench/redist_costa_ab.sh OLD_BUILD NEW_BUILD COSTA_BUILD [--cases "0 3 5"] [--rounds R] [--reps N]
#                                    [--out DIR]
# COSTA_BUILD: a COSTA build directory (docs/measurements/redist.md, "Comparing with COSTA").
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) costa=$(cd "$3" && pwd)
shift 3
cases="0 3 5 7 9" rounds=3 reps=3 out=""
while (($#)); do
  case $1 in
    --cases) cases=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "redist_costa_ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
# shellcheck source=costa_native.sh
. "$here/scripts/bench/costa_native.sh"
declare -A so bench
for b in "$old" "$new"; do
  if [[ -x $b/redist/malleable-redist-bench ]]; then bench[$b]="$b/redist/malleable-redist-bench redist"
  elif [[ -x $b/redist/redist_bench ]]; then bench[$b]=$b/redist/redist_bench
  else echo "redist_costa_ab.sh: neither $b/redist/malleable-redist-bench nor $b/redist/redist_bench" >&2; exit 2; fi
  so[$b]=$(costa_native "$costa" "$b" "$here")
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
  OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMPI_MCA_btl_vader_single_copy_mechanism=cma
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -n $out ]] && mkdir -p "$out"
tsv=${out:-$tmp}/costa_ab.tsv
printf 'case\tround\tbuild\tredist_s\tcosta_s\tload\n' >"$tsv"
echo "# $(date -u +%FT%TZ), $(env -u OMP_NUM_THREADS nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); cases $cases; $rounds rounds, reps $reps"
run() {  # <build> <case> <round>: a line into the table
  local b=$1 k=$2 r=$3 np log tag
  # shellcheck disable=SC2086
  np=$(${bench[$b]} --suite --list | awk -F'\t' -v c="$k" '$1 == c {print $2}')
  tag=$([[ $b == "$old" ]] && echo old || echo new)
  # shellcheck disable=SC2086
  log=$(timeout 1200 mpiexec --bind-to none -n "$np" ${bench[$b]} --suite --case "$k" --reps "$reps" \
    --costa-native "${so[$b]}" 2>&1) || { echo "redist_costa_ab.sh: case $k ($tag) failed" >&2; echo "$log" >&2; return 1; }
  [[ -n $out ]] && echo "$log" >"$out/case$k.$r.$tag.log"
  awk -v k="$k" -v r="$r" -v t="$tag" -v la="$(cut -d' ' -f1 /proc/loadavg)" '
    /^ *case +shape/ {for (i = 1; i <= NF; i++) col[$i] = i; next}
    /^"/ && ("redist_s" in col) {n = split($0, f, /"/); split(f[n], g, " ")
          printf "%s\t%d\t%s\t%s\t%s\t%s\n", k, r, t, g[col["redist_s"] - 1], g[col["costa_s"] - 1], la; exit}' <<<"$log" |
    tee -a "$tsv"
}
for k in $cases; do
  for ((r = 1; r <= rounds; ++r)); do
    if ((r % 2)); then run "$old" "$k" "$r"; run "$new" "$k" "$r"; else run "$new" "$k" "$r"; run "$old" "$k" "$r"; fi
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("| case | redist old s | redist new s | new/old (median of the paired ratios, min-max) | COSTA s | redist/COSTA old | redist/COSTA new |")
print("|---|---:|---:|---:|---:|---:|---:|")
for k in dict.fromkeys(r["case"] for r in rows):
    by = {(r["round"], r["build"]): r for r in rows if r["case"] == k}
    rounds = sorted({r for r, _ in by})
    f = lambda r, b, c: float(by[(r, b)][c])
    pair = [f(r, "new", "redist_s") / f(r, "old", "redist_s") for r in rounds if (r, "old") in by and (r, "new") in by]
    med = lambda b, c: statistics.median(f(r, b, c) for r in rounds if (r, b) in by)
    costa = statistics.median([f(r, b, "costa_s") for r in rounds for b in ("old", "new") if (r, b) in by])
    print(f"| {k} | {med('old', 'redist_s'):.4f} | {med('new', 'redist_s'):.4f} | {statistics.median(pair):.2f}x "
          f"({min(pair):.2f}-{max(pair):.2f}) | {costa:.4f} | {med('old', 'redist_s') / med('old', 'costa_s'):.2f} | "
          f"{med('new', 'redist_s') / med('new', 'costa_s'):.2f} |")
EOF
