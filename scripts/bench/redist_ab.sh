#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Side-by-side timing of two builds' redistribution bench (malleable-redist-bench redist;
# redist_bench in a build older than 58f7ebec) on the 2-rank cases of the suite (ranks <=
# cores here): for each case both builds run back to back, fastest of --reps, with the
# memcpy floor that includes local copies measured in the same run.
#   scripts/bench/redist_ab.sh OLD_BUILD NEW_BUILD [--reps N] [--cases "7 9 11"]
# Build an older commit's bench for the first argument, e.g.
#   git worktree add /tmp/old <commit> && cmake -S /tmp/old -B /tmp/oldbuild &&
#   cmake --build /tmp/oldbuild --target malleable_redist_bench   (redist_bench before 58f7ebec)
# Prints: case | name | old s | new s | new/old | floor with local s | new/floor
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1 new=$2; shift 2
reps=7 cases="7 9 11 12 13 14 15 16 17 18 19 20"
while (($#)); do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    *) echo "redist_ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
declare -A bench
for b in "$old" "$new"; do
  if [[ -x $b/redist/malleable-redist-bench ]]; then bench[$b]="$b/redist/malleable-redist-bench redist"
  elif [[ -x $b/redist/redist_bench ]]; then bench[$b]=$b/redist/redist_bench
  else echo "redist_ab.sh: neither $b/redist/malleable-redist-bench nor $b/redist/redist_bench" >&2; exit 2; fi
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
  OPENBLAS_NUM_THREADS=1
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); reps $reps; old $old, new $new"
echo "case | name | old s | new s | new/old | floor with local s | new/floor"
run() {  # build case -> "seconds floor"
  local out
  # shellcheck disable=SC2086
  out=$(mpiexec --bind-to none -n 2 ${bench[$1]} --suite --case "$2" --reps "$reps" 2>&1)
  awk '/^"/{for(i=1;i<=NF;i++) if ($i ~ /@/) {t=$(i+5); break}} /floor with local/{sub(/.*: /,""); sub(/ s;.*/,""); f=$0}
       END{print t, f}' <<<"$out"
  grep -q ' ok' <<<"$out" || { echo "redist_ab.sh: case $2 with $1 did not check ok" >&2; return 1; }
}
for c in $cases; do
  # shellcheck disable=SC2086
  name=$(${bench[$new]} --suite --list | awk -F'\t' -v c="$c" '$1 == c {print $4}')
  read -r to _ < <(run "$old" "$c")
  read -r tn fl < <(run "$new" "$c")
  awk -v c="$c" -v n="$name" -v o="$to" -v w="$tn" -v f="$fl" \
    'BEGIN{printf "%s | %s | %.4f | %.4f | %.2fx | %.4f | %.2fx\n", c, n, o, w, w/o, f, w/f}'
done
