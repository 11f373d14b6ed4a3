#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoints and their levels (docs/measurements/checkpoint.md): one command, the case first:
#   scripts/bench/levels.sh <case> [its arguments]   (--help lists the cases; <case> --help
#   prints the case's notes)
# Each case below runs as the script it was (its notes above its function, its arguments
# and environment unchanged); the libraries (#@lib) are what the cases sourced.

# the dispatcher, _help and _cases (scripts/bench/dispatch.sh); sourced by another, its own stays
[[ -n ${bench_script:-} && ${BASH_SOURCE[0]} != "$0" ]] || bench_script=${BASH_SOURCE[0]}
source "$(dirname "${BASH_SOURCE[0]}")/dispatch.sh"

#@case checkpoint
# Checkpoint write / restart read bandwidth against raw MPI-IO of the same bytes from the
# same processes to the same directory, measured side by side in one run
# (target >= 0.7x). Each grid (2x2 on 4, 3x3 on 9 processes) writes and reads
# back on the same grid, with the union path (MALLEABLE_CHECKPOINT_BLOCKS=never, one
# collective H5Dwrite), the per-block path through dataspace selections
# (MALLEABLE_CHECKPOINT_DIRECT=0) and the default per-block path (whole chunks raw,
# H5Dwrite_chunk / H5Dread_chunk), one after the other in one run; then 2x2 -> 3x3. Each line also times raw MPI-IO in the checkpoint's own pattern.
# Then the overhead of periodic checkpoints at the Young/Daly interval on the time per
# iteration (pdgemm without and with --checkpoint-every auto, back to back), and the
# section of docs/measurements/results.md with its plot (levels_report.py checkpoint, splice_sections.py).
# Usage: levels.sh checkpoint [build dir] [N] [NB] [repeats]   (DIR: $CHECKPOINT_BENCH_DIR or a mktemp dir)
case_checkpoint() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64} reps=${4:-3}
build=$(cd "$build" && pwd)
dir=${CHECKPOINT_BENCH_DIR:-$(mktemp -d)}
trap '[[ -z ${CHECKPOINT_BENCH_DIR:-} ]] && rm -rf "$dir"' EXIT
# Results: $CHECKPOINT_BENCH_OUT (default docs/data/checkpoint), rendered into the section
# "Checkpoint and restart" of docs/measurements/results.md and docs/img/checkpoint.png.
out=${CHECKPOINT_BENCH_OUT:-$here/docs/data/checkpoint}
rm -rf "$out" && mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
{
echo "host: $(nproc) cores, load $load_before, directory $dir ($(df -T "$dir" | awk 'NR==2{print $2}'))"
for g in 2x2:4 3x3:9; do
  for path in never selection auto; do
    case $path in
      never) echo "== path: union, collective"; blocks=never direct=1 ;;
      selection) echo "== path: per block, H5Dwrite of a selection"; blocks=auto direct=0 ;;
      auto) echo "== path: per block, whole chunks raw"; blocks=auto direct=1 ;;
    esac
    MALLEABLE_CHECKPOINT_BLOCKS=$blocks MALLEABLE_CHECKPOINT_DIRECT=$direct timeout 900 mpiexec --oversubscribe --bind-to none \
      -n "${g#*:}" "$build/resize/malleable-resize-bench" checkpoint "$n" "$nb" "${g%:*}" "${g%:*}" "$dir" "$reps"
  done
