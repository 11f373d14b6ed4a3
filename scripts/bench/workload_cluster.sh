#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# With one command: a seeded stream of jobs on the emulated cluster under real
# Slurm daemons, once per malleable share (default: every job rigid, 25%, 50%, 100%
# malleable), the same jobs each time. Per share: the workload is generated
# (workload/generate.py, Lublin-Feitelson) and compressed to minutes
# (workload/cluster_stream.py prepare), the cluster comes up under Slurm (this script takes
# the cluster lock for one run at a time and gives it back in between), the jobs are
# submitted with sbatch at their submit times (workload/cluster_stream.py run: rigid jobs
# at their size, malleable ones with -N min-max and the Slurm policy; flexible-sleep jobs
# and every 8th job a real PDGEMM driver), the cluster goes down, and
# workload/cluster_report.py computes the metrics, appends one row to the summary CSV and
# draws the timeline of nodes per job. At the end the resize costs the simulator reads.
#
#   scripts/bench/workload_cluster.sh [--nodes 10] [--jobs 32] [--seed 1] [--shares "0 0.25 0.5 1"]
#        [--load 0.9] [--lo 20] [--hi 120] [--rate 1gbit] [--out DIR] [--build-dir DIR]
#        [--csv FILE | --no-csv] [--img DIR] [--costs FILE] [--deadline S] [--report-only]
#        [--start min|one|full|join|recipe] [--no-accounting] [--range requested|double|grow]
#        [--workload FILE [--arms "rigid moldable malleable ..."] [--setting NAME]] [--arbiter]
#        [--limits loose|log]
# Data: DIR/share_<s>/ (default docs/data/workload/emulated/; docs/data/workload's runs are
# packed into its runs.tar.xz at the end, scripts/bench/data_archive.py), plots docs/img/workload_<basename of DIR>_<s>.png
# (workload_emulated_<s>.png by default: another --out never overwrites those),
# rows in docs/data/workload/summary.csv, costs in docs/data/workload/costs_emulated.json.
# Slurm starts a malleable job on as many nodes in [min, max] as it can give now, and the
# job launches one process on each (--start full, the default: those cannot leave, so its
# floor is the size it started on, and its time limit comes down to that size's); --start
# min launches on its min and spawns onto the rest at once (its first iteration does no
# work), so that it may shrink back to its min later; --start one launches one process
# (see workload/cluster_stream.py); --start join submits a malleable job for exactly its
# minimum and grows it by expander jobs whose launches join it (malleable-run --job-dir).
# --start recipe runs it by docs/guide/slurm.md's recipe: sbatch -N min-size, malleable-run
# --job-dir on every node Slurm gave (one launch per node), giving back any node but the
# batch host down to its minimum, growing by expander jobs.
# Slurm keeps accounting through slurmdbd, so that a job may change size more than once
# (--no-accounting: without, as Slurm 22.05 then allows one change per job).
# --range: a malleable job's node range: grow (the default), [size/2, 2 x size] of which
# Slurm is asked for at most the size the job asked (-N size/2-size: it starts on no more)
# and the policy grows it above into idle nodes (spawned processes, which can leave
# again); requested, [size/2, size]; double, [size/2, 2 x size] all asked of Slurm;
# generate.py --range, docs/measurements/workload.md.
# --workload FILE: these jobs (generate.py's JSON, e.g. a real trace's slice from
# workload/trace_slice.py) instead of a generated stream, run once per arm (--arms):
# rigid (every job rigid), moldable (the malleable jobs ask Slurm for [min, size] and run on
# what they got, never resized; moldable_max: [min, max]; moldable_efficient: [min, the
# largest size whose added nodes run at 0.5 efficiency or better]), malleable (the same as
# moldable, and resizes by the Slurm policy), growth (malleable with give-backs off:
# RESIZE_SLURM_GIVE_BACK=off), giveback (malleable with growth off: RESIZE_SLURM_GROW=off);
# data in DIR/<arm>/, rows with setting NAME (--setting, e.g. emulated-trace:kth-sp2).
# --arbiter: the cluster's malleable-arbiterd runs in the head's namespace as the user slurm
# (MUNGE-authenticated, its state in DIR/<run>/arbiter/), and the jobs' Slurm policy asks it
# instead of a shared directory. Arm malleable_rule (with --arbiter): malleable, and the
# arbiter raises a job's time limit after a give-back by the time-limit rule
# (--extend-limits on; the user slurm made a Slurm operator with sacctmgr for it).
# --limits: each job's time limit, loose (the default: twice its run on its minimum plus a
# minute, under which no limit holds a job back) or log (the limit its log gave it against
# its run, whole minutes: workload/cluster_stream.py prepare --limits).
# --report-only: no run; the metrics, rows, plots and costs again from the data in DIR.
# Needs root (namespaces) and Slurm (scripts/setup.sh installs it). About 8-10 min per share.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
nodes=10 jobs=32 seed=1 shares="0 0.25 0.5 1" load=0.9 lo=20 hi=120 rate=1gbit deadline=1200 report_only=0 start=full acct=() range=grow
out=$here/docs/data/workload/emulated csv=$here/docs/data/workload/summary.csv img=$here/docs/img
costs=$here/docs/data/workload/costs_emulated.json
workload="" arms="rigid moldable malleable" setting=emulated arbiter=0 limits=loose
while (($#)); do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --shares) shares=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    --lo) lo=$2; shift 2 ;;
    --hi) hi=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --no-csv) csv=""; shift ;;
    --img) img=$2; shift 2 ;;
    --costs) costs=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --report-only) report_only=1; shift ;;
    --start) start=$2; shift 2 ;;
    --start-one) start=one; shift ;;
    --start-full) start=full; shift ;;
    --no-accounting) acct=(--no-accounting); shift ;;
    --range) range=$2; shift 2 ;;
    --workload) workload=$(realpath "$2"); shift 2 ;;
    --arms) arms=$2; shift 2 ;;
    --setting) setting=$2; shift 2 ;;
    --arbiter) arbiter=1; shift ;;
    --limits) limits=$2; shift 2 ;;
    -h | --help) sed -n '2,43p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "workload_cluster.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $limits == loose || $limits == log ]] || { echo "workload_cluster.sh: --limits must be loose or log, got '$limits'" >&2; exit 2; }
