#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A log with waits, any Standard Workload Format log or a site's sacct --parsable2 log,
# replayed rigid against it (docs/measurements/workload.md, "A second log with waits"): the
# evidence for each site rule the simulator has, computed from this log's own schedule
# (workload/second_log_evidence.py and trace_prime_time.py: the pass interval its short
# waits show, weekday starts by hour, waits in whole minutes, waiting while nodes were free,
# idle nodes while a job waited; --infer-user-limits: per-user limits; --outages infer:
# spells with nothing running and a queue), then the log's jobs, every one rigid, under
# FCFS + EASY with the defaults, with passes at the interval the log shows (when it shows
# one) and every 60 s, with each rule (its evidence beside it in the table), and on a
# smaller machine (the machine less the idle nodes the log had beyond the default replay's
# while a job waited: a sensitivity, not a rule); each run's mean and median wait against
# the log's, into OUT/table.md (the table), OUT/evidence.md (the reports) and OUT/meta.txt.
#   TRACE=LOG [NODES=N] [CORES=C] scripts/bench/workload_second_log.sh [build-dir]
# Environment: TRACE (required: an SWF log, or a sacct log: its first line sacct's header),
# NODES (the machine's nodes: required for a sacct log, sacct does not record them; for an
# SWF log the header's MaxNodes, or MaxProcs / CORES when the two disagree, said in the
# output), CORES (processors per node, default 1; a sacct log's jobs then count
# ceil(NCPUS / CORES) nodes instead of NNodes), NAME (the log's file name, lower case, up to
# its first year), PRIME (8-17: the weekday hours a prime-time rule would hold), SMALLER
# (the smaller machine's nodes; default derived as above, the row left out when the log
# left no more nodes idle than the replay), FIRST and JOBS (a window of the log's kept jobs
# for the replays; the evidence is the whole log's), OUT (docs/data/workload/NAME).
# E.g. TRACE=tests/clustersim/data/site.sacct NODES=8 OUT=/tmp/site (seconds);
# TRACE=sim/traces/KTH-SP2-1996-2.1-cln-to-1997-05.swf FIRST=2000 JOBS=2000 OUT=/tmp/kth.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
bin=$build/sim/malleable-clustersim
wl=$here/scripts/bench/workload
die() { echo "workload_second_log: $*" >&2; exit 2; }
[[ -x $bin ]] || { echo "workload_second_log: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
trace=${TRACE:-}
[[ -n $trace ]] || { sed -n 3,26p "$0" >&2; die "give the log: TRACE=FILE"; }
[[ -f $trace && -r $trace ]] || die "cannot read $trace"
trace=$(realpath "$trace")
num() { [[ $2 =~ ^[0-9]{1,9}$ ]] || die "$1 must be a whole number, got '$2'"; }
nodes_env=${NODES:-} cores=${CORES:-1} prime=${PRIME:-8-17} smaller=${SMALLER:-} first=${FIRST:-0} jobs=${JOBS:-0}
[[ -z $nodes_env ]] || { num NODES "$nodes_env"; ((nodes_env > 0)) || die "NODES must be at least 1"; }
num CORES "$cores"; ((cores > 0)) || die "CORES must be at least 1"
[[ -z $smaller ]] || num SMALLER "$smaller"
num FIRST "$first"; num JOBS "$jobs"
[[ $prime =~ ^([0-9]{1,2})-([0-9]{1,2})$ ]] && ((BASH_REMATCH[1] < BASH_REMATCH[2] && BASH_REMATCH[2] <= 24)) ||
  die "PRIME must be START-END hours, 0 <= START < END <= 24, got '$prime'"
base=$(basename "$trace")
default_name=$(tr 'A-Z' 'a-z' <<<"${base%%-[0-9][0-9][0-9][0-9]-*}")
default_name=${default_name%.swf}
default_name=${default_name%.sacct}
name=${NAME:-$default_name}
[[ $name =~ ^[A-Za-z0-9._-]{1,64}$ ]] || die "NAME must be letters, digits, '.', '_' or '-', got '$name'"
out=${OUT:-$here/docs/data/workload/$name}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rel() { sed "s|$here/||g; s|$tmp/||g"; }

# The log's kind (a sacct log's first line is its header, naming JobIDRaw or JobID).
kind=$(python3 - "$trace" <<'PY'
import sys
with open(sys.argv[1], errors="replace") as f:
    for line in f:
        if line.strip():
            fields = [x.strip().lower() for x in line[:65536].split("|")]
            print("sacct" if len(fields) > 1 and ({"jobidraw", "jobid"} & set(fields)) else "swf")
            break
    else:
        print("empty")
PY
)
[[ $kind != empty ]] || die "$trace is empty"
nodes_note=""
cores_opt=(--cores-per-node "$cores") nodes_opt=()
if [[ $kind == sacct ]]; then
  [[ -n $nodes_env ]] || die "a sacct log needs NODES, the machine's nodes (scontrol show nodes --oneliner | wc -l)"
  src=(--sacct "$trace")
  [[ -n ${CORES:-} ]] || cores_opt=()  # a sacct job's nodes: its NNodes unless CORES asks for NCPUS / CORES
  nodes_opt=(--nodes "$nodes_env")
  nodes_note="nodes: $nodes_env (NODES)"
else
  src=(--swf "$trace")
  if [[ -n $nodes_env ]]; then
    nodes_opt=(--nodes "$nodes_env") nodes_note="nodes: $nodes_env (NODES)"
  else
    # the header's MaxNodes, or MaxProcs / CORES where the two disagree (the simulator refuses
    # a header whose MaxProcs / CORES is not its MaxNodes without --nodes)
    read -r hn hp < <(python3 - "$trace" <<'PY'
import re, sys
val = {"maxnodes": 0, "maxprocs": 0}
with open(sys.argv[1], errors="replace") as f:
    for line in f:
        if not line.startswith(";"):
            break
        key, _, v = line[1:200].partition(":")
        m = re.match(r"\s*(\d{1,9})\b", v)
        if key.strip().lower() in val and m:
            val[key.strip().lower()] = int(m.group(1))
print(val["maxnodes"], val["maxprocs"])
PY
)
    if ((hp > 0 && (hp + cores - 1) / cores != hn)); then
      nodes_opt=(--nodes "$(((hp + cores - 1) / cores))")
      nodes_note="nodes: $(((hp + cores - 1) / cores)) (the header's MaxProcs $hp / CORES $cores; its MaxNodes reads $hn)"
    else
      nodes_note="nodes: $hn (the header's MaxNodes; MaxProcs $hp, CORES $cores)"
    fi
  fi
fi
log=(${src[@]+"${src[@]}"} ${cores_opt[@]+"${cores_opt[@]}"} ${nodes_opt[@]+"${nodes_opt[@]}"})
window=(--swf-first "$first" --swf-jobs "$jobs")
# The log as the simulator reads it: its machine (and a malformed log refused here, with its line).
"$bin" "${log[@]}" --write-workload /dev/null --trace-report "$tmp/probe.json" 2>"$tmp/probe.err" ||
  { cat "$tmp/probe.err" >&2; die "the simulator cannot read $trace"; }
machine=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["machine_nodes"]))' "$tmp/probe.json")
num machine "$machine"
echo "workload_second_log: $name ($kind), $machine nodes; $nodes_note"
# The log as SWF text for the evidence scripts, in nodes.
ev_cores=$cores
if [[ $kind == sacct ]]; then
  python3 "$wl/sacct_swf.py" "$trace" --nodes "$machine" ${CORES:+--cores-per-node "$cores"} -o "$tmp/log.swf"
  swf=$tmp/log.swf ev_cores=1