done
echo "== path: per block, whole chunks raw"
timeout 900 mpiexec --oversubscribe --bind-to none -n 9 "$build/resize/malleable-resize-bench" checkpoint "$n" "$nb" 2x2 3x3 "$dir" "$reps"
} 2>&1 | tee "$out/bandwidth.log"
# Overhead of periodic checkpoints at the Young/Daly interval on the time per iteration:
# pdgemm_resizable on 2x2 without checkpoints and with --checkpoint-every auto, back to
# back, $OV_PAIRS pairs (OV_N, OV_ITERS, OV_MTBF).
ov_n=${OV_N:-1000} ov_iters=${OV_ITERS:-60} ov_mtbf=${OV_MTBF:-10s} ov_pairs=${OV_PAIRS:-2}
for r in $(seq 1 "$ov_pairs"); do
  for mode in plain auto; do
    args=(-n "$ov_n" -i "$ov_iters" -q --json "$out/overhead_${mode}_$r.json")
    [[ $mode == auto ]] && rm -rf "$dir/ov" && args+=(--checkpoint "$dir/ov" --checkpoint-every auto --mtbf "$ov_mtbf")
    timeout 900 mpiexec --oversubscribe --bind-to none -n 4 "$build/apps/pdgemm_resizable" "${args[@]}" \
      > "$out/overhead_${mode}_$r.log" 2>&1
    echo "overhead pair $r, $mode: $(grep -c 'checkpoint-every auto:' "$out/overhead_${mode}_$r.log") checkpoints"
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo "after: load $load_after"
printf 'command\t%s\nhost\t%s\nload_before\t%s\nload_after\t%s\ndate\t%s\nov_n\t%s\nov_mtbf\t%s\n' \
  "scripts/bench/levels.sh checkpoint build $n $nb $reps" "$(nproc) cores, $(df -T "$dir" | awk 'NR==2{print $2}') under $(dirname "$dir")" \
  "$load_before" "$load_after" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$ov_n" "$ov_mtbf" > "$out/meta.tsv"
cd "$here"
if [[ -z ${CHECKPOINT_BENCH_OUT:-} ]]; then
  python3 scripts/bench/levels_report.py checkpoint --data "${out#"$here"/}" --plot docs/img/checkpoint.png
  python3 scripts/bench/splice_sections.py --only checkpoint --data "$(dirname "${out#"$here"/}")"
  python3 scripts/bench/data_archive.py pack "${out#"$here"/}" >/dev/null  # the overhead runs into runs.tar.xz
else  # elsewhere (ctest): render next to the data, leave docs/ alone
  python3 scripts/bench/levels_report.py checkpoint --data "$out" --plot "$out/checkpoint.png"
fi
}

#@case blocks
# How a checkpoint's cost grows with the number of blocks (the audit of per-resize
# structures): one N x N double matrix written from 2x2 and read back on 2x2 by
# checkpoint_bench for block sizes from 8 to 1024 (N = 4096: 262,144 down to 16 blocks),
# each beside raw MPI-IO of the same bytes in the same run. The ratio checkpoint / raw is
# what to read; the machine's load is printed before every size.
# Usage: levels.sh blocks [build dir] [N] [repeats]   (output: $CHECKPOINT_BLOCKS_OUT,
# default docs/data/scale/checkpoint_blocks.txt)
case_blocks() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4096} reps=${3:-3}
build=$(cd "$build" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=${CHECKPOINT_BLOCKS_OUT:-$here/docs/data/scale/checkpoint_blocks.txt}
mkdir -p "$(dirname "$out")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
{
  echo "# levels.sh blocks: N=$n, 2x2 -> 2x2, median of $reps; $(nproc) cores; commit $(git -C "$here" rev-parse --short HEAD)"
  for nb in 8 16 32 64 256 1024; do
    blocks=$(( ((n + nb - 1) / nb) * ((n + nb - 1) / nb) ))
    echo "== NB $nb: $blocks blocks; load $(cut -d' ' -f1-3 /proc/loadavg)"
    timeout 900 mpiexec --oversubscribe --bind-to none -n 4 "$build/resize/malleable-resize-bench" checkpoint "$n" "$nb" 2x2 2x2 "$dir" "$reps" |
      grep -E 'write  checkpoint|read   restart|paired'
  done
} | tee "$out"
}

