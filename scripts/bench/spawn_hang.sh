#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Counts the spawn hang of Open MPI 4.1.4 + PMIx (docs/reference/blacs-dyn.md, "The spawn hang"):
# seeded loops of every kind of expansion blacs-dyn makes, with PMIx's client data store
# as blacs-dyn sets it (cure "hash", PMIX_MCA_gds=hash) and as PMIx chooses it
# (cure "keep", BLACS_DYN_PMIX_GDS=keep) or as BLACS_DYN_PML=ucx does (cure "ucx": the UCX
# PML over PMIx's own store); "hash-nowait" and "keep-nowait" the same stores with leaving
# processes that exit right after MPI_Finalize (BLACS_DYN_LEAVE_WAIT=off: blacs-dyn before
# it waited for the PMIx server to close their connection; rows of "hash" and "keep" from
# before commit of that change, 2026-11-27, are that too), each expansion under its own deadline so that a
# hang is counted, not waited for. Kinds (driver tests/blacs-dyn/runtime/spawn_hang_driver.cpp,
# 2 original processes, each round an expansion and a shrink back):
#   one         blacs_dyn_expand of 1 process
#   several     blacs_dyn_expand of 3 processes (one MPI_Comm_spawn)
#   hosts       blacs_dyn_expand_hosts, one group of 1 per host on two hosts (this node
#               twice): two MPI_Comm_spawn at the same time from ranks 0 and 1
#   concurrent  two jobs (two mpiexec) each running kind one at the same time, as
#               ctest -j2 and shared nodes do; both jobs' expansions count
#   nodes       kind hosts on the emulated cluster (scripts/bench/spawn_hang_cluster.sh
#               brings it up under its lock and sets SPAWN_HANG_NODES): the job on node1,
#               one newcomer onto each node named (default node2,node3), through the
#               cluster's launcher (mpiexec in node1, its daemons over cluster-rsh)
#   grow        kind one without the shrink back: the world grows by one process a round
#               and none exits before the job ends (no client of the launcher's PMIx
#               server leaves while newcomers connect); --block sets how far it grows
#   walks       two seeded random walks at once (tests/blacs-dyn/runtime/random_walk.cpp, 24
#               resizes each, seeds 1001, 1002, ...), five pairs a turn: the suite's test
#               as ctest -j2 runs it; each expansion the walks made is a row (no spawn time:
#               the walk does not print it), a walk that stops is one hung row
# The configurations are interleaved in blocks of --block rounds (every configuration
# advances by one block in turn), so that they run side by side under the same load.
# A round whose phase line does not change for --timeout seconds is a hang: the stacks of
# every process of that job (mpiexec and all its descendants, gdb) are written to
# OUT/stacks/ (packed into OUT/stacks.tar.xz at the end), then the job is killed. Output in OUT (default docs/data/spawn_hang):
#   spawns.csv   one row per expansion: kind, cure, job, round, status (ok | hang | failed),
#                phase of a hang (spawn | shrink), its stack signature (lookup+init: rank 0
#                in PMIx_Lookup and a newcomer in PMIx_Init; lookup; other), spawn seconds,
#                shrink seconds, load average at job start, the job's start (UTC), the
#                commit measured (+dirty when blacs-dyn, its tests or this script had
#                uncommitted changes), the hosts (local: this machine; else the emulated
#                nodes). Rows are only appended: the counts of every session add up.
#                (The rows of the first session, 2026-11-25, got date, commit and hosts
#                afterwards: the job's start from its name, the commit that recorded them.)
# A job whose output moves on within 5 s after the stacks were taken was stalled, not hung:
# its stacks are kept as *.stall.txt and its spawn time counts as measured.
#   summary.csv  per (kind, cure): expansions, hangs, rate and 95% interval, spawn-time
#                quantiles (scripts/bench/spawn_hang_summary.py); summary.md the same as
#                the table of docs/reference/blacs-dyn.md; walks_needed.txt how many random walks a
#                suite run needs to show the hang (the count tests/blacs-dyn runs);
#                cause_test.txt kind grow against the kinds whose newcomers leave
# Usage: spawn_hang.sh [--spawns N] [--block R] [--timeout S] [--kinds a,b] [--cures a,b]
#                      [--budget SECONDS] [--busy N] [--out DIR]
# --busy N runs N busy loops (`while :; do :; done`) beside the jobs for the whole run: a
# load of its own, for a machine that is otherwise idle (the hangs were counted at loads
# of 9-50, and are rare at load < 3: docs/data/spawn_hang/ucx_low_load/).
# BUILD_DIR (default build) holds the driver (target blacs_dyn_spawn_hang).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
spawns=500 block=25 timeout=30 kinds=one,several,hosts,concurrent cures=hash,keep budget=0 busy=0
out=$here/docs/data/spawn_hang
while (($#)); do
  case $1 in
    --spawns) spawns=$2; shift 2 ;;
    --block) block=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    --cures) cures=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --busy) busy=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "spawn_hang: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
