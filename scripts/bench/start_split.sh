#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A resize's process start split against a bare start, one thing added at a time
# (docs/measurements/redist.md, "The process start split, fourth run"). Every variant times the same
# interval: from the moment the running 2-process job starts growing by 2 processes to the
# grown world (a barrier on it, or blacs-dyn's own last collective), on world rank 0, and
# each is the job's FIRST start (a resize is its job's first spawn or join); the raw ones
# also give the median of REPS warm repetitions after it (what bound_bench.sh's
# "bare_spawn_s" and "bare_join_s" were). Variants, each ROUNDS times, interleaved (the
# order rotates from round to round), the load average beside each:
#   raw_plain     spawn_pingpong.c's spawn mode: MPI_Comm_spawn of 2 + merge + barrier, the
#                 program alone (the bare spawn);
#   raw_ext       the same program linked with the driver's external libraries only
#                 (ScaLAPACK, OpenBLAS, LAPACKE, HDF5, libcrypto, libstdc++ and theirs):
#                 their loading and relocation in the newcomers;
#   raw_libs      linked with all of the driver's libraries (the project's too, blacs-dyn's
#                 MPI_Init wrapper included, as a process that is no newcomer);
#   expand        start_split.c: blacs_dyn_expand of 2 (same libraries): blacs-dyn's
#                 protocol (checks, spawn over MPI_COMM_SELF, check-in, go, both merges, dup,
#                 hosts, BLACS's world); BLACS_DYN_TRACE's phases kept;
#   resize        pdgemm_resizable -n 2048 --nb 64 -g 1x2 -i 4 -s 2:expand:2x2,3:shrink:1x2
#                 (bound_bench.sh's resize): the JSON's t_spawn_s, its prefault_s and the
#                 trace's phases;
#   resize_nopf   the same with RESIZE_PREFAULT=off (no thread staging the new arrays and
#                 the node window while the newcomers start; the move then touches them);
#   join_bare     bare_join.c through an ompi-server: a separate mpiexec -n 2 to the merged
#                 world (first, then REPS warm), and the launch's port written (ready_s);
#   join_libs     the same program linked with all of the driver's libraries;
#   join_resize   the resize by a join (malleable-run --job-dir), t_spawn_s and the trace;
#   join_nopf     the same with RESIZE_PREFAULT=off.
# The resizes' t_redist_s and t_total_s are kept too (what the prefault saves the move).
# The build is copied to a scratch folder first (a rebuild during the run changes nothing).
# Output in OUT: rounds.tsv (one line per round and variant), phases.tsv (the traces'
# phases), summary.txt (medians and ratios: scripts/bench/start_split_report.py), meta.txt.
# Usage: start_split.sh [--build DIR] [--out DIR] [--rounds R] [--reps K]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
args="$*"
build=$here/build out='' rounds=7 reps=3
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    -h | --help) sed -n '2,35p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "start_split.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]?$ && $reps =~ ^[1-9]$ ]] || { echo "start_split.sh: --rounds 1-99, --reps 1-9" >&2; exit 2; }
[[ -x $build/apps/pdgemm_resizable && -x $build/bin/malleable-run ]] ||
  { echo "start_split.sh: build pdgemm_resizable and malleable-run first" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 RESIZE_HISTORY=off PMIX_MCA_gds=hash
work=$(mktemp -d)
server=''
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
out=${out:-$work/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
load() { cut -d' ' -f1 /proc/loadavg; }
mpx() { timeout -k 10 120 mpiexec --oversubscribe --bind-to none "$@"; }

# The build's snapshot: the driver, the launcher and the project's libraries.
snap=$work/snap
mkdir -p "$snap/apps" "$snap/bin" "$snap/lib"
cp "$build/apps/pdgemm_resizable" "$snap/apps/"
cp "$build/bin/malleable-run" "$snap/bin/"
find "$build" -maxdepth 2 -name 'libmalleable_*.so*' -exec cp -P {} "$snap/lib/" \;
export LD_LIBRARY_PATH=$snap/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
prog=$snap/apps/pdgemm_resizable
build_commit=$(sed -n 's/^#define MALLEABLE_GIT_COMMIT "\(.*\)"$/\1/p' "$build/generated/include/malleable/version.h" 2>/dev/null)

# The programs. all: the driver's NEEDED libraries (blacs-dyn ahead of ScaLAPACK, as the
# driver links them); ext: every library the driver loads that is not the project's.
all=$(readelf -d "$prog" | sed -n 's/.*Shared library: \[\(.*\)\]/-l:\1/p' | grep -v -e libmpi.so -e libc.so -e libm.so -e libgcc_s)
ext=$(ldd "$prog" | awk '$1 ~ /^lib/ && $1 !~ /^libmalleable_|^libmpi\.|^libc\.|^libm\.|^libgcc_s/ {print "-l:" $1}')
cc() { mpicc -O2 "$here/scripts/bench/$1" -o "$work/$2" "${@:3}"; }
cc spawn_pingpong.c raw_plain
# shellcheck disable=SC2086
cc spawn_pingpong.c raw_ext -Wl,--no-as-needed $ext
# shellcheck disable=SC2086
cc spawn_pingpong.c raw_libs -L"$snap/lib" -Wl,--no-as-needed $all -Wl,-rpath,"$snap/lib"
# shellcheck disable=SC2086
cc start_split.c expand -L"$snap/lib" -Wl,--no-as-needed $all -ldl -Wl,-rpath,"$snap/lib"
cc bare_join.c join_bare
# shellcheck disable=SC2086
cc bare_join.c join_libs -L"$snap/lib" -Wl,--no-as-needed $all -Wl,-rpath,"$snap/lib"

{
  echo "date $(date -u +%FT%TZ)"
  echo "command scripts/bench/start_split.sh $args (rounds $rounds, reps $reps)"
  echo "build_commit ${build_commit:-unknown}; HEAD $(git -C "$here" rev-parse --short HEAD 2>/dev/null)"
  echo "machine $(getconf _NPROCESSORS_ONLN) cores ($(lscpu | sed -n 's/^Model name: *//p')); $(mpiexec --version | head -1)"
  echo "load_before $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/meta.txt"
printf 'round\tvariant\tfirst_s\twarm_median_s\textra\tload1\n' >"$out/rounds.tsv"
printf 'round\tvariant\tphase\tms\n' >"$out/phases.tsv"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$out/rounds.tsv"; }
# The trace's lines ("blacs-dyn trace: PHASE  X ms (at ...)") of a start (not the leaving ones).
phases() {  # <round> <variant> <stderr file>
  sed -n 's/^blacs-dyn trace: \(.*[^ ]\) \+\([0-9.]*\) ms (at .*/\1\t\2/p' "$3" | grep -v '^leaving' |
    sed "s/launch [^ ]* \(seen\|merged\)/launch \1/; s/^/$1\t$2\t/" >>"$out/phases.tsv" || true
}

raw() {  # <round> <variant>
  local line
  if line=$(mpx -n 2 "$work/$2" spawn 2 "$reps" 2>"$work/err" | grep raw_spawn_merge_ms); then
    row "$1" "$2" "$(awk '{print $4 / 1000}' <<<"$line")" "$(awk '{print $3 / 1000}' <<<"$line")" - "$(load)"
  else row "$1" "$2" NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$(load)"; fi
}
expand() {
  local line
  if line=$(BLACS_DYN_TRACE=1 mpx -n 2 "$work/expand" 2 2>"$work/err" | grep expand_ms); then
    row "$1" expand "$(awk '{print $3 / 1000}' <<<"$line")" - - "$(load)"
    phases "$1" expand "$work/err"
  else row "$1" expand NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$(load)"; fi
}
resize() {  # <round> <resize|resize_nopf|join_resize|join_nopf>
  local pf=on runner=(mpx -n 2) l
  [[ $2 == *_nopf ]] && pf=off
  [[ $2 == join_* ]] && { rm -rf "$work/job-dir"; runner=(timeout -k 10 180 "$snap/bin/malleable-run" --job-dir "$work/job-dir" -n 2 --); }
  l=$(load)
  if RESIZE_PREFAULT=$pf BLACS_DYN_TRACE=1 "${runner[@]}" "$prog" -n 2048 --nb 64 -g 1x2 -i 4 -p scripted \
    -s 2:expand:2x2,3:shrink:1x2 -q --no-check --json "$work/r.json" >"$work/out.log" 2>"$work/err"; then
    read -r t pre mech red tot < <(python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['resizes'][0]
print(e['t_spawn_s'], e.get('move_phases', {}).get('prefault_s', 0), e['mechanism'], e['t_redist_s'], e['t_total_s'])" "$work/r.json")
    row "$1" "$2" "$t" - "mechanism $mech, prefault_s $pre, t_redist_s $red, t_total_s $tot" "$l"
    phases "$1" "$2" "$work/err"
  else row "$1" "$2" NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$l"; fi
}
# One job joined by reps + 1 separate launches: the first, the warm median, and when the
# first launch had written its port (its MPI_Init and MPI_Open_port done).
join() {  # <round> <join_bare|join_libs>
  local port=$work/port.$1.$2 l times=() t0 t1 ready=''
  l=$(load)
  rm -f "$work/join.out"
  mpx -n 2 --ompi-server "file:$work/uri" "$work/$2" job "$port" $((reps + 1)) >"$work/join.out" 2>"$work/err" &
  local job=$!
  for ((k = 1; k <= reps + 1; ++k)); do
    t0=$(date +%s.%N)
    mpx --ompi-server "file:$work/uri" -n 2 "$work/$2" launch "$port.$k" 2>>"$work/err" || break
    for ((i = 0; i < 1000; ++i)); do grep -q "^merged $k " "$work/join.out" && break; sleep 0.01; done
    t1=$(awk -v r="$k" '$1 == "merged" && $2 == r {print $3}' "$work/join.out")
    [[ -n $t1 ]] || break
    times+=("$(echo "$t1 - $t0" | bc -l)")
    ((k == 1)) && ready=$(echo "$(find "$port.1" -printf '%T@') - $t0" | bc -l)
  done
  wait "$job" || true
  if ((${#times[@]} == reps + 1)); then
    row "$1" "$2" "${times[0]}" "$(printf '%s\n' "${times[@]:1}" | sort -g | awk '{v[NR]=$1} END {print NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')" \
      "ready_s $ready" "$l"
  else row "$1" "$2" NA NA "failed: $(tail -1 "$work/err" | tr '\t' ' ')" "$l"; fi
}

ompi-server --no-daemonize --report-uri "$work/uri" </dev/null &
server=$!
for ((i = 0; i < 100; ++i)); do [[ -s $work/uri ]] && break; sleep 0.1; done
variants=(raw_plain raw_ext raw_libs expand resize resize_nopf join_bare join_libs join_resize join_nopf)
# A warm-up of each program (the file cache), not recorded.
mpx -n 2 "$work/raw_plain" spawn 2 1 >/dev/null 2>&1 || true
mpx -n 2 "$work/expand" 2 >/dev/null 2>&1 || true
for ((r = 1; r <= rounds; ++r)); do
  echo "round $r/$rounds: load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "load_round$r $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"
  n=${#variants[@]}
  for ((j = 0; j < n; ++j)); do
    v=${variants[$(((j + r - 1) % n))]}
    case $v in
      raw_*) raw "$r" "$v" ;;
      expand) expand "$r" ;;
      resize | resize_nopf | join_resize | join_nopf) resize "$r" "$v" ;;
      join_*) join "$r" "$v" ;;
    esac
  done
done
echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"
python3 "$here/scripts/bench/start_split_report.py" "$out" | tee "$out/summary.txt"
echo "start_split.sh: wrote $out"