#@case levels
# Checkpoint levels against a raw memcpy of the same bytes and the global parallel HDF5
# checkpoint, on one machine: N x N doubles in NB blocks on 2x2 (4 processes
# as 2 emulated nodes) and 3x3 (9 processes as 3 emulated nodes), each after one process
# alone with the same bytes as one process of that grid (local level and global only: no
# core shared with another process). MALLEABLE_NODE_MAP=every=K: the partner copies go
# through MPI's shared memory here, not a network link (scripts/bench/levels.sh cluster
# measures them over the emulated cluster's 1 Gbit/s links). Levels in /dev/shm, the global
# file in a directory on disk. Timings on a shared machine are noisy, so ratios are
# measured side by side and the load average is printed. With an output directory, each
# run's lines are kept there (one-<grid>.txt, <grid>.txt) for levels.sh overhead.
# Usage: levels.sh levels [build dir] [N] [NB] [repeats] [output dir]
case_levels() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64} reps=${4:-5} out=${5:-}
build=$(cd "$build" && pwd)
levels=$(mktemp -d /dev/shm/malleable-levels-bench.XXXXXX)
global=$(mktemp -d)
trap 'rm -rf "$levels" "$global"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
[[ -n $out ]] && mkdir -p "$out"
keep() { if [[ -n $out ]]; then tee "$out/$1.txt"; else cat; fi; }
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); levels in $levels ($(df -T "$levels" | awk 'NR==2{print $2}')), global in $global ($(df -T "$global" | awk 'NR==2{print $2}'))"
for p in 2 3; do
  echo "== one node, 1 process (N/$p x N/$p: the same bytes as one process of ${p}x$p), local and global only"
  timeout 900 mpiexec --oversubscribe --bind-to none -n 1 "$build/resize/malleable-resize-bench" levels "$((n / p))" "$nb" 1x1 \
    "$levels/one$p" "$global" "$reps" | keep "one-${p}x$p"
  rm -rf "$levels/one$p" "$global"/*
  echo "== ${p}x$p, $((p * p)) processes as $p emulated nodes (every=$p)"
  MALLEABLE_NODE_MAP=every=$p timeout 900 mpiexec --oversubscribe --bind-to none -n $((p * p)) \
    "$build/resize/malleable-resize-bench" levels "$n" "$nb" "${p}x$p" "$levels/grid$p" "$global" "$reps" | keep "${p}x$p"
  rm -rf "$levels/grid$p" "$global"/*
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

#@case cluster
# Checkpoint levels on the emulated cluster: N x N doubles on 2x2 over node1,
# node2 (2 processes each) and on 3x3 over node1-3 (3 each), every node's link shaped to
# 1 Gbit/s (scripts/cluster.sh --rate 1gbit). The partner copies cross the links; the
# partner level's time is set against the link bound of the bytes each node sends (its
# processes' payload / 125 MB/s: every node sends to one partner while it receives from
# another, full duplex). Levels in /dev/shm/<dir>/<host> (each node its own directory),
# the global file on this machine's disk. Takes the cluster lock, leaves nothing behind.
# LEVELS_MCA="--mca NAME VALUE ...": Open MPI parameters for the runs, and LEVELS_TAG=T
# names their outputs cluster-T-<grid>.txt (e.g. LEVELS_MCA="--mca btl_tcp_links 2"
# LEVELS_TAG=links2: two TCP connections per pair of processes; with one, a pair's two
# directions shared one connection here and one of them ran at half the link's rate).
# Usage: levels.sh cluster [build dir] [N] [NB] [repeats] [output dir]
case_cluster() {
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) n=${2:-4000} nb=${3:-64} reps=${4:-5} out=${5:-}
. "$SRC/tests/cluster/harness.sh"
cluster_begin 3 --rate 1gbit
levels=$(mktemp -d /dev/shm/malleable-levels-cbench.XXXXXX)
global=$(mktemp -d)
trap 'rc=$?; rm -rf "$levels" "$global"; cluster_end $rc' EXIT
export RESIZE_HISTORY=off
[[ -n $out ]] && mkdir -p "$out"
link=125000000  # bytes/s of 1 Gbit/s
read -r -a mca <<<"${LEVELS_MCA:-}"
tag=${LEVELS_TAG:+$LEVELS_TAG-}
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); links 1 Gbit/s (tc)${LEVELS_MCA:+; Open MPI $LEVELS_MCA}"
for p in 2 3; do
  hosts=node1:$p,node2:$p
  [[ $p -eq 3 ]] && hosts+=,node3:$p
  echo "== ${p}x$p over $p nodes ($hosts)"
  mpirun_on node1 -n $((p * p)) --host "$hosts" "${mca[@]}" -x OPENBLAS_NUM_THREADS=1 -x RESIZE_HISTORY=off \
    timeout 900 "$BUILD/resize/malleable-resize-bench" levels "$n" "$nb" "${p}x$p" "$levels/grid$p" "$global" "$reps" >"$global/run.txt"
  cat "$global/run.txt"
  [[ -n $out ]] && cp "$global/run.txt" "$out/cluster-$tag${p}x$p.txt"
  awk -v ppn=$p -v link=$link '
    /bytes on the busiest process/ { for (i = 1; i <= NF; ++i) if ($(i+1) == "bytes") b = $i }
    $1 == "local_s" { l = $2 } $1 == "local_partner_s" { lp = $2 } $1 == "mpi_ring_s" { r = $2 }
    END { sent = b * ppn; bound = sent / link
          printf "partner: %.1f MB sent per node (%d processes x %.1f MB), link bound %.3f s; local+partner %.3f s = %.2fx the bound (local alone %.3f s); the same bytes sent by MPI alone %.3f s = %.2fx the bound\n",
                 sent / 1e6, ppn, b / 1e6, bound, lp, lp / bound, l, r, r / bound }' "$global/run.txt"
  rm -rf "${levels:?}"/grid$p "${global:?}"/*.h5
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

#@case overhead
# The expected checkpoint overhead at 1,000 and 10,000 nodes, global-only against
# multi-level (model: resize/src/checkpoint/levels/model.hpp, docs/measurements/checkpoint.md
# "Expected overhead at scale"), from the costs levels.sh levels / levels.sh cluster
# measured (their kept outputs in DATA) and the relaunch time levels.sh recovery
# measured (DATA/recovery.tsv; 4 s without it). Writes DATA/overhead.md and replaces the
# text between the markers "<!-- levels-overhead -->" and "<!-- /levels-overhead -->" in
# docs/measurements/checkpoint.md with it; levels_report.py then refreshes the measured tables there.
# The at-scale tables (from the emulated cluster's costs only: the partner copy's efficiency
# on its 1 Gbit/s link) take the assumptions below: a node's client bandwidth to the file
# system, the interconnect the partner copies cross at scale, and the local level's rate
# assumed in the second break-even sweep.
# LEVELS_TAG=T: from the emulated cluster's run tagged T (levels.sh cluster,
# cluster-T-2x2.txt) into DATA/overhead-T.md only (docs/measurements/checkpoint.md untouched).
# Usage: levels.sh overhead [build dir] [data dir] [fs bandwidth B/s] [global share]
#                           [fs node bandwidth B/s (5e9)] [interconnect B/s (12.5e9)]
#                           [assumed local rate B/s (10e9)]
case_overhead() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd) data=${2:-$here/docs/data/levels} bw=${3:-1e12} share=${4:-0.1}
node_bw=${5:-5e9} interconnect=${6:-12.5e9} local_rate=${7:-10e9}
tool=("$build/resize/malleable-resize-bench" levels-overhead)
pick() {  # <key> <file>: the value of a "key value" line
  awk -v k="$1" '$1 == k { print $2; exit }' "$2"
}
tag=${LEVELS_TAG:-}
src=$data/cluster-${tag:+$tag-}2x2.txt where="the emulated cluster (2x2 over node1, node2; partner copies over 1 Gbit/s links${tag:+; run $tag})"
[[ -n $tag && ! -f $src ]] && { echo "levels_overhead: no $src" >&2; exit 1; }
[[ -f $src ]] || { src=$data/2x2.txt where="one machine (2x2 as 2 emulated nodes; partner copies through shared memory)"; }
[[ -f $src ]] || { echo "levels_overhead: no $data/cluster-2x2.txt or 2x2.txt (run levels.sh levels / levels.sh cluster with an output dir)" >&2; exit 1; }
local_s=$(pick local_s "$src") partner_s=$(pick local_partner_s "$src") global_s=$(pick global_s "$src")
per_proc=$(sed -nE 's/.*, ([0-9]+) bytes on the busiest process.*/\1/p' "$src")
node_bytes=$((per_proc * 2))
restart=4 restart_from="not measured: 4 s assumed"
if [[ -f $data/recovery.tsv ]]; then
  restart=$(awk -F'\t' '$1 == "levels" { s += $3; n++ } END { if (n) printf "%.1f", s / n }' "$data/recovery.tsv")
  restart_from="the mean time from the kill until computing again with the levels, levels.sh recovery"
