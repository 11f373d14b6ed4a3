#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-user limits read off a log and replayed (docs/measurements/workload.md, "Per-user
# limits"): the simulator's --infer-user-limits report (each user's most jobs and nodes at
# once in the log's own schedule, and the wait that passed while it ran its most), then the
# log's jobs every one rigid, replayed with the trace's replay rules (RULES) without
# per-user limits and with the inferred ones (--user-max-jobs / --user-max-nodes at the
# most any user ran at once: the tightest the log allows; a node limit at the machine's size
# limits nothing and is left out, said in the output), each run's mean and median wait
# against the log's; then with Slurm's multifactor priority with fair-share instead of FCFS
# (--fair-share-weight FS_WEIGHT --age-weight AGE_WEIGHT, default 10000 and 1000, a common
# site setting; the half-life and the maximum age Slurm's defaults, 7 days), and with both;
# into OUT/NAME.md.
#   scripts/bench/workload_user_limits.sh [build-dir]
# Environment: TRACE (KTH), NAME (kth-sp2), CORES (1), RULES (the trace's replay rules with
# their evidence; for KTH "--sched-interval 60 --prime-time 8-17", docs/data/workload/replay;
# other traces: "--sched-interval 60"), OUT (docs/data/workload/user_limits).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
[[ -x $bin ]] || { echo "workload_user_limits: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
trace=${TRACE:-$here/sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf}
name=${NAME:-kth-sp2}
rules=${RULES---sched-interval 60 --prime-time 8-17}
out=${OUT:-$here/docs/data/workload/user_limits}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--swf "$trace" --cores-per-node "${CORES:-1}" --costs "$here/sim/costs/emulated.json" --malleable-share 0)
"$bin" --swf "$trace" --cores-per-node "${CORES:-1}" --infer-user-limits >"$tmp/infer.txt"
read -r jobs nodes < <(sed -n 's/^the tightest limits the log allows: --user-max-jobs \([0-9]*\) --user-max-nodes \([0-9]*\)$/\1 \2/p' "$tmp/infer.txt")
[[ -n ${jobs:-} && -n ${nodes:-} ]] || { cat "$tmp/infer.txt" >&2; echo "workload_user_limits: no limits in the report" >&2; exit 1; }
# the machine's nodes as the simulator reads them (the trace's header and CORES)
"$bin" --swf "$trace" --cores-per-node "${CORES:-1}" --write-workload /dev/null --trace-report "$tmp/machine.json" 2>/dev/null
machine=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["machine_nodes"]))' "$tmp/machine.json")
lim="--user-max-jobs $jobs" lim_note=""
if ((nodes < machine)); then
  lim+=" --user-max-nodes $nodes"
else  # a limit at the machine's size limits nothing (the simulator refuses it)
  lim_note="--user-max-nodes left out: the most nodes a user ran at once ($nodes) is the machine's $machine"
fi
{
  echo "$name: per-user limits (malleable-clustersim, $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD))"
  echo
  sed "s|$here/||" "$tmp/infer.txt"
  echo
  echo "Rigid replays, rules: ${rules:-none}"
  [[ -z $lim_note ]] || echo "($lim_note)"
  echo
  echo "| per-user rules | mean wait s | vs log | median wait s | vs log | jobs held by a limit |"
  echo "|---|---|---|---|---|---|"
} >"$out/$name.md"
fs="--fair-share-weight ${FS_WEIGHT:-10000} --age-weight ${AGE_WEIGHT:-1000}"
for v in "none|" "inferred: $lim|$lim" "fair-share: $fs|$fs" "both|$lim $fs"; do
  # shellcheck disable=SC2206
  args=($rules ${v#*|})
  nice -n 10 "$bin" "${common[@]}" "${args[@]}" --out "$tmp/m.json" --trace-report "$tmp/rep.json" 2>/dev/null
  python3 - "$tmp/m.json" "$tmp/rep.json" "${v%%|*}" >>"$out/$name.md" <<'PY'
import json, sys
m, rec, label = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["recorded"], sys.argv[3]
d = lambda k: f"{(m[k] - rec[k]) / rec[k]:+.1%}" if rec.get(k, -1) > 0 else "-"
print(f"| {label} | {m['mean_wait_s']:,.0f} | {d('mean_wait_s')} | {m['median_wait_s']:,.0f} | {d('median_wait_s')} | "
      f"{m.get('user_limit_held', '-')} |")
PY
done
python3 - "$tmp/rep.json" >>"$out/$name.md" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["recorded"]
print(f"| the log | {rec['mean_wait_s']:,.0f} | | {rec['median_wait_s']:,.0f} | | |")
PY
cat "$out/$name.md"
