#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Seeded resizes with --mechanism spawn under BUILD/bin/malleable-run, the hang left in:
# does every hung or failed spawn complete as a resize by restart (the session's expansion
# fallback), and how long from a hung spawn to computing again on the target grid?
#   spawn_fallback_bench.sh BUILD OUT_DIR [RESIZES] [SEED] [STALL_RATE]
# Jobs of pdgemm_resizable, each a seeded walk of 6 resizes over 1x2, 2x2, 2x3 (every
# remap point a resize), run one after another until RESIZES resizes were scheduled.
# BLACS_DYN_PMIX_GDS=keep (Open MPI's shared-memory PMIx store: the spawn hang is more
# frequent with it), and a job is given BLACS_DYN_FAULT=stall-newcomer-in-init with
# probability STALL_RATE (default 0.1; seeded): then every expansion of that job hangs.
# The spawn deadline is RESIZE_SPAWN_DEADLINE (default here 10, i.e. a floor of 10 s); the
# resize history is the bench's own file, kept across the relaunches, so the deadline is
# derived from this machine's spawn times as they come.
# A job is lost when malleable-run does not end with status 0 or the driver's result check
# (B = (sA)^k B0 against serial OpenBLAS) is not OK. Every output line is timestamped; per
# fallback: the deadline passed (or the launch ended) -> the relaunch's first iteration.
# Writes OUT_DIR/jobs.csv (job = SEED x 100000 + its index, resizes, expansions, fallbacks, status, check, seconds),
# OUT_DIR/fallbacks.csv (job, kind, deadline_s, spawn_to_exit_s, exit_to_compute_s,
# spawn_to_compute_s), OUT_DIR/summary.txt, each lost job's log in OUT_DIR/lost/ and the
# log of each job with a fallback but no injected stall in OUT_DIR/fallback-job-*.log.
set -uo pipefail
build=${1:?usage: spawn_fallback_bench.sh BUILD OUT_DIR [RESIZES] [SEED] [STALL_RATE]}
out=${2:?usage: spawn_fallback_bench.sh BUILD OUT_DIR [RESIZES] [SEED] [STALL_RATE]}
total=${3:-1000} seed=${4:-1} rate=${5:-0.1}
pdgemm=$build/apps/pdgemm_resizable launcher=$build/bin/malleable-run
[[ -x $pdgemm ]] || { echo "no $pdgemm (build the target pdgemm_resizable)" >&2; exit 2; }
[[ -x $launcher ]] || { echo "no $launcher (build the target malleable-run)" >&2; exit 2; }
mkdir -p "$out/lost"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 BLACS_DYN_PMIX_GDS=keep
export RESIZE_SPAWN_DEADLINE=${RESIZE_SPAWN_DEADLINE:-10} RESIZE_HISTORY=$work/history.json
export MALLEABLE_MPIEXEC="${MALLEABLE_MPIEXEC:-mpiexec --oversubscribe --bind-to none}"
echo "job,resizes,expansions,fallbacks,status,check,seconds,stalled" >"$out/jobs.csv"
echo "job,kind,deadline_s,spawn_to_exit_s,exit_to_compute_s,spawn_to_compute_s" >"$out/fallbacks.csv"
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done; }
grids=(1x2 2x2 2x3)
procs() { echo $((${1%x*} * ${1#*x})); }
done_resizes=0 jobs=0 lost=0 fallbacks=0 expansions=0
RANDOM=$seed
while ((done_resizes < total)); do
  s=$((seed * 100000 + jobs))
  # the walk: 6 resizes, each to another grid than the current one
  cur=2x2 sched= nexp=0
  for k in 1 2 3 4 5 6; do
    while :; do g=${grids[RANDOM % 3]}; [[ $g != "$cur" ]] && break; done
    if (($(procs "$g") > $(procs "$cur"))); then a=expand; ((++nexp)); else a=shrink; fi
    sched+=${sched:+,}$k:$a:$g
    cur=$g
  done
  stall=0
  r=$RANDOM
  stall=$(awk -v r="$r" -v p="$rate" 'BEGIN{print (r / 32768 < p) ? 1 : 0}')
  env_fault=()
  ((stall)) && env_fault=(BLACS_DYN_FAULT=stall-newcomer-in-init)
  rm -rf "$work/ck"
  t0=$(date +%s.%N)
  env "${env_fault[@]}" timeout 900 "$launcher" -n 4 -- "$pdgemm" -n 120 --nb 16 -i 7 -p scripted -s "$sched" \
    --mechanism spawn --checkpoint "$work/ck" 2>&1 | stamp >"$work/log"
  rc=${PIPESTATUS[0]}
  t1=$(date +%s.%N)
  check=FAILED
  grep -q "result check: .*OK" "$work/log" && check=OK
  nfb=$(grep -c "did not complete within its spawn deadline\|during an expansion by spawn: a resize by restart" "$work/log")
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}')
  echo "$s,6,$nexp,$nfb,$rc,$check,$secs,$stall" >>"$out/jobs.csv"
  if [[ $rc -ne 0 || $check != OK ]]; then
    ((++lost))
    cp "$work/log" "$out/lost/job-$s.log"
  elif ((nfb > 0 && !stall)); then
    cp "$work/log" "$out/fallback-job-$s.log"  # a fallback without an injected stall: why?
  fi
  # per fallback: the armed line (before the spawn), the exit (deadline message or the
  # launcher's line), the relaunch's first iteration line
  awk -v seed="$s" '
    / before the spawn after iter / { armed = $1; match($0, /spawn deadline [0-9.]+/); dl = substr($0, RSTART + 15, RLENGTH - 15) }
    /did not complete within its spawn deadline/ { ex = $1; kind = "deadline" }
    /during an expansion by spawn: a resize by restart/ { ex = $1; kind = "died" }
    /^[0-9.]+ malleable-run: launch [0-9]+:/ && ex != "" { relaunch = $1 }
    /\[pdgemm\] iter / && relaunch != "" {
      printf "%s,%s,%s,%.2f,%.2f,%.2f\n", seed, kind, dl, ex - armed, $1 - ex, $1 - armed
      ex = ""; relaunch = ""
    }' "$work/log" >>"$out/fallbacks.csv"
  done_resizes=$((done_resizes + 6)) jobs=$((jobs + 1)) fallbacks=$((fallbacks + nfb)) expansions=$((expansions + nexp))
  printf 'job %d (%d: %s%s): status %d, check %s, %d fallback(s), %.0f s; %d resizes so far, %d lost\n' \
    "$jobs" "$s" "$sched" "$( ((stall)) && echo ', stall injected')" "$rc" "$check" "$nfb" "$secs" "$done_resizes" "$lost"
done
{
  echo "spawn_fallback_bench: $jobs jobs, $done_resizes resizes scheduled ($expansions expansions by spawn), seed $seed, stall rate $rate"
  echo "BLACS_DYN_PMIX_GDS=keep, RESIZE_SPAWN_DEADLINE=$RESIZE_SPAWN_DEADLINE, load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "fallbacks (resizes by restart after a spawn that hung or died): $fallbacks"
  echo "lost jobs: $lost"
  awk -F, 'NR > 1 { n++; d += $3; a += $4; b += $5; c += $6; if ($6 > m) m = $6 }
    END { if (n) printf "per fallback (mean of %d): deadline %.1f s, armed -> exit %.1f s, exit -> computing on the target grid %.1f s, armed -> computing %.1f s (max %.1f s)\n", n, d / n, a / n, b / n, c / n, m }' "$out/fallbacks.csv"
} | tee "$out/summary.txt"
((lost == 0))