build=${BUILD_DIR:-$here/build}
[[ $build = /* ]] || build=$here/$build
driver=$build/tests/blacs-dyn/blacs_dyn_spawn_hang
walker=$build/tests/blacs-dyn/blacs_dyn_random_walk
for exe in "$driver" "$walker"; do
  [[ -x $exe ]] || { echo "spawn_hang: $exe missing: cmake --build $build --target blacs_dyn_spawn_hang blacs_dyn_random_walk" >&2; exit 2; }
done
if ! command -v gdb >/dev/null; then
  echo "spawn_hang: gdb missing (stacks of a hang are taken with it): apt-get install -y gdb" >&2
  exit 2
fi
# From here on a failing command (a process gone while its stack is taken, a grep without
# a match) must not end a run of an hour: no errexit, the checks are explicit.
set +e
# The stacks of every session are kept as one archive, OUT/stacks.tar.xz (123 small text
# files were 3.6 MB of the repository): unpacked here, the run adds to the folder, packed
# again at the end (read one with: tar -xJOf OUT/stacks.tar.xz stacks/NAME.txt).
if [[ -f $out/stacks.tar.xz && ! -d $out/stacks ]]; then
  tar -C "$out" -xJf "$out/stacks.tar.xz" || exit 2
fi
mkdir -p "$out/stacks" || exit 2
# The rows so far are packed in the study's runs.tar.xz (scripts/bench/data_archive.py,
# study spawn_hang, OUT or the folder above it): unpacked here so that this run adds to
# them, packed again at the end.
study=$(python3 "$here/scripts/bench/data_archive.py" study "$out")
if [[ -n $study && -f $study/runs.tar.xz ]]; then
  python3 "$here/scripts/bench/data_archive.py" unpack "$study" || exit 2
fi
csv=$out/spawns.csv
header="kind,cure,job,round,status,phase,signature,spawn_s,shrink_s,load1,date,commit,hosts"
if [[ ! -s $csv ]]; then
  echo "$header" >"$csv"
elif [[ $(head -n 1 "$csv") != "$header" ]]; then
  echo "spawn_hang: $csv has another header than '$header' (an older layout)" >&2
  exit 2
fi
job_hosts=local  # the kinds on this machine; spawn_hang_cluster.sh names the emulated nodes
commit=$(git -C "$here" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
[[ -z $(git -C "$here" --no-optional-locks status --porcelain -- blacs-dyn tests/blacs-dyn scripts/bench/spawn_hang.sh 2>/dev/null) ]] ||
  commit=$commit+dirty
scratch=$(mktemp -d)
busy_pids=()
for ((b = 0; b < busy; ++b)); do
  sh -c 'while :; do :; done' &
  busy_pids+=($!)
done
trap 'rm -rf "$scratch"; ((${#busy_pids[@]})) && kill "${busy_pids[@]}" 2>/dev/null' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset PMIX_MCA_gds  # blacs-dyn must choose (hash) or keep PMIx's own choice
mpiexec=${MPIEXEC:-mpiexec}

descendants() {  # every process below pid $1 (children first found, then theirs)
  local pids=("$1") i=0
  while ((i < ${#pids[@]})); do
    while read -r child; do pids+=("$child"); done < <(ps -o pid= --ppid "${pids[i]}" 2>/dev/null)
    i=$((i + 1))
  done
  echo "${pids[@]}"
}

capture_stacks() {  # capture_stacks <mpiexec pid> <file>
  local pid
  {
    echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
    ps -o pid,ppid,stat,etime,time,args -p "$(descendants "$1" | tr ' ' ,)" 2>/dev/null
    # the sockets of the job (PMIx's clients talk to the server in mpiexec over TCP):
    # bytes left in a Send-Q were never read by the other side, in a Recv-Q never taken
    echo "=== sockets (ss -tnp): state recv-q send-q local peer process"
    ss -tnp 2>/dev/null | grep -E "pid=($(descendants "$1" | tr ' ' '|'))," || echo "(none)"
    # the descriptors each event loop of the launcher and its daemons watches (the kernel's
    # epoll interest lists): a client socket in none of them is one nobody will read
    echo "=== epoll interest lists (launcher and daemons): pid, epoll fd, the fds it watches"
    for pid in $(descendants "$1"); do
      [[ $(cat "/proc/$pid/comm" 2>/dev/null) =~ ^(mpiexec|mpirun|orterun|orted)$ ]] || continue
      for fd in /proc/"$pid"/fd/*; do
        [[ $(readlink "$fd" 2>/dev/null) == "anon_inode:[eventpoll]" ]] || continue
        echo "pid $pid epoll fd ${fd##*/}: $(awk '$1 == "tfd:" { printf "%s ", $2 }' "/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null)"
      done
    done
    for pid in $(descendants "$1"); do
      echo "=== pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
      timeout 60 gdb -batch -nx -p "$pid" -ex 'thread apply all bt' 2>/dev/null |
        grep -E '^(Thread|#)' || echo "(no stack)"
    done
  } | sed "s#$build#BUILD#g" >"$2"  # paths relative to the build folder
}