else
  swf=$trace
fi
ev=(--machine "$machine" --cores-per-node "$ev_cores")
{ read -r pass; read -r pass_ev; } < <(python3 "$wl/second_log_evidence.py" passes "$swf" "${ev[@]}")
num pass "$pass"
prime_ev=$(python3 "$wl/second_log_evidence.py" prime "$swf" --prime-time "$prime")
sched_ev=$(python3 "$wl/second_log_evidence.py" scheduler "$swf")
# per-user limits: a node limit at the machine's size limits nothing (the simulator refuses it)
"$bin" "${log[@]}" --infer-user-limits >"$tmp/infer.txt"
read -r ujobs unodes < <(sed -n 's/^the tightest limits the log allows: --user-max-jobs \([0-9]\{1,9\}\) --user-max-nodes \([0-9]\{1,9\}\)$/\1 \2/p' "$tmp/infer.txt")
[[ -n ${ujobs:-} && -n ${unodes:-} ]] || { cat "$tmp/infer.txt" >&2; die "no limits in the report"; }
user_ev=$(sed -n 's/^job-seconds waited while the job.s user ran its own most jobs at once: [0-9]* of [0-9]* (\([0-9.]*%\))$/\1/p' "$tmp/infer.txt")
user_ev="the log: ${user_ev:-?} of its waiting passed while the job's user ran its most jobs at once"
lim="--user-max-jobs $ujobs"
if ((unodes < machine)); then
  lim+=" --user-max-nodes $unodes"