fi
md=$data/overhead${tag:+-$tag}.md
{
  echo "Inputs: measured on $where, N = 4000 doubles: local level ${local_s} s, local+partner ${partner_s} s,"
  echo "global HDF5 alone ${global_s} s, ${node_bytes} bytes per node ($(sed -nE 's/^(levels N=.*)/\1/p' "$src" | cut -c1-60)...);"
  echo "relaunch and rebuild D = ${restart} s ($restart_from); file system $bw B/s shared by all nodes;"
  echo "failures needing the global level: $share of all (the rest: one node lost, covered by the partner level)."
  echo
  echo "**As measured** (${node_bytes} bytes per node):"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global "$share"
  echo
  echo "**Scaled to 16 GB per node** (every measured cost x 16e9 / ${node_bytes}):"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global "$share" --scale-to 16e9
  echo
  echo "**16 GB per node, 2% of the failures need the global level:**"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global 0.02 --scale-to 16e9
  echo
  echo "**What if** (not measured): 16 GB per node, the partner level = the local level as measured plus the node's"
  echo "bytes at 12.5 GB/s (a 100 Gbit/s link, not overlapped), 2% of the failures need the global level:"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global 0.02 --scale-to 16e9 \
    --partner-rate 12.5e9
  if [[ $src == */cluster-*2x2.txt ]]; then
    common=(--local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes"
            --restart "$restart" --link-rate 125e6 --interconnect "$interconnect" --fs-node-bandwidth "$node_bw")
    eff=$(awk -v b="$node_bytes" -v p="$partner_s" -v l="$local_s" 'BEGIN { printf "%.2f", b / 125e6 / (p - l) }')
    echo
    echo "**At scale** (not measured; the node count now matters): 16 GB per node; global level = 16 GB x nodes /"
    echo "file-system bandwidth, each node at most $node_bw B/s (its client link; no floor from this VM's disk);"
    echo "local level = the measured local rate ($(awk -v b="$node_bytes" -v t="$local_s" 'BEGIN { printf "%.0f", b / t / 1e6 }') MB/s per node);"
    echo "partner level = local + 16 GB over an assumed $interconnect B/s interconnect at the efficiency the measured partner"
    echo "copy reached on its 1 Gbit/s link ($eff: the link bound ${node_bytes} B / 125e6 B/s over the measured partner time minus the local);"
    echo "each level's recovery = its cost, relaunch D = ${restart} s."
    echo
    "${tool[@]}" "${common[@]}" --share-global 0.1,0.02 --at-scale 1 --scale-to 16e9 --fs-bandwidth 1e12,1e13
    echo
    echo "**Break-even at 10,000 nodes, local level as measured** (the same model; ratio = global only / multi-level,"
    echo "bold where >= 5x; the header gives the first-order global / partner cost ratio each share needs):"
    echo
    "${tool[@]}" "${common[@]}" --sweep 1 --nodes 10000 --fs-bandwidth 1e11,1e12,1e13 --share-global 0.1,0.02,0.005 \
      --sweep-bytes 1e9,16e9,64e9
    echo
    echo "**Break-even at 10,000 nodes, local level at an assumed $local_rate B/s per node** (a copy at memory speed;"
    echo "not measured here):"
    echo
    "${tool[@]}" "${common[@]}" --sweep 1 --nodes 10000 --fs-bandwidth 1e11,1e12,1e13 --share-global 0.1,0.02,0.005 \
      --sweep-bytes 1e9,16e9,64e9 --local-rate "$local_rate"
  fi
} >"$md"
cat "$md"
[[ -n $tag ]] && { echo "levels_overhead: $md written (docs/measurements/checkpoint.md untouched)"; exit 0; }
doc=$here/docs/measurements/checkpoint.md
python3 - "$doc" "$md" <<'PY'
import sys
doc, md = sys.argv[1], sys.argv[2]
s = open(doc).read()
a, b = "<!-- levels-overhead -->", "<!-- /levels-overhead -->"
if a not in s or b not in s:
    sys.exit("levels_overhead: the markers are not in " + doc)