kill_job() {  # every process of the job, by pid
  local pids
  pids=$(descendants "$1")
  # shellcheck disable=SC2086
  kill -9 $pids 2>/dev/null || true
}

# rows <kind> <cure> <job> <log> <status of the job> <stack signature> <load>: one CSV row
# per round begun
rows() {
  awk -v kind="$1" -v cure="$2" -v job="$3" -v jobstatus="$5" -v sig="$6" -v load1="$7" \
      -v extra=",$job_date,$commit,$job_hosts" '
    $1 == "begin" { r = $2; began[r] = 1; order[++n] = r }
    $1 == "spawned" { sp[$2] = $3 }
    $1 == "done" { sh[$2] = $3 }
    END {
      for (i = 1; i <= n; ++i) {
        r = order[i]; st = "ok"; ph = ""; sg = ""
        if (!(r in sp)) { st = jobstatus; ph = "spawn" }
        else if (!(r in sh)) { st = jobstatus; ph = "shrink" }
        if (st == "ended") { st = "failed" }
        if (st == "hang") { sg = sig }
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s%s\n", kind, cure, job, r, st, ph, sg, (r in sp) ? sp[r] : "", (r in sh) ? sh[r] : "", load1, extra
      }
    }' "$4"
}

# rows_walk <cure> <job> <log> <status of the job> <stack signature> <load>: one row per
# expansion rank 0 reported ("step N: expand ..."), one more for a walk that hung
rows_walk() {
  awk -v cure="$1" -v job="$2" -v jobstatus="$4" -v sig="$5" -v load1="$6" -v extra=",$job_date,$commit,$job_hosts" '
    /^step +[0-9]+: expand/ { printf "walks,%s,%s,%d,ok,,,,,%s%s\n", cure, job, $2 + 0, load1, extra }
    /^step +[0-9]+:/ { last = $2 + 0 }
    END {
      if (jobstatus == "hang") printf "walks,%s,%s,%d,hang,%s,%s,,,%s%s\n", cure, job, last + 1, sig == "other" ? "" : "spawn", sig, load1, extra
      else if (jobstatus != "ok") printf "walks,%s,%s,%d,failed,,,,,%s%s\n", cure, job, last + 1, load1, extra
    }' "$3"
}
walk_seed=1000