else
  user_ev+="; --user-max-nodes left out: a user's most nodes at once ($unodes) is the machine's $machine"
fi
# the outages the log's own schedule shows (malleable-clustersim --outages infer)
"$bin" "${log[@]}" --outages infer --outage-window-h 24 --write-workload /dev/null 2>&1 | grep 'outage' |
  rel >"$tmp/outages.txt" || true
outage_ev=$(sed -n 's/.*: \([0-9]*\) outage(s) of the whole machine inferred, \([0-9.]*\) h in all.*/the log: \1 spell(s) of 1 h or more with nothing running and a queue, \2 h/p' "$tmp/outages.txt")
window_ev=$(sed -n 's/.*; \([0-9]*\) window(s) of 24 h with nodes down, \([0-9.]*\) node-hours.*/the log: \1 window(s) of 24 h whose queue never emptied with nodes it never used, \2 node-hours/p' "$tmp/outages.txt")
common=("${log[@]}" "${window[@]}" --costs "$here/sim/costs/emulated.json" --malleable-share 0)

# label|evidence|options (each row only options that act in a rigid replay)
p=$pass
((p > 0)) || p=60
variants=("FCFS + EASY (defaults)|-|--sched-interval 0")
((pass > 0 && pass != 60)) && variants+=("+ passes every $pass s|$pass_ev|--sched-interval $pass")
variants+=("+ passes every 60 s|$pass_ev|--sched-interval 60"
           "+ $p-s passes + the log's outages|${outage_ev:-the log: no outage inferred}|--sched-interval $p --outages infer"
           "+ $p-s passes + outages + the nodes it left idle (24-h windows)|${window_ev:-the log: no window inferred}|--sched-interval $p --outages infer --outage-window-h 24"
           "+ prime-time rule $prime|$prime_ev|--sched-interval 0 --prime-time $prime"
           "+ inferred per-user limits ($lim)|$user_ev|--sched-interval 0 $lim"
           "conservative backfilling, $p-s passes (sensitivity)|$sched_ev|--sched-interval $p --backfill conservative"
           "the same + the log's outages (sensitivity)|-|--sched-interval $p --outages infer --backfill conservative")