i, j = s.index(a) + len(a), s.index(b)
s = s[:i] + "\n" + open(md).read() + s[j:]
open(doc, "w").write(s)
PY
echo "docs/measurements/checkpoint.md: the table between the levels-overhead markers replaced"
python3 "$here/scripts/bench/levels_report.py" --data "$data" --doc "$doc"
}

#@case recover
# Level recovery against `redistribute` of the same blocks, both timed in each run
# (resize/bench/levels_recover_bench.cpp), on one machine with nodes emulated by
# MALLEABLE_NODE_MAP, levels in /dev/shm. Two cases, ROUNDS rounds each:
#   regrid     4 processes on 2 "nodes" write the levels on 2x2; 4 processes recover onto
#              4x1 from the local copies (nothing lost); baseline: `redistribute` 2x2 -> 4x1
#              on the same 4 processes (plain layouts: every transport of the engine);
#   lost-node  6 processes on 3 "nodes" write on 3x2 (local + partner); node3's copies are
#              removed; 4 processes on node1 + node2 recover onto 2x2 (node3's blocks from
#              the partner copies on node1); baseline: `redistribute` of the same blocks,
#              3x2 -> 2x2, old positions 4 and 5 held by ranks 0 and 1 as in the recovery.
# Each read run times `redistribute` REPS times before the recovery and REPS times after it
# (median of both) and the recovery once; the ratio is per run, the table gives the median
# and spread over the rounds, the load average is printed.
# --old BUILD: in each round the same cases with BUILD's levels_recover_bench too (its own
# write and read; cases named old-regrid, old-lost-node): a paired run old against new.
# --pause S: sleep S seconds between the write and the read, as a relaunch after a failure
# takes seconds (5.1 s measured, docs/measurements/checkpoint.md): the memory the writing
# job freed is then no longer fresh in the kernel's lists (on a VM whose host takes back
# freed memory, it is the host's again), as in a real recovery. Default 0.
# --switch VAR: in each round every case twice, with VAR=on and VAR=off (cases named
# regrid-on, regrid-off, ...; the order alternating from round to round): a paired run of a
# configuration switch (RESIZE_HUGEPAGES).
#   scripts/bench/levels.sh recover [--n N] [--nb NB] [--rounds R] [--reps K] [--old BUILD]
#                                         [--switch VAR] [--pause S] [--out DIR]
case_recover() {
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
n=4000 nb=64 rounds=3 reps=3 out="" old="" pause=0 switch=""
while (($#)); do
  case $1 in
    --n) n=$2; shift 2 ;;
    --nb) nb=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    --pause) pause=$2; shift 2 ;;
    --switch) switch=$2; shift 2 ;;
    -h | --help) _help recover; exit 0 ;;
    *) echo "levels.sh recover: unknown option $1" >&2; exit 2 ;;
  esac
