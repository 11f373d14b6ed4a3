#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# blacs-dyn's spawns and joins: the spawn hang, shared memory between jobs, the expansion fallback (docs/reference/blacs-dyn.md, docs/measurements/joining.md): one command, the case first:
#   scripts/bench/spawn.sh <case> [its arguments]   (--help lists the cases; <case> --help
#   prints the case's notes)
# Each case below runs as the script it was (its notes above its function, its arguments
# and environment unchanged); the libraries (#@lib) are what the cases sourced.

# the dispatcher, _help and _cases (scripts/bench/dispatch.sh); sourced by another, its own stays
[[ -n ${bench_script:-} && ${BASH_SOURCE[0]} != "$0" ]] || bench_script=${BASH_SOURCE[0]}
source "$(dirname "${BASH_SOURCE[0]}")/dispatch.sh"

#@case hang
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
#   nodes       kind hosts on the emulated cluster (scripts/bench/spawn.sh hang-cluster
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
# Usage: spawn.sh hang [--spawns N] [--block R] [--timeout S] [--kinds a,b] [--cures a,b]
#                      [--budget SECONDS] [--busy N] [--out DIR]
# --busy N runs N busy loops (`while :; do :; done`) beside the jobs for the whole run: a
# load of its own, for a machine that is otherwise idle (the hangs were counted at loads
# of 9-50, and are rare at load < 3: docs/data/spawn_hang/ucx_low_load/).
# BUILD_DIR (default build) holds the driver (target blacs_dyn_spawn_hang).
case_hang() {
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
job_hosts=local  # the kinds on this machine; spawn.sh hang-cluster names the emulated nodes
commit=$(git -C "$here" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
[[ -z $(git -C "$here" --no-optional-locks status --porcelain -- blacs-dyn tests/blacs-dyn scripts/bench/spawn.sh 2>/dev/null) ]] ||
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
  echo "spawn_hang: kind nodes runs on the emulated cluster: scripts/bench/spawn.sh" hang-cluster >&2
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
}

#@case hang-cluster
# The spawn hang's per-node kind on the emulated cluster (scripts/cluster.sh): kind
# "nodes" of scripts/bench/spawn.sh hang, the job's 2 processes on node1 and one newcomer
# onto each other node in every expansion (blacs_dyn_expand_hosts through the cluster's
# launcher: mpiexec inside node1, its daemons reach the nodes over cluster-rsh). The
# cluster is shared, so one call holds its lock for one short stretch: it waits for the
# lock, brings up NODES nodes, runs spawn.sh hang for --budget seconds (whole blocks: the
# last block may run past it), takes the cluster down and lets the lock go. Call it again
# for more: the rows add up in spawns.csv like every other kind's.
# Usage: spawn.sh hang-cluster [--nodes N] [--budget SECONDS] [spawn.sh hang options]
#   defaults: 3 nodes (newcomers onto node2 and node3), budget 360 s, --block 25
case_hang_cluster() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nodes=3 budget=360 rest=()
while (($#)); do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
((nodes >= 2)) || { echo "spawn_hang_cluster: --nodes must be at least 2" >&2; exit 2; }
cluster=$here/scripts/cluster.sh
if ! why=$("$cluster" check); then echo "spawn_hang_cluster: $why" >&2; exit 77; fi
exec 9>/run/malleable-cluster.lock
echo "spawn_hang_cluster: $(date -u +%T) waiting for the cluster lock"
flock -w 1800 9 || { echo "spawn_hang_cluster: the cluster lock is held by another run for 30 min" >&2; exit 1; }
finish() {
  local rc=$?
  "$cluster" down >/dev/null 2>&1 || true
  flock -u 9 2>/dev/null || true
  echo "spawn_hang_cluster: $(date -u +%T) cluster down, lock released"
  exit "$rc"
}
trap finish EXIT
echo "spawn_hang_cluster: $(date -u +%T) lock held; cluster up ($nodes nodes)"
"$cluster" down >/dev/null  # a cluster left by a killed run
"$cluster" up "$nodes" --rate 1gbit 9>&-  # the daemons it starts must not hold the lock
eval "export $("$cluster" mpi-env | tr '\n' ' ')"
SPAWN_HANG_NODES=$(seq -s, -f 'node%g' 2 "$nodes")
export SPAWN_HANG_NODES
"$here/scripts/bench/spawn.sh" hang --kinds nodes --cures hash,keep --block 25 --budget "$budget" "${rest[@]}" 9>&-
}

#@case shm
# Old and new processes on one node, Open MPI's default (ob1: an original and a newcomer
# talk over TCP) against BLACS_DYN_PML=ucx (shared memory), side by side in one run, the
# order of the arms rotating each round (docs/reference/blacs-dyn.md, "Old and new
# processes on one node"):
#   pingpong  rank 0 and rank 1 of a world started with 2 processes (two originals) and of
#             one process grown by a spawn of one (an original and a newcomer): 8-byte round
#             trip and 8 MiB bandwidth, median of 5 (tests/blacs-dyn/runtime/pingpong_grown.cpp);
#   growth    PDGETRF and PDGEMM (N = 4,000, NB 64): a job started on 1x1 grown to 1x2 by
#             spawn after iteration 1 against the same driver started on 1x2; the median
#             iteration after the growth (the first on the new grid left out) over the fresh
#             job's median.
# Two processes on this machine's cores (2 here: idle but for the host's other work; the
# load is printed). Prints one line per run and a table of medians and ranges.
#   scripts/bench/spawn.sh shm [BUILD_DIR] [ROUNDS] [OUT_DIR]
case_shm() {
set -uo pipefail
build=${1:-build} rounds=${2:-3} out=${3:-}
[[ -x $build/tests/blacs-dyn/blacs_dyn_pingpong_grown && -x $build/apps/pdgetrf_resizable ]] || {
  echo "spawn.sh shm: build $build first (targets blacs_dyn_pingpong_grown pdgetrf_resizable pdgemm_resizable)" >&2; exit 1; }
ompi_info 2>/dev/null | grep -q "MCA pml: ucx" || { echo "spawn.sh shm: this Open MPI has no pml/ucx"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=${N:-4000}
echo "spawn_shm: $(nproc --all) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(mpiexec --version | head -1), N $n, $rounds rounds, $(date -u +%FT%TZ)"
pml_env() {  # <pml>: the environment of the arm
  [[ $1 == ucx ]] && echo "BLACS_DYN_PML=ucx" || echo "BLACS_DYN_PML_UNSET=1"
}
results=$tmp/results.tsv
: >"$results"
for ((r = 1; r <= rounds; ++r)); do
  arms=("ob1 fresh" "ob1 grow" "ucx grow" "ucx fresh")
  # rotate the order each round
  for ((k = 0; k < ${#arms[@]}; ++k)); do
    arm=${arms[$(((k + r) % ${#arms[@]}))]}
    set -- $arm
    pml=$1 mode=$2 np=2
    [[ $mode == grow ]] && np=1
    line=$(env $(pml_env "$pml") timeout 120 mpiexec --oversubscribe --bind-to none -x BLACS_DYN_PML -n $np \
      "$build/tests/blacs-dyn/blacs_dyn_pingpong_grown" "$mode" 8 5 2>&1 | grep "^pingpong")
    lat=$(sed -n 's/.*round trip \([0-9.]*\) us.*/\1/p' <<<"$line") bw=$(sed -n 's/.* \([0-9.]*\) GB\/s.*/\1/p' <<<"$line")
    echo "round $r pingpong $pml $mode: ${line:-FAILED}"
    [[ -n $lat ]] && printf 'pingpong\t%s\t%s\tlatency_us\t%s\n' "$pml" "$mode" "$lat" >>"$results"
    [[ -n $bw ]] && printf 'pingpong\t%s\t%s\tbandwidth_gbs\t%s\n' "$pml" "$mode" "$bw" >>"$results"
  done
  for d in pdgetrf pdgemm; do
    for ((k = 0; k < ${#arms[@]}; ++k)); do
      arm=${arms[$(((k + r) % ${#arms[@]}))]}
      set -- $arm
      pml=$1 mode=$2
      json=$tmp/$d.$pml.$mode.$r.json
      if [[ $mode == grow ]]; then
        env $(pml_env "$pml") timeout 240 mpiexec --oversubscribe --bind-to none -x BLACS_DYN_PML -n 1 \
          "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 1x1 -i 6 -p scripted -s 1:expand:1x2 --no-check -q \
          --json "$json" >"$tmp/log" 2>&1
      else
        env $(pml_env "$pml") timeout 240 mpiexec --oversubscribe --bind-to none -x BLACS_DYN_PML -n 2 \
          "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 1x2 -i 5 --no-check -q --json "$json" >"$tmp/log" 2>&1
      fi
      med=$(python3 - "$json" <<'PY' 2>/dev/null
import json, statistics, sys
its = [i for i in json.load(open(sys.argv[1]))["iterations"] if i["procs"] == 2]
print(f"{statistics.median(i['wall_s'] for i in its[1:]):.4f}")  # the first on the grid left out
PY
)
      echo "round $r $d $pml $mode: median iteration ${med:-FAILED} s"
      [[ -n $med ]] && printf '%s\t%s\t%s\titeration_s\t%s\n' "$d" "$pml" "$mode" "$med" >>"$results"
    done
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
val = {}
for what, pml, mode, metric, v in rows:
    val.setdefault((what, metric, pml, mode), []).append(float(v))
def fmt(v):
    return f"{statistics.median(v):.4g} ({min(v):.4g}-{max(v):.4g}, {len(v)})"
print("\n| measure | ob1 fresh | ob1 grown | ucx fresh | ucx grown | grown / fresh, ob1 | grown / fresh, ucx |")
print("|---|---|---|---|---|---|---|")
for what, metric in (("pingpong", "latency_us"), ("pingpong", "bandwidth_gbs"), ("pdgetrf", "iteration_s"), ("pdgemm", "iteration_s")):
    cells = [val.get((what, metric, p, m), []) for p, m in (("ob1", "fresh"), ("ob1", "grow"), ("ucx", "fresh"), ("ucx", "grow"))]
    if not all(cells):
        print(f"| {what} {metric} | missing runs |")
        continue
    med = [statistics.median(c) for c in cells]
    print(f"| {what} {metric} | " + " | ".join(fmt(c) for c in cells) +
          f" | {med[1] / med[0]:.3f} | {med[3] / med[2]:.3f} |")
PY
if [[ -n $out ]]; then mkdir -p "$out" && cp "$results" "$out/spawn_shm.tsv"; fi
}

#@case join
# A join against a spawn of the same processes (docs/measurements/joining.md): the resizable
# PDGEMM driver under malleable-run --job-dir grows by the same processes at the
# same remap point, by MPI_Comm_spawn (RESIZE_EXPAND=spawn) or by a launch the job orders
# and joins (the default there), then shrinks back. The run's JSON gives, per expansion,
# the time to the merged world (t_spawn_s: the spawn, or the join from the order to the
# merge) and the whole resize (t_total_s). The arms alternate round by round.
#   node:  one node, 2x2 -> 3x3 (5 new processes)
#   nodes: the emulated cluster (scripts/cluster.sh, 2 nodes; holds its lock): the job on
#          node1 (4 processes) grows onto node2 (4 new processes: 2x2 -> 2x4) and gives
#          node2 back
# Usage: spawn.sh join [--build DIR] [--rounds R] [--where node|nodes|both] [--out DIR]
# Prints one CSV row per expansion (where,arm,round,merged_s,total_s,load1, and for a join
# its parts: request_s,connect_s,merge_s) and a summary (median of each arm, join/spawn, the
# join's parts); with --out, writes DIR/runs.csv and DIR/summary.txt.
# The join's parts come from the run's own trace (BLACS_DYN_TRACE=1: world rank 0 prints
# each phase of the expansion on stderr; they are not in the run's JSON): request_s, the
# expansion's start to the ordered launch's request seen ("checks" + "launch L seen");
# connect_s, MPI_Comm_connect; merge_s, the hand-shake and the merge ("hellos, checks,
# prepare + acks" + "launch L merged").
case_join() {
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$here/build rounds=5 where=both out=
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --where) where=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "spawn.sh join: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]{0,3}$ ]] || { echo "spawn.sh join: --rounds must be a positive number" >&2; exit 2; }
[[ $where == node || $where == nodes || $where == both ]] || { echo "spawn.sh join: --where node|nodes|both" >&2; exit 2; }
prog=$build/apps/pdgemm_resizable
[[ -x $prog ]] || { echo "spawn.sh join: no $prog (build first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off BLACS_DYN_JOIN_TIMEOUT=120
work=$(mktemp -d)
rows=$work/runs.csv
echo "where,arm,round,merged_s,total_s,load1,request_s,connect_s,merge_s" >"$rows"
trap 'rm -rf "$work"' EXIT

# One run: <where> <arm> <round> <runner...>; the expansion's row appended.
one() {
  local w=$1 arm=$2 r=$3 json=$work/$1-$2-$3.json load
  shift 3
  load=$(cut -d' ' -f1 /proc/loadavg)
  if ! "$@" --json "$json" >"$work/$w-$arm-$r.log" 2>&1; then
    echo "spawn.sh join: $w $arm round $r failed:" >&2
    tail -20 "$work/$w-$arm-$r.log" >&2
    return 1
  fi
  python3 - "$json" "$w" "$arm" "$r" "$load" "$work/$w-$arm-$r.log" >>"$rows" <<'PY'
import json, re, sys
f, w, arm, r, load, log = sys.argv[1:]
e = [x for x in json.load(open(f))["resizes"] if x["action"] == "expand"][0]
assert e["ok"] and e["mechanism"] == arm, (e["mechanism"], arm, e["message"])
# The join's parts from its trace: the marks of the first expansion, in order, up to its merge.
parts = ["", "", ""]
if arm == "join":
    marks = re.findall(r"blacs-dyn trace: (.*?)\s+([0-9.]+) ms \(at", open(log, errors="replace").read())
    ms, seen = {}, False
    for name, t in marks:
        t = float(t)
        key = "request" if not seen else "connect" if name == "MPI_Comm_connect" else "merge"
        ms[key] = ms.get(key, 0.0) + t
        seen = seen or name.endswith(" seen")
        if name.endswith(" merged"):
            break
    if seen and "merge" in ms:
        parts = [f"{ms['request'] / 1e3:.4f}", f"{ms.get('connect', 0) / 1e3:.4f}", f"{ms['merge'] / 1e3:.4f}"]
print(f"{w},{arm},{r},{e['t_spawn_s']:.4f},{e['t_total_s']:.4f},{load},{','.join(parts)}")
PY
  tail -1 "$rows"
}

node_run() {  # <arm> <round>
  local env=(BLACS_DYN_TRACE=1)
  [[ $1 == spawn ]] && env+=(RESIZE_EXPAND=spawn)
  one node "$1" "$2" env "${env[@]}" "$build/bin/malleable-run" --job-dir "$work/d-node-$1-$2" -n 4 -- \
    "$prog" -n 480 --nb 32 -g 2x2 -i 6 -p scripted -s 2:expand:3x3,4:shrink:2x2 -q
}

if [[ $where != nodes ]]; then
  for ((r = 1; r <= rounds; ++r)); do
    if ((r % 2)); then node_run spawn "$r"; node_run join "$r"; else node_run join "$r"; node_run spawn "$r"; fi
  done
fi

if [[ $where != node ]]; then
  cluster=$here/scripts/cluster.sh
  if why=$("$cluster" check); then
    exec 9>/run/malleable-cluster.lock
    flock -w 900 9 || { echo "spawn.sh join: the cluster lock is held" >&2; exit 1; }
    "$cluster" down >/dev/null
    "$cluster" up 2 --rate 1gbit 9>&- >/dev/null || exit 1
    eval "export $("$cluster" mpi-env | tr '\n' ' ')"
    nodes_run() {  # <arm> <round>
      local env=(BLACS_DYN_TRACE=1)
      [[ $1 == spawn ]] && env+=(RESIZE_EXPAND=spawn)
      one nodes "$1" "$2" "$cluster" exec node1 env "${env[@]}" "$build/bin/malleable-run" --job-dir \
        "$work/d-nodes-$1-$2" --hosts node1 -n 4 -- "$prog" -n 480 --nb 32 -g 2x2 -i 6 -p scripted \
        -s 2:expand:2x4@node2=4,4:shrink:2x2@node2 -q
    }
    for ((r = 1; r <= rounds; ++r)); do
      if ((r % 2)); then nodes_run spawn "$r"; nodes_run join "$r"; else nodes_run join "$r"; nodes_run spawn "$r"; fi
    done
    "$cluster" down >/dev/null
    flock -u 9
  else
    echo "spawn.sh join: no emulated cluster here ($why): one node only" >&2
  fi
fi

summary=$(python3 - "$rows" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("where  arm    runs  merged world s (median, min-max)   whole resize s (median, min-max)   load1")
med = {}
for w in ("node", "nodes"):
    for arm in ("spawn", "join"):
        x = [r for r in rows if r["where"] == w and r["arm"] == arm]
        if not x:
            continue
        m = [float(r["merged_s"]) for r in x]
        t = [float(r["total_s"]) for r in x]
        med[w, arm] = (statistics.median(m), statistics.median(t))
        loads = [float(r["load1"]) for r in x]
        print(f"{w:6s} {arm:6s} {len(x):4d}  {statistics.median(m):7.3f} ({min(m):.3f}-{max(m):.3f})"
              f"              {statistics.median(t):7.3f} ({min(t):.3f}-{max(t):.3f})            "
              f"{min(loads):.1f}-{max(loads):.1f}")
for w in ("node", "nodes"):
    x = [r for r in rows if r["where"] == w and r["arm"] == "join" and r.get("request_s")]
    if x:
        part = lambda k: sorted(float(r[k]) for r in x)
        print(f"{w}: the join's parts from its trace ({len(x)} runs, median (min-max) s): "
              + ", ".join(f"{k[:-2]} {statistics.median(part(k)):.3f} ({part(k)[0]:.3f}-{part(k)[-1]:.3f})"
                          for k in ("request_s", "connect_s", "merge_s")))
for w in ("node", "nodes"):
    if (w, "join") in med and (w, "spawn") in med:
        j, s = med[w, "join"], med[w, "spawn"]
        print(f"{w}: join / spawn = {j[0] / s[0]:.2f}x to the merged world, {j[1] / s[1]:.2f}x the whole resize")
PY
)
echo "$summary"
if [[ -n $out ]]; then
  mkdir -p "$out"
  cp "$rows" "$out/runs.csv"
  {
    echo "# scripts/bench/spawn.sh join --rounds $rounds --where $where, $(date -u +%FT%TZ), $(nproc) cores"
    echo "$summary"
  } >"$out/summary.txt"
fi
}

#@case fallback
# Seeded resizes with --mechanism spawn under BUILD/bin/malleable-run, the hang left in:
# does every hung or failed spawn complete as a resize by restart (the session's expansion
# fallback), and how long from a hung spawn to computing again on the target grid?
#   spawn.sh fallback BUILD OUT_DIR [RESIZES] [SEED] [STALL_RATE]
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
case_fallback() {
set -uo pipefail
build=${1:?usage: spawn.sh fallback BUILD OUT_DIR [RESIZES] [SEED] [STALL_RATE]}
out=${2:?usage: spawn.sh fallback BUILD OUT_DIR [RESIZES] [SEED] [STALL_RATE]}
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
}

#@case fallback-cost
# What the expansion fallback adds to an expansion that succeeds: the checkpoint of the
# state before the spawn (and the marker), against the same expansion with
# RESIZE_SPAWN_FALLBACK=off, side by side (on and off alternate, R pairs per size).
#   spawn.sh fallback-cost BUILD OUT_CSV [R] [SIZES]
# pdgemm_resizable, 2x2 -> 3x3 after iteration 2 (every matrix of the job: A, B and the
# work matrix, n x n doubles each), --checkpoint into a fresh directory (no other
# checkpoint before the end). Per run: the resize's total (spawn, redistribution, other:
# the progress line) and, with the fallback on, the checkpoint's time (its line).
# Writes OUT_CSV (n, fallback, resize_ms, checkpoint_ms) and prints per size the medians,
# the checkpoint over the resize without the fallback, and (resize + checkpoint with the
# fallback) / (resize without).
case_fallback_cost() {
set -uo pipefail
build=${1:?usage: spawn.sh fallback-cost BUILD OUT_CSV [R] [SIZES]}
csv=${2:?usage: spawn.sh fallback-cost BUILD OUT_CSV [R] [SIZES]}
reps=${3:-5} sizes=${4:-"240 960 1920"}
pdgemm=$build/apps/pdgemm_resizable
[[ -x $pdgemm ]] || { echo "no $pdgemm" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_HISTORY=off
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "n,fallback,resize_ms,checkpoint_ms" >"$csv"
for n in $sizes; do
  for ((k = 0; k < reps; ++k)); do
    for fb in on off; do
      rm -rf "$work/ck"
      out=$(RESIZE_SPAWN_FALLBACK=$fb timeout 300 mpiexec --oversubscribe --bind-to none -n 4 "$pdgemm" -n "$n" --nb 32 -i 3 \
            -p scripted -s 2:expand:3x3 --checkpoint "$work/ck" 2>&1) || { echo "run failed (n $n, $fb): $out" >&2; continue; }
      t=$(grep -o 'expand 2x2 -> 3x3 .*total [0-9.]* ms' <<<"$out" | grep -o 'total [0-9.]*' | awk '{print $2}')
      c=$(grep -o 'before the spawn after iter 2: checkpoint [^ ]* in [0-9.]* ms' <<<"$out" | awk '{print $(NF-1)}')
      echo "$n,$fb,$t,${c:-0}" >>"$csv"
    done
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for n in sorted({int(r["n"]) for r in rows}):
    on = [r for r in rows if int(r["n"]) == n and r["fallback"] == "on" and r["resize_ms"]]
    off = [r for r in rows if int(r["n"]) == n and r["fallback"] == "off" and r["resize_ms"]]
    if not on or not off:
        continue
    r_on = statistics.median(float(r["resize_ms"]) for r in on)
    c_on = statistics.median(float(r["checkpoint_ms"]) for r in on)
    r_off = statistics.median(float(r["resize_ms"]) for r in off)
    # The checkpoint is the work the fallback adds; the resize itself is the same work on
    # and off (its time varies with the load: both ratios are printed).
    print(f"n {n}: resize {r_off:.1f} ms without the fallback, {r_on:.1f} ms with it, plus its checkpoint {c_on:.1f} ms: "
          f"added {c_on / r_off:.1%} of the resize; (resize + checkpoint) on / resize off = {(r_on + c_on) / r_off:.2f}x "
          f"(medians of {len(on)} and {len(off)} runs)")
PY
}

#@case fallback-levels-cost
# What the expansion fallback adds to an expansion that succeeds, by the level that secures
# the state before the spawn: the global checkpoint (HDF5 file in --checkpoint DIR) against
# the local checkpoint level (node memory: each process's blocks in a node-local
# directory, --checkpoint-local never --checkpoint-local-dir under /dev/shm), and the same
# expansion with RESIZE_SPAWN_FALLBACK=off, side by side: the three alternate, R rounds per
# size.
#   spawn.sh fallback-levels-cost BUILD OUT_CSV [R] [SIZES]
# pdgemm_resizable, 2x2 -> 3x3 after iteration 2 (A, B and the work matrix, n x n doubles
# each), fresh directories per run. Per run: the resize's total (its progress line) and the
# checkpoint before the spawn (its line, "in X ms"). Writes OUT_CSV (n, mode, resize_ms,
# checkpoint_ms) and prints per size the medians and each level's checkpoint over the resize
# without the fallback, with the load.
case_fallback_levels_cost() {
set -uo pipefail
build=${1:?usage: spawn.sh fallback-levels-cost BUILD OUT_CSV [R] [SIZES]}
csv=${2:?usage: spawn.sh fallback-levels-cost BUILD OUT_CSV [R] [SIZES]}
reps=${3:-5} sizes=${4:-"240 960 1920"}
pdgemm=$build/apps/pdgemm_resizable
[[ -x $pdgemm ]] || { echo "no $pdgemm" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_HISTORY=off RESIZE_SPAWN_DEADLINE=150
work=$(mktemp -d)
shm=$(mktemp -d /dev/shm/fallback-levels-XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
echo "n,mode,resize_ms,checkpoint_ms" >"$csv"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for n in $sizes; do
  for ((k = 0; k < reps; ++k)); do
    for mode in global local off; do
      rm -rf "$work/ck" "$shm/lv"
      extra=() fb=on
      [[ $mode == local ]] && extra=(--checkpoint-local never --checkpoint-local-dir "$shm/lv")
      [[ $mode == off ]] && fb=off
      out=$(RESIZE_SPAWN_FALLBACK=$fb timeout 300 mpiexec --oversubscribe --bind-to none -n 4 "$pdgemm" -n "$n" --nb 32 -i 3 \
            -p scripted -s 2:expand:3x3 --checkpoint "$work/ck" "${extra[@]}" 2>&1) ||
        { echo "run failed (n $n, $mode): $out" >&2; continue; }
      t=$(grep -o 'expand 2x2 -> 3x3 .*total [0-9.]* ms' <<<"$out" | grep -o 'total [0-9.]*' | awk '{print $2}')
      c=$(grep -o 'before the spawn after iter 2: checkpoint .* in [0-9.]* ms' <<<"$out" | awk '{print $(NF-1)}')
      [[ $mode != off && -z $c ]] && { echo "no checkpoint line (n $n, $mode): $out" >&2; continue; }
      echo "$n,$mode,$t,${c:-0}" >>"$csv"
    done
  done
done
echo "load before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def med(n, mode, key):
    v = [float(r[key]) for r in rows if int(r["n"]) == n and r["mode"] == mode and r[key]]
    return (statistics.median(v), len(v)) if v else (None, 0)
for n in sorted({int(r["n"]) for r in rows}):
    off, k_off = med(n, "off", "resize_ms")
    g, k_g = med(n, "global", "checkpoint_ms")
    l, k_l = med(n, "local", "checkpoint_ms")
    if off is None or g is None or l is None:
        continue
    print(f"n {n}: checkpoint before the spawn: global {g:.1f} ms ({g / off:.1%} of the resize), local level {l:.1f} ms "
          f"({l / off:.1%}); global / local = {g / l:.1f}x; resize without the fallback {off:.1f} ms "
          f"(medians of {k_g}, {k_l}, {k_off} runs)")
PY
}

# Run, the case named; sourced (device16.sh respawn sources redist.sh for costa_native), the functions only.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then bench_main "$0" "$@"; fi