# run_jobs <kind> <cure> <njobs>: njobs mpiexec at once, each of `block` rounds
run_jobs() {
  local kind=$1 cure=$2 njobs=$3 driver_kind=$1 j load stacks pids=() logs=() names=() last=() status=() signature=()
  [[ $kind == concurrent ]] && driver_kind=one
  [[ $kind == nodes ]] && driver_kind=hosts
  job_hosts=local
  [[ $kind == nodes ]] && job_hosts=node1:${SPAWN_HANG_NODES//,/+}
  load=$(cut -d' ' -f1 /proc/loadavg)
  job_date=$(date -u +%FT%TZ)
  for ((j = 0; j < njobs; ++j)); do
    names[j]=$kind-$cure-$(date +%s%N | cut -c1-13)-$j
    logs[j]=$scratch/${names[j]}.log
    (
      [[ $cure == keep || $cure == keep-nowait ]] && export BLACS_DYN_PMIX_GDS=keep
      # *-nowait: a leaving process exits right after MPI_Finalize, as before blacs-dyn
      # waited for its PMIx server to close the connection (BLACS_DYN_LEAVE_WAIT=off)
      [[ $cure == *-nowait ]] && export BLACS_DYN_LEAVE_WAIT=off
      # ucx: Open MPI's UCX PML with PMIx's own store (BLACS_DYN_PML=ucx keeps ds21)
      [[ $cure == ucx ]] && export BLACS_DYN_PML=ucx
      if [[ $kind == walks ]]; then
        exec setsid "$mpiexec" --oversubscribe --bind-to none -np 2 "$walker" "$((walk_seed + j + 1))" 24 \
          >"${logs[j]}" 2>&1
      fi
      if [[ $kind == nodes ]]; then
        exec setsid "$here/scripts/cluster.sh" exec node1 "$mpiexec" --oversubscribe --bind-to none -np 2 \
          "$driver" hosts "$block" "$SPAWN_HANG_NODES" >"${logs[j]}" 2>&1
      fi
      exec setsid "$mpiexec" --oversubscribe --bind-to none -np 2 "$driver" "$driver_kind" "$block" \
        >"${logs[j]}" 2>&1
    ) &
    pids[j]=$!
    last[j]=$(date +%s)
    status[j]=running
  done
  local running=$njobs now size
  declare -A sizes=()
  while ((running)); do
    sleep 1
    now=$(date +%s)
    for ((j = 0; j < njobs; ++j)); do
      [[ ${status[j]} == running ]] || continue
      if ! kill -0 "${pids[j]}" 2>/dev/null; then
        wait "${pids[j]}" && status[j]=ended || status[j]=ended
        running=$((running - 1))
        continue
      fi
      size=$(stat -c %s "${logs[j]}")
      if [[ ${sizes[$j]:-} != "$size" ]]; then sizes[$j]=$size; last[j]=$now; continue; fi
      if ((now - last[j] > timeout)); then
        stacks=$out/stacks/${names[j]}.txt
        capture_stacks "${pids[j]}" "$stacks"
        { echo "=== output of the job (rank 0's phase lines: the last 3)"
          grep -vE '^(begin|spawned|done) ' "${logs[j]}" | sed "s#$build#BUILD#g"
          tail -n 3 "${logs[j]}"; } >>"$stacks"
        sleep 5
        if [[ $(stat -c %s "${logs[j]}") != "${sizes[$j]}" ]]; then
          # it moved on after all (the stacks were taken): a stall, not a hang
          echo "spawn_hang: STALL of more than $timeout s in ${names[j]}, then on (stacks ${stacks##*/})"
          mv "$stacks" "${stacks%.txt}.stall.txt"
          last[j]=$(date +%s)
          continue
        fi
        signature[j]=other
        if grep -q PMIx_Lookup "$stacks"; then
          signature[j]=lookup
          grep -q PMIx_Init "$stacks" && signature[j]=lookup+init
        fi
        echo "spawn_hang: HANG (${signature[j]}) in ${names[j]} after: $(tail -n 1 "${logs[j]}"); stacks ${stacks##*/}"
        kill_job "${pids[j]}"
        wait "${pids[j]}" 2>/dev/null || true
        status[j]=hang
        running=$((running - 1))
      fi
    done
  done
  for ((j = 0; j < njobs; ++j)); do
    if [[ $kind == walks ]]; then
      [[ ${status[j]} == ended ]] && grep -q 'PASS' "${logs[j]}" && status[j]=ok
      rows_walk "$cure" "${names[j]}" "${logs[j]}" "${status[j]}" "${signature[j]:-}" "$load" >>"$csv"
      continue
    fi
    rows "$kind" "$cure" "${names[j]}" "${logs[j]}" "${status[j]}" "${signature[j]:-}" "$load" >>"$csv"
    if [[ ${status[j]} == ended ]] && ! grep -q '^PASS' "${logs[j]}"; then
      echo "spawn_hang: ${names[j]} ended without PASS:" >&2
      tail -n 20 "${logs[j]}" >&2
      cp "${logs[j]}" "$out/stacks/${names[j]}.failed.log"
    fi
  done
}

count() {  # expansions recorded for (kind, cure)
  awk -F, -v k="$1" -v c="$2" '$1 == k && $2 == c' "$csv" | wc -l
}

start=$(date +%s)
IFS=, read -ra kind_list <<<"$kinds"
IFS=, read -ra cure_list <<<"$cures"
if [[ ,$kinds, == *,nodes,* && -z ${SPAWN_HANG_NODES:-} ]]; then
  echo "spawn_hang: kind nodes runs on the emulated cluster: scripts/bench/spawn_hang_cluster.sh" >&2
  exit 2
fi
while :; do
  progress=0
  for kind in "${kind_list[@]}"; do
    for cure in "${cure_list[@]}"; do
      (($(count "$kind" "$cure") < spawns)) || continue
      if ((budget > 0 && $(date +%s) - start > budget)); then break 3; fi
      progress=1
      njobs=1 reps=1
      [[ $kind == concurrent ]] && njobs=2
      [[ $kind == walks ]] && njobs=2 reps=5
      for ((rep = 0; rep < reps; ++rep)); do
        run_jobs "$kind" "$cure" "$njobs"
        [[ $kind == walks ]] && walk_seed=$((walk_seed + 2))
      done
      echo "spawn_hang: $(date -u +%T) $kind/$cure: $(count "$kind" "$cure") expansions," \
           "$(awk -F, -v k="$kind" -v c="$cure" '$1 == k && $2 == c && $5 == "hang"' "$csv" | wc -l) hangs;" \
           "load $(cut -d' ' -f1-3 /proc/loadavg)"
    done
  done
  ((progress)) || break
done
if tar -C "$out" -cJf "$out/stacks.tar.xz.new" stacks && mv "$out/stacks.tar.xz.new" "$out/stacks.tar.xz"; then
  rm -r "$out/stacks"
fi
python3 "$here/scripts/bench/spawn_hang_summary.py" "$csv" "$out/summary.csv" --timeout "$timeout" --markdown "$out/summary.md" \
  --walks "$out/walks_needed.txt" --cause "$out/cause_test.txt"
cat "$out/summary.csv"
[[ -z $study ]] || python3 "$here/scripts/bench/data_archive.py" pack "$study" >/dev/null