[[ $build = /* ]] || build=$here/$build
daemon=$build/cluster/malleable-arbiterd
if ((arbiter)); then
  [[ -x $daemon ]] || { echo "workload_cluster.sh: --arbiter needs $daemon (built with libmunge)" >&2; exit 1; }
  getent passwd slurm >/dev/null || { echo "workload_cluster.sh: --arbiter runs the daemon as the user slurm, which does not exist" >&2; exit 1; }
fi
for exe in flexsleep_resizable pdgemm_resizable; do
  [[ -x $build/apps/$exe ]] || { echo "workload_cluster.sh: $build/apps/$exe missing (cmake --build build --target $exe)" >&2; exit 1; }
done
cluster=$here/scripts/cluster.sh
why=$("$cluster" check) || { echo "$why"; exit 77; }
command -v slurmctld >/dev/null || { echo "workload_cluster.sh: Slurm is not installed (scripts/setup.sh)" >&2; exit 77; }
wl=$here/scripts/bench/workload
# absolute: the jobs run in their run's folder and reach the arbiter's socket by this path
out=$(realpath -m "$out")
# docs/data/workload's runs are packed (runs.tar.xz): the study is unpacked for the run and
# packed again at the end (scripts/bench/data_archive.py), whatever the run's outcome
archive=$here/scripts/bench/data_archive.py
study=$(python3 "$archive" study "$out")
if [[ -n $study ]]; then
  [[ -f $study/runs.tar.xz ]] && python3 "$archive" unpack "$study" >/dev/null
  trap 'python3 "$archive" pack "$study"' EXIT
fi
mkdir -p "$out" "$img"
LOCK=/run/malleable-cluster.lock
dirs=()
# The runs: one per share, or with --workload one per arm
if [[ -n $workload ]]; then runs=$arms; else runs=$shares; fi
for run in $runs; do
  if [[ -n $workload ]]; then
    arm=$run share=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["malleable_share"])' "$workload")
    d=$out/$arm label=$arm
    case $arm in rigid | moldable | moldable_max | moldable_efficient | malleable | growth | giveback) ;;
      malleable_rule) ((arbiter)) || { echo "workload_cluster.sh: arm malleable_rule needs --arbiter (the arbiter raises the limits)" >&2; exit 2; } ;;
      *) echo "workload_cluster.sh: unknown arm $arm" >&2; exit 2 ;; esac
  else
    share=$run arm="" d=$out/share_$share label=$share
  fi
  if ((report_only)); then
    python3 "$wl/cluster_report.py" run "$d" ${csv:+--csv "$csv"} --plot "$img/workload_${out##*/}_$label.png"
    continue
  fi
  rm -rf "$d"
  mkdir -p "$d"
  gen_range=$range top=max
  [[ $range == grow ]] && gen_range=double top=requested
  stream_opts=()
  if [[ -n $workload ]]; then
    # the same jobs in every arm: rigid ones keep their size, the others their range
    python3 - "$workload" "$arm" "$d/generated.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
if sys.argv[2] == "rigid":
    w["malleable_share"] = 0.0
    for j in w["jobs"]:
        j.update(malleable=False, min_nodes=j["nodes"], max_nodes=j["nodes"])
json.dump(w, open(sys.argv[3], "w"), indent=1)
PY
    nodes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"])' "$workload")
    jobs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$workload")
    top=requested
    case $arm in
      moldable) stream_opts+=(--moldable) ;;
      moldable_max) stream_opts+=(--moldable) top=max ;;
      moldable_efficient) stream_opts+=(--moldable) top=efficient ;;
      growth | giveback) stream_opts+=(--levers "$arm") ;;
    esac
  else
    python3 "$wl/generate.py" --nodes "$nodes" --jobs "$jobs" --seed "$seed" --malleable-share "$share" \
      --load "$load" --range "$gen_range" -o "$d/generated.json"
  fi
  python3 "$wl/cluster_stream.py" prepare --workload "$d/generated.json" --lo "$lo" --hi "$hi" --limits "$limits" \
    -o "$d/workload.json"
  if ((arbiter)); then
    mkdir -p "$d/arbiter"
    chown slurm "$d/arbiter"
    stream_opts+=(--arbiter "$d/arbiter/socket" --arbiter-munge /run/malleable-cluster/slurm/munge/munge.socket)
  fi
  echo "== $label (share $share): $jobs jobs on $nodes nodes (seed $seed); waiting for the cluster lock"
  t_begin=$(date +%s)
  (
    flock -w 1800 9 || { echo "workload_cluster.sh: the cluster lock is held by another run for 30 min" >&2; exit 1; }
    trap '"$cluster" down >/dev/null 2>&1 || true' EXIT
    "$cluster" down >/dev/null
    "$cluster" up "$nodes" --slurm --slots 2 ${rate:+--rate "$rate"} "${acct[@]}" 9>&-
    if ((arbiter)); then
      # the cluster's one arbiter, as the unprivileged user slurm in the head's namespace
      # (it alone queries slurmctld); ended with the cluster
      eval "export $("$cluster" slurm-env)"
      extend=off
      if [[ $arm == malleable_rule ]]; then
        # the time-limit rule: the daemon's user raises the jobs' limits as a Slurm operator
        "$cluster" exec head env SLURM_CONF="$SLURM_CONF" sacctmgr -i add user slurm account=root AdminLevel=Operator \
          >/dev/null 9>&- || { echo "workload_cluster.sh: sacctmgr could not make slurm an operator" >&2; exit 1; }
        extend=on
      fi
      "$cluster" exec head sh -c "echo \$\$ >$d/arbiter/pid; exec setpriv --reuid=slurm --regid=slurm --clear-groups \
        env SLURM_CONF=$SLURM_CONF $daemon --socket $d/arbiter/socket --state-dir $d/arbiter/state \
        --munge-socket /run/malleable-cluster/slurm/munge/munge.socket --interval 1 --expansion on --extend-limits $extend" \
        2>"$d/arbiter/daemon.log" 9>&- &
      for _ in $(seq 100); do [[ -S $d/arbiter/socket ]] && break; sleep 0.1; done
      apid=$(cat "$d/arbiter/pid" 2>/dev/null || echo 0)
      trap 'kill $apid 2>/dev/null || true; "$cluster" down >/dev/null 2>&1 || true' EXIT
      [[ -S $d/arbiter/socket ]] || { cat "$d/arbiter/daemon.log" >&2; echo "workload_cluster.sh: the arbiter did not start" >&2; exit 1; }
    fi
    rc=0
    python3 "$wl/cluster_stream.py" run --workload "$d/workload.json" --out "$d" --src "$here" --build "$build" \
      --deadline "$deadline" --start "$start" --top "$top" "${stream_opts[@]}" 9>&- || rc=$?
    if ((arbiter)); then
      "$daemon" --status "$d/arbiter/socket" --munge-socket /run/malleable-cluster/slurm/munge/munge.socket \
        >"$d/arbiter/status.json" 2>/dev/null || true
      kill $apid 2>/dev/null || true
      # the socket and the pid are no data (and a socket cannot be archived)
      rm -f "$d/arbiter/socket" "$d/arbiter/pid"
    fi
    # Slurm writes slurm_job_<id>_resize.{sh,csh} into a job's working directory at each
    # `scontrol update NumNodes`: its artefacts, not data.
    rm -f "$d"/slurm_job_*_resize.sh "$d"/slurm_job_*_resize.csh
    cp /run/malleable-cluster/slurm/log/jobcomp.txt "$d/jobcomp.txt" 2>/dev/null || true
    grep -E "error|killed|TIMEOUT" /run/malleable-cluster/slurm/log/slurmctld.log >"$d/slurmctld_errors.txt" 2>/dev/null || true
    exit $rc
  ) 9>"$LOCK" || echo "workload_cluster.sh: $label: the stream did not finish cleanly (see $d)" >&2
  secs=$(($(date +%s) - t_begin))
  run_range=$range
  [[ $arm == moldable* ]] && run_range=requested
  python3 - "$d" "$secs" "$rate" "$load" "$lo" "$hi" "$start" "${#acct[@]}" "$run_range" "$setting" "$arm" "$arbiter" "$top" "$limits" <<'PY'
