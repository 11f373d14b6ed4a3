#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The second log with waits, replayed rigid against it (docs/measurements/workload.md, "A
# second log with waits: CTC SP2"): the evidence for each site rule the simulator has, read
# off the log's own schedule (trace_prime_time.py: weekday starts by hour, waits in whole
# minutes, waiting while the processors were free; --infer-user-limits: per-user limits),
# then the log's jobs, every one rigid, under FCFS + EASY with the defaults, with passes every
# 20 s (what the log's shortest waits show) and 60 s, with each rule (whether its evidence
# holds or not, said in the table), and on a smaller machine (a sensitivity, not a rule); each run's mean and median wait against the log's,
# into OUT/table.md (the table), OUT/evidence.md (the reports) and OUT/meta.txt.
#   scripts/bench/workload_second_log.sh [build-dir]
# Environment: TRACE (CTC), NAME (ctc-sp2), CORES (1), PRIME (8-17), SMALLER (318: the
# machine less the 20 processors more that the log's schedule left idle with a queue than
# the simulated one), OUT (docs/data/workload/NAME).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_second_log: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
trace=${TRACE:-$here/sim/traces/CTC-SP2-1996-3.1-cln-to-1996-09.swf}
name=${NAME:-ctc-sp2}
cores=${CORES:-1}
prime=${PRIME:-8-17}
smaller=${SMALLER:-318}
out=${OUT:-$here/docs/data/workload/$name}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--swf "$trace" --cores-per-node "$cores" --costs "$here/sim/costs/emulated.json" --malleable-share 0)
"$bin" --swf "$trace" --cores-per-node "$cores" --infer-user-limits >"$tmp/infer.txt"
read -r ujobs unodes < <(sed -n 's/^the tightest limits the log allows: --user-max-jobs \([0-9]*\) --user-max-nodes \([0-9]*\)$/\1 \2/p' "$tmp/infer.txt")
[[ -n ${ujobs:-} && -n ${unodes:-} ]] || { cat "$tmp/infer.txt" >&2; echo "workload_second_log: no limits in the report" >&2; exit 1; }
lim="--user-max-jobs $ujobs --user-max-nodes $unodes"
# label|evidence|options
variants=("FCFS + EASY (defaults)|-|--sched-interval 0"
          "+ passes every 20 s|yes (the log's shortest waits spread flat over 5-25 s: see evidence.md)|--sched-interval 20"
          "+ passes every 60 s|no (waits in whole minutes: see evidence.md)|--sched-interval 60"
          "+ 20-s passes + the log's outages|yes (nothing ran while jobs waited, spells of 1 h or more: see notes.md)|--sched-interval 20 --outages infer"
          "+ 20-s passes + outages + the nodes it left idle (24-h windows)|in part (the least capacity lost where its queue never emptied: see notes.md)|--sched-interval 20 --outages infer --outage-window-h 24"
          "+ prime-time rule $prime|no (weekday starts by hour: see evidence.md)|--sched-interval 0 --prime-time $prime"
          "+ inferred per-user limits|no (waiting at a user's most jobs: see evidence.md)|--sched-interval 0 $lim"
          "on $smaller nodes (sensitivity, not a rule)|-|--sched-interval 0 --nodes $smaller"
          "conservative backfilling, 20-s passes (sensitivity: the log names EASY)|-|--sched-interval 20 --backfill conservative"
          "the same + the log's outages (sensitivity)|-|--sched-interval 20 --outages infer --backfill conservative")
records=()
{
  echo "$name: rigid replays against the log (malleable-clustersim, $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD))"
  echo
  echo "| replay | evidence in the log | mean wait s | vs log | median wait s | vs log | jobs | utilisation |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$out/table.md"
i=0
for v in "${variants[@]}"; do
  IFS='|' read -r label evidence opts <<<"$v"
  # shellcheck disable=SC2206
  args=($opts)
  nice -n 10 "$bin" "${common[@]}" "${args[@]}" --out "$tmp/$i.json" --records "$tmp/run$i.csv" \
    --trace-report "$tmp/rep$i.json" 2>/dev/null
  [[ $opts == *--nodes* ]] || records+=(--records "$tmp/run$i.csv")
  python3 - "$tmp/$i.json" "$tmp/rep$i.json" "$label" "$evidence" >>"$out/table.md" <<'PY'
import json, sys
m, rep, label, ev = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
rec = rep["recorded"]
d = lambda k: f"{(m[k] - rec[k]) / rec[k]:+.1%}" if rec.get(k, -1) > 0 else "-"
print(f"| {label} | {ev} | {m['mean_wait_s']:,.0f} | {d('mean_wait_s')} | {m['median_wait_s']:,.0f} | "
      f"{d('median_wait_s')} | {rep['kept']:,} | {m['utilisation']:.4f} |")
PY
  i=$((i + 1))
done
python3 - "$tmp/rep0.json" >>"$out/table.md" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rec = rep["recorded"]
print(f"| the log | | {rec['mean_wait_s']:,.0f} | | {rec['median_wait_s']:,.0f} | | {rep['kept']:,} | {rec['utilisation']:.4f} |")
PY
{
  echo "runs: run0.csv defaults, run1.csv 20-s passes, run2.csv 60-s passes, run3.csv 20-s passes and outages, run4.csv and partial outages, run5.csv prime time $prime, run6.csv inferred per-user limits"
  echo
  (cd "$here" && python3 scripts/bench/workload/trace_prime_time.py "${trace#"$here"/}" --prime-time "$prime" "${records[@]}") |
    sed "s|$tmp/||g"
  echo
  sed "s|$here/||" "$tmp/infer.txt"
  echo
  # the outages the log's own schedule shows (malleable-clustersim --outages infer)
  "$bin" "${common[@]}" --outages infer --outage-window-h 24 --write-workload /dev/null 2>&1 |
    grep 'outage' | sed "s|$here/||g"
} >"$out/evidence.md"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$here" rev-parse HEAD)"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "trace: ${trace#"$here"/} (sha256 $(sha256sum "$trace" | cut -d' ' -f1))"
  echo "command: scripts/bench/workload_second_log.sh $build"
  echo "runs: $bin ${common[*]/#$here\//} <options of each row of table.md>"
  for v in "${variants[@]}"; do IFS='|' read -r label _ opts <<<"$v"; echo "  $label: $opts"; done
  echo "evidence: python3 scripts/bench/workload/trace_prime_time.py ${trace#"$here"/} --prime-time $prime --records <each run's CSV but the last>"
  echo "          $bin --swf ${trace#"$here"/} --cores-per-node $cores --infer-user-limits"
} >"$out/meta.txt"
cat "$out/table.md"
