#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# RESIZE_POLICY (docs/guide/configuration.md): the porting guide's programs (C, C++, Fortran)
# run as the recipe of docs/guide/slurm.md runs them (no argument, RESIZE_POLICY=slurm in
# the environment) take the Slurm policy in place of their default schedule, and start on
# every process they were given (6: 2x3). No Slurm here: SLURM_JOB_ID=7 and stand-in
# squeue, sinfo and scontrol that log their call and fail, so the policy, asking Slurm at
# its first remap point, notes the failure and stays (the run is not resized); an mpiexec
# that puts its own bin folder first in PATH may run the host's squeue instead, which
# fails alike without a Slurm. With their
# old arguments they take it too (the JSON names it); RESIZE_POLICY=fixed runs a schedule
# without resizing; a bad value ends the run with a message naming the variable and values.
# Usage: porting_policy_setting.sh <mpiexec> <program>...
set -uo pipefail
mpiexec=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
mkdir -p "$work/bin"
for c in squeue sinfo scontrol; do
  printf '#!/usr/bin/env bash\necho "%s $*" >>"%s/slurm.log"\necho "stand-in %s: no Slurm here" >&2\nexit 1\n' \
    "$c" "$work" "$c" >"$work/bin/$c"
done
chmod +x "$work/bin/"*
run() {  # run NP LOG [program arguments...] (the program in $prog, the environment as set)
  local np=$1 log=$2
  shift 2
  timeout 120 "$mpiexec" --oversubscribe --bind-to none -n "$np" "$prog" "$@" >"$log" 2>&1
}
export OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
for prog in "$@"; do
  app=$(basename "$prog")
  # 1. As the recipe runs it: no argument, RESIZE_POLICY=slurm.
  rm -f "$work/slurm.log"
  PATH="$work/bin:$PATH" SLURM_JOB_ID=7 RESIZE_SLURM_SHARED=off RESIZE_SLURM_EXPANSION=off RESIZE_POLICY=slurm \
    run 6 "$work/out.txt"
  rc=$?
  out=$work/out.txt
  ((rc == 0)) || { cat "$out"; fail "$app under RESIZE_POLICY=slurm ended with status $rc"; }
  grep -Eq "^\[$app\] policy slurm from RESIZE_POLICY, in place of the program's scripted( 3:expand:3x3,6:shrink:2x2)?$" "$out" ||
    { cat "$out"; fail "$app: no line saying RESIZE_POLICY replaced its schedule"; }
  grep -q "^\[$app\] start on 2x3 (6 processes; .*policy slurm;" "$out" ||
    { cat "$out"; fail "$app did not start on every process (2x3) under the Slurm policy"; }
  grep -q "^\[slurm\] job 7: alone (RESIZE_SLURM_SHARED=off)" "$out" || { cat "$out"; fail "$app: the Slurm policy never decided"; }
  # (the stand-in, or where mpiexec puts its own bin first the host's squeue, failing without Slurm)
  grep -q "^squeue -h -j 7 " "$work/slurm.log" 2>/dev/null || grep -q "^\[slurm\] asking Slurm failed: .*squeue -h -j 7 " "$out" ||
    { cat "$out"; fail "$app: the Slurm policy never asked squeue about job 7"; }
  grep -Eq "== summary: $app .*policy slurm \(RESIZE_POLICY, in place of the program's scripted" "$out" ||
    { cat "$out"; fail "$app: the summary does not name the policy RESIZE_POLICY chose"; }
  grep -q "remap after iter" "$out" && { cat "$out"; fail "$app: resized (the default schedule still ran?)"; }
  grep -Eq "$app: 8 iterations, now on 2x3, max error .*: OK" "$out" || { cat "$out"; fail "$app: the result check"; }
  echo "ok: $app as the recipe runs it: the Slurm policy from RESIZE_POLICY, started on 2x3"
  # 2. Its old arguments (a schedule and a JSON path) with RESIZE_POLICY=fixed: no resize.
  RESIZE_POLICY=fixed run 4 "$work/out2.txt" 3:expand:3x3,6:shrink:2x2 "$work/run.json" ||
    { cat "$work/out2.txt"; fail "$app under RESIZE_POLICY=fixed"; }
  python3 - "$work/run.json" <<'PY' || { cat "$work/out2.txt"; fail "$app: the JSON under RESIZE_POLICY=fixed"; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["policy"] in ("fixed (RESIZE_POLICY, in place of the program's scripted 3:expand:3x3,6:shrink:2x2)",
                       "fixed (RESIZE_POLICY, in place of the program's scripted)"), r["policy"]
assert r.get("resizes", []) == [] and r["check"]["ok"] is True, (r.get("resizes"), r["check"])
PY
  echo "ok: $app with its schedule and RESIZE_POLICY=fixed: not resized, the JSON names the setting"
  # 3. A bad value: the run ends, the message names the variable and the values it takes.
  RESIZE_POLICY=slurmm run 4 "$work/out3.txt" && { cat "$work/out3.txt"; fail "$app took RESIZE_POLICY=slurmm"; }
  grep -q "RESIZE_POLICY must be slurm or fixed (unset or empty: the program's own policy), got 'slurmm'" "$work/out3.txt" ||
    { cat "$work/out3.txt"; fail "$app: no message naming RESIZE_POLICY and its values"; }
  echo "ok: $app refuses RESIZE_POLICY=slurmm with a message naming it"
done
echo PASS
