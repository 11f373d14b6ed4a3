#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The move phase of a real resize, two builds side by side: pdgemm_resizable on 4
# processes expands 2x2 -> 3x3 (spawning 5 newcomers onto this node: old and new
# processes of different jobs) after iteration 2 and shrinks back to 2x2 after iteration
# 4; each round runs the old build, then the new one. Prints each run's redistribution
# time of the expansion and of the shrink (the session's own line), the medians and
# new/old per phase.
#   scripts/bench/resize_move_ab.sh OLD_BUILD NEW_BUILD [--rounds N] [--n N]
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1 new=$2; shift 2
rounds=5 n=2000
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    *) echo "resize_move_ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for b in "$old" "$new"; do
  [[ -x $b/apps/pdgemm_resizable ]] || { echo "resize_move_ab.sh: $b/apps/pdgemm_resizable missing" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); rounds $rounds, n $n; old $old, new $new"
echo "round | build | expand redistribution ms | shrink redistribution ms"
run() {  # build -> "expand_ms shrink_ms"
  local out
  out=$(cd "$1" && timeout 600 mpiexec --oversubscribe --bind-to none -n 4 apps/pdgemm_resizable -n "$n" --nb 64 -i 6 \
    -p scripted -s 2:expand:3x3,4:shrink:2x2 2>&1) || { echo "resize_move_ab.sh: run with $1 failed" >&2; echo "$out" >&2; return 1; }
  grep -q 'result check:.*OK' <<<"$out" || { echo "resize_move_ab.sh: $1's result check failed" >&2; return 1; }
  # The measured time is the first "redistribution X ms" of the line (a prediction follows).
  awk 'function first(   i) {for (i = 1; i <= NF; i++) if ($i == "redistribution") return $(i + 1)}
       /remap after iter/ && /expand/ {e = first()} /remap after iter/ && /shrink/ {s = first()}
       END {print e, s}' <<<"$out"
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
  for b in old new; do
    dir=$old; [[ $b == new ]] && dir=$new
    read -r e s < <(run "$dir")
    echo "$r | $b | $e | $s"
    echo "$b $e $s" >>"$tmp"
  done
done
python3 - "$tmp" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {(b, k): statistics.median(float(r[k + 1]) for r in rows if r[0] == b) for b in ("old", "new") for k in (0, 1)}
for k, name in ((0, "expand"), (1, "shrink")):
    print(f"{name}: median old {med['old', k]:.1f} ms, new {med['new', k]:.1f} ms, new/old {med['new', k] / med['old', k]:.2f}x")
PY
