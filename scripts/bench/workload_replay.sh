#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A rigid replay against its log (docs/measurements/workload.md, "A replay that matches its
# log"): the trace's jobs, every one rigid, under FCFS + EASY alone, with the scheduler's
# passes every 60 s, with a site's prime-time rule (PRIME), with both, and with both and the
# rules chosen on the second log (CTC: the log's outages, whole-machine spells and 24-h
# windows, counting as waiting only the jobs the prime-time rule lets start); each run's mean
# and median wait against the log's, and the share of jobs that waited at most 0, 60, 120,
# 240, 600, 3600, 14400 and 86400 s and the busy processors by weekday hour
# (trace_prime_time.py), into OUT/replay.md.
#   scripts/bench/workload_replay.sh [build-dir]
# Environment: TRACE (KTH), NAME (kth-sp2), CORES (1), PRIME (8-17), OUT
# (docs/data/workload/replay/NAME).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
trace=${TRACE:-$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf}
name=${NAME:-kth-sp2}
prime=${PRIME-8-17}
out=${OUT:-$here/docs/data/workload/replay/$name}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--swf "$trace" --cores-per-node "${CORES:-1}" --costs "$here/sim/costs/emulated.json" --malleable-share 0)
variants=("easy|--sched-interval 0" "passes_60s|--sched-interval 60")
[[ -n $prime ]] && variants+=("prime_${prime}|--sched-interval 0 --prime-time $prime"
                              "prime_${prime}_passes_60s|--sched-interval 60 --prime-time $prime"
                              "prime_${prime}_passes_60s_outages_24h|--sched-interval 60 --prime-time $prime --outages infer --outage-window-h 24")
records=()
{
  echo "$name: rigid replays against the log (malleable-clustersim, $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD))"
  echo
  echo "| variant | mean wait s | vs log | median wait s | vs log | mean turnaround s | utilisation |"
  echo "|---|---|---|---|---|---|---|"
} >"$out/replay.md"
for v in "${variants[@]}"; do
  label=${v%%|*}
  # shellcheck disable=SC2206
  args=(${v#*|})
  nice -n 10 "$bin" "${common[@]}" "${args[@]}" --out "$tmp/$label.json" --records "$tmp/$label.csv" \
    --trace-report "$tmp/rep.json" 2>/dev/null
  records+=(--records "$tmp/$label.csv")
  python3 - "$tmp/$label.json" "$tmp/rep.json" "$label" >>"$out/replay.md" <<'PY'
import json, sys
m, rep, label = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
rec = rep["recorded"]
d = lambda k: f"{(m[k] - rec[k]) / rec[k]:+.1%}" if rec.get(k, -1) > 0 else "-"
print(f"| {label} | {m['mean_wait_s']:,.0f} | {d('mean_wait_s')} | {m['median_wait_s']:,.0f} | {d('median_wait_s')} | "
      f"{m['mean_turnaround_s']:,.0f} | {m['utilisation']:.4f} |")
PY
done
python3 - "$tmp/rep.json" >>"$out/replay.md" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["recorded"]
print(f"| the log | {rec['mean_wait_s']:,.0f} | | {rec['median_wait_s']:,.0f} | | {rec['mean_turnaround_s']:,.0f} | "
      f"{rec['utilisation']:.4f} |")
PY
echo >>"$out/replay.md"
(cd "$here" && python3 scripts/bench/workload/trace_prime_time.py "${trace#$here/}" --prime-time "${prime:-8-17}" "${records[@]}") |
  sed "s|$tmp/||g" >>"$out/replay.md"
cat "$out/replay.md"