records=() runs_line="runs:"
{
  echo "$name: rigid replays against the log (malleable-clustersim, $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD)); $machine nodes"
  echo
  echo "| replay | evidence in the log | mean wait s | vs log | median wait s | vs log | jobs | utilisation |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$out/table.md"
row() {  # row INDEX LABEL EVIDENCE OPTIONS...
  local i=$1 label=$2 evidence=$3
  shift 3
  nice -n 10 "$bin" "${common[@]}" "$@" --out "$tmp/$i.json" --records "$tmp/run$i.csv" \
    --trace-report "$tmp/rep$i.json" 2>"$tmp/err$i" || { cat "$tmp/err$i" >&2; die "the replay '$label' failed"; }
  python3 - "$tmp/$i.json" "$tmp/rep$i.json" "$label" "$evidence" >>"$out/table.md" <<'PY'
import json, sys
m, rep, label, ev = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
rec = rep["recorded"]
d = lambda k: f"{(m[k] - rec[k]) / rec[k]:+.1%}" if rec.get(k, -1) > 0 else "-"
print(f"| {label} | {ev} | {m['mean_wait_s']:,.0f} | {d('mean_wait_s')} | {m['median_wait_s']:,.0f} | "
      f"{d('median_wait_s')} | {rep['kept']:,} | {m['utilisation']:.4f} |")
PY
}
i=0
for v in "${variants[@]}"; do
  IFS='|' read -r label evidence opts <<<"$v"
  # shellcheck disable=SC2206  # the options are this script's own words and numbers
  args=($opts)
  row "$i" "$label" "$evidence" "${args[@]}"
  records+=(--records "$tmp/run$i.csv")
  runs_line+=" run$i.csv $label;"
  i=$((i + 1))
done
# the smaller machine: the idle nodes the log had beyond the default replay's while a job waited
{ read -r idle; read -r idle_ev; } < <(python3 "$wl/second_log_evidence.py" idle "$swf" "$tmp/run0.csv" "${ev[@]}")
num idle "$idle"
small_label=""
if [[ -n $smaller ]]; then
  small_label="on $smaller nodes (SMALLER; sensitivity, not a rule)"
elif ((idle > 0 && idle < machine)); then
  smaller=$((machine - idle)) small_label="on $smaller nodes (sensitivity, not a rule)"
fi
if [[ -n $small_label ]]; then
  if ((smaller >= 1 && smaller <= machine)); then
    row "$i" "$small_label" "$idle_ev" --sched-interval 0 --nodes "$smaller"
  else
    die "SMALLER must be 1 to the machine's $machine nodes, got $smaller"
  fi
else
  echo "workload_second_log: no smaller machine: the log left no more nodes idle while a job waited than the replay ($idle_ev)"
fi
python3 - "$tmp/rep0.json" >>"$out/table.md" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rec = rep["recorded"]
print(f"| the log | | {rec['mean_wait_s']:,.0f} | | {rec['median_wait_s']:,.0f} | | {rep['kept']:,} | {rec['utilisation']:.4f} |")
PY
{
  echo "$runs_line"
  echo
  echo "$pass_ev"
  echo
  (cd "$here" && python3 "$wl/trace_prime_time.py" "$swf" --prime-time "$prime" "${ev[@]}" "${records[@]}") | rel
  echo
  rel <"$tmp/infer.txt"
  echo
  cat "$tmp/outages.txt"
} >"$out/evidence.md"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$here" rev-parse HEAD)"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "log: ${trace#"$here"/} ($kind, sha256 $(sha256sum "$trace" | cut -d' ' -f1)); $nodes_note"
  echo "command: TRACE=${trace#"$here"/} ${NODES:+NODES=$NODES }${CORES:+CORES=$CORES }${FIRST:+FIRST=$FIRST }${JOBS:+JOBS=$JOBS }scripts/bench/workload_second_log.sh"
  echo "runs: $bin ${common[*]} <options of each row of table.md>" | rel
  for v in "${variants[@]}"; do IFS='|' read -r label _ opts <<<"$v"; echo "  $label: $opts"; done
  [[ -z $small_label ]] || echo "  $small_label: --sched-interval 0 --nodes $smaller"
  echo "evidence: python3 scripts/bench/workload/second_log_evidence.py passes|prime|idle|scheduler; trace_prime_time.py --prime-time $prime --machine $machine --cores-per-node $ev_cores --records <each run's CSV but the smaller machine's>"
  echo "          $bin ${log[*]} --infer-user-limits" | rel
  [[ $kind != sacct ]] || echo "          the sacct log as SWF: python3 scripts/bench/workload/sacct_swf.py --nodes $machine"
} >"$out/meta.txt"
cat "$out/table.md"