import json, subprocess, sys
d, secs, rate, load, lo, hi = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5], sys.argv[6]
commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
# start and accounting: how the run was made (the simulator's comparison reads them, run_flags.py)
meta = {"seconds": secs, "rate": rate, "load": load, "lo_s": float(lo), "hi_s": float(hi), "commit": commit,
        "start": sys.argv[7], "accounting": sys.argv[8] == "0", "range": sys.argv[9], "setting": sys.argv[10],
        "limits": sys.argv[14],
        "arbiter": sys.argv[12] == "1", "load_at_end": open("/proc/loadavg").read().split()[:3]}
if sys.argv[11]:
    meta["policy"] = sys.argv[11]
    # the top of a malleable job's -N range as sbatch was given it (run_flags.py)
    meta["top"] = sys.argv[13]
json.dump(meta, open(f"{d}/meta.json", "w"), indent=1)
PY
  # the data stays; the per-job scripts and the machine's paths do not
  rm -f "$d"/jobs/*.sh "$d"/jobs/*.hosts
  # a joined job's directory keeps its logs, not its secret nor the machine's environment
  rm -f "$d"/jobdirs/*/secret "$d"/jobdirs/*/environment
  rm -rf "$d/ckpt"
  find "$d" -type f \( -name '*.out' -o -name '*.json' -o -name '*.jsonl' -o -name '*.txt' \) -exec sed -i "s#$here/##g; s#$here#.#g" {} +
  python3 "$wl/cluster_report.py" run "$d" ${csv:+--csv "$csv"} --plot "$img/workload_${out##*/}_$label.png"
  dirs+=("$d")
done
if [[ -z $workload ]]; then
  python3 "$wl/cluster_report.py" costs "$out"/share_* -o "$costs"
  python3 "$wl/cluster_report.py" table "$out"/share_*
else
  python3 "$wl/cluster_report.py" table "${dirs[@]}"
fi