done
# The case levels-recover of malleable-resize-bench; an --old build from before that program
# (a commit up to c5d3a5b5) has it as its own levels_recover_bench.
bench_of() {  # <build dir>: the command that runs the case there
  if [[ -x $1/resize/malleable-resize-bench ]]; then echo "$1/resize/malleable-resize-bench levels-recover"
  elif [[ -x $1/resize/levels_recover_bench ]]; then echo "$1/resize/levels_recover_bench"
  else echo "levels.sh recover: no $1/resize/malleable-resize-bench: cmake --build $1 --target malleable_resize_bench" >&2; return 1
  fi
}
cmd=$(bench_of "$build") || exit 2
read -ra exe <<<"$cmd"
if [[ -n $old ]]; then cmd=$(bench_of "$old") || exit 2; read -ra old_exe <<<"$cmd"; fi
cases="regrid lost-node"
[[ -n $old ]] && cases="old-regrid old-lost-node regrid lost-node"
[[ -z $switch || $switch =~ ^RESIZE_[A-Z_]+$ ]] || { echo "levels.sh recover: --switch takes a RESIZE_ variable, not $switch" >&2; exit 2; }
[[ -n $switch ]] && cases="regrid-on regrid-off lost-node-on lost-node-off"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
tmp=$(mktemp -d /dev/shm/malleable-levels-recover.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[[ -n $out ]] && mkdir -p "$out"
tsv=${out:-$tmp}/recover.tsv
printf 'case\tround\trecover_s\tredistribute_s\tratio\tload\tfiles_ms\tread_ms\tgrid_ms\tmove_ms\tplanning_ms\tratio_without_reading\tcold_s\tratio_cold\tratio_cold_without_reading\n' >"$tsv"
mpi() { timeout 900 mpiexec --oversubscribe --bind-to none "$@"; }
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); N $n NB $nb, $rounds rounds, $reps + $reps redistributions per run, pause $pause s"
one() {  # <case> <round>: write, (lose), read; a line into the table
  local c=$1 r=$2 log v=${1##*-} run=("${exe[@]}")
  [[ $c == old-* ]] && run=("${old_exe[@]}")
  [[ -n $switch ]] && export "$switch=$v"
  rm -rf "$tmp/l"
  if [[ ${c#old-} == regrid* ]]; then
    MALLEABLE_NODE_MAP=every=2 mpi -n 4 "${run[@]}" write "$n" "$nb" 2x2 "$tmp/l" >/dev/null
    sleep "$pause"
    log=$(MALLEABLE_NODE_MAP=every=2 mpi -n 4 "${run[@]}" read "$n" "$nb" 4x1 "$tmp/l" 2x2 0,1,2,3 "$reps")
  else
    MALLEABLE_NODE_MAP=every=2 mpi -n 6 "${run[@]}" write "$n" "$nb" 3x2 "$tmp/l" >/dev/null
    rm -rf "$tmp/l/node3"
    sleep "$pause"
    log=$(MALLEABLE_NODE_MAP=node1,node1,node2,node2 mpi -n 4 "${run[@]}" read "$n" "$nb" 2x2 "$tmp/l" 3x2 0,1,2,3,0,1 "$reps")
  fi
  [[ -n $out ]] && echo "$log" >"$out/$c.$r.txt"
  grep -q '^wrong_elements 0$' <<<"$log" || { echo "levels.sh recover: $c round $r: wrong result" >&2; echo "$log" >&2; exit 1; }
  # The recovery's parts from its line (each the slowest process's): listing the files,
  # choosing and reading them, the new grid, the move (and the part of it before the
  # exchange, when the build prints it: planning); the ratio without the reading is
  # (recovery - choosing and reading) / redistribute; the cold ratios are against one
  # `redistribute` on a new communicator into untouched pages (when the build prints it).
  awk -v c="$c" -v r="$r" -v la="$(cut -d" " -f1 /proc/loadavg)" '/^recover_s/ {t = $2} /^redistribute_s/ {d = $2} /^redistribute_cold_s/ {cd = $2}
    /restart from levels in/ { s = $0; sub(/.*ms: files /, "", s); gsub(/[^0-9. ]/, "", s); split(s, p, " +") }
    END {printf "%s\t%d\t%.4f\t%.4f\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f", c, r, t, d, t / d, la, p[1], p[2], p[3], p[4],
                p[5] == "" ? "-" : p[5], (t - p[2] / 1e3) / d
         if (cd == "") printf "\t-\t-\t-\n"; else printf "\t%.4f\t%.3f\t%.3f\n", cd, t / cd, (t - p[2] / 1e3) / cd}' <<<"$log" | tee -a "$tsv"
}
for ((r = 1; r <= rounds; ++r)); do
  order=$cases
  ((r % 2 == 0)) && [[ -n $switch ]] && order="regrid-off regrid-on lost-node-off lost-node-on"
  for c in $order; do one "$c" "$r"; done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
{
echo "| case | recovery ms (median) | redistribute ms (median) | recovery / redistribute: median (min-max) | without the reading: median (min-max) | recovery / cold redistribute, with / without the reading (medians) | files / choose and read / grid / move (planning) ms (medians) |"
echo "|---|---:|---:|---:|---:|---:|---|"
for c in $cases; do
  awk -F'\t' -v c="$c" '$1 == c {t[++k] = $3; d[k] = $4; q[k] = $5; f[k] = $7; rd[k] = $8; g[k] = $9; mv[k] = $10; pl[k] = $11; w[k] = $12; qc[k] = $14; wc[k] = $15}
    function med(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { lo = hi = q[1]; wl = wh = w[1]
          for (i = 1; i <= k; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i]; if (w[i] < wl) wl = w[i]; if (w[i] > wh) wh = w[i] }
          cold = qc[1] == "-" ? "-" : sprintf("%.2fx / %.2fx", med(qc, k), med(wc, k))
          printf "| %s | %.0f | %.0f | %.2fx (%.2f-%.2f) | %.2fx (%.2f-%.2f) | %s | %.1f / %.1f / %.1f / %.1f (%s) |\n", c, med(t, k) * 1e3, med(d, k) * 1e3,
                 med(q, k), lo, hi, med(w, k), wl, wh, cold, med(f, k), med(rd, k), med(g, k), med(mv, k), pl[1] == "-" ? "-" : sprintf("%.1f", med(pl, k)) }' "$tsv"
done
} | tee "${out:-$tmp}/summary.txt"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
[[ -z $out ]] || python3 "$here/scripts/bench/data_archive.py" pack "$(dirname "$out")"
}

#@case recovery
# Recovery from a lost node on the emulated cluster: pdgemm 2x3 on node1-3,
# node3's processes SIGKILLed during iteration 13 and its storage removed, relaunched on
# node1,node2 (2x2) by malleable-run --on-failure restart, RUNS times each:
#   levels  the checkpoint levels (local every iteration, partner every 2), the global
#           directory moved away: rebuilt from the survivors' local and partner copies;
#   global  today's path: the global HDF5 checkpoint every 5, read back.
# (tests/cluster/lost_node_levels.sh in both modes; each run brings the cluster up and
# down.) Prints a table (time from the kill until the job computes again, iterations
# lost, bytes read from the file system) and writes OUT/recovery.tsv and recovery.svg
# (gnuplot). Usage: levels.sh recovery [build dir] [runs] [out dir]
case_recovery() {
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) runs=${2:-3} out=${3:-$SRC/docs/data/levels}
mkdir -p "$out"
tsv=$out/recovery.tsv
printf 'mode\trun\tseconds_to_compute\titerations_lost\tfs_bytes_read\n' >"$tsv"
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; ++r)); do
  for mode in levels global; do
    line=$("$SRC/tests/cluster/lost_node_levels.sh" "$SRC" "$BUILD" $mode 2>&1 | grep '^RESULT') ||
      { echo "levels_recovery_bench: run $r ($mode) failed" >&2; exit 1; }
    echo "$line"
    secs=$(sed -E 's/.* computing ([0-9.]+) s after the kill.*/\1/' <<<"$line")
    lost=$(sed -E 's/.*: ([0-9]+) iterations lost.*/\1/' <<<"$line")
    bytes=0
    [[ $mode == global ]] && bytes=$(sed -E 's/.* ([0-9]+) bytes read from the file system.*/\1/' <<<"$line")
    printf '%s\t%d\t%s\t%s\t%s\n' "$mode" "$r" "$secs" "$lost" "$bytes" >>"$tsv"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| recovery | time from the kill until computing again (runs) | iterations lost | bytes read from the file system |"
echo "|---|---|---|---|"
for mode in levels global; do
  awk -F'\t' -v m=$mode '$1 == m { t = t (t ? ", " : "") $3; s += $3; n++; lost = $4; b = $5 }
    END { label = m == "levels" ? "levels (local + partner copies)" : "relaunch from the global HDF5 file"
          printf "| %s | %.1f s mean (%s) | %s | %s |\n", label, s / n, t, lost, b }' "$tsv"
done
lost_l=$(awk -F'\t' '$1 == "levels" { v = $4 } END { print v }' "$tsv")
lost_g=$(awk -F'\t' '$1 == "global" { v = $4 } END { print v }' "$tsv")
gnuplot <<EOF2
set terminal svg size 640,360 font "sans,11"
set output "$out/recovery.svg"
set title "Lost node: time from the kill until the job computes again (emulated cluster)"
set ylabel "seconds"
set xlabel "run"
set key top left
set yrange [0:*]
set style data linespoints
plot "< awk -F'\t' '\$1 == \"levels\"' $tsv" using 2:3 title "levels ($lost_l iterations lost, 0 bytes from the FS)" pt 7, \
     "< awk -F'\t' '\$1 == \"global\"' $tsv" using 2:3 title "relaunch from HDF5 ($lost_g iterations lost)" pt 5
EOF2
echo "plot: $out/recovery.svg"
}

# Run, the case named; sourced (device16.sh respawn sources redist.sh for costa_native), the functions only.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then bench_main "$0" "$@"; fi
