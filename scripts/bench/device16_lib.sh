# shellcheck shell=bash disable=SC2154
# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the scripts run on a lent 16-core machine in one call of limited time
# (device16_ucx.sh, device16_respawn.sh): the records go to WORK, packed into OUT/records.tar
# after every run, so that what a cut-off call leaves still comes back. The caller sets
#   out, work   (folders; created here), budget (seconds, 0: none), t0 (=$SECONDS at start),
#   mpiexec     (the launcher; default mpiexec), build (the build folder).
# BUDGET: a run is started only while budget - (elapsed + 35) s is left, and its own timeout
# is cut to what is left less 20 s, so that the call ends with its records packed.
mpiexec=${mpiexec:-mpiexec}
mkdir -p "$out" "$work"
log() { echo "$(date -u +%T) +$((SECONDS - t0))s $*" | tee -a "$work/progress.txt"; }
pack() { tar -cf "$out/records.tar.tmp" -C "$work" . && mv "$out/records.tar.tmp" "$out/records.tar"; }

run() {  # <file> <timeout_s> <mpiexec args...>: one mpiexec, its own timeout; 1 when skipped or failed
  local f=$1 lim=$2; shift 2
  if ((budget > 0 && SECONDS - t0 + 35 > budget)); then
    log "SKIPPED $f (budget)"; echo "SKIPPED $f" >>"$work/failures.txt"; return 1
  fi
  ((budget > 0 && lim > budget - (SECONDS - t0) - 20)) && lim=$((budget - (SECONDS - t0) - 20))
  log "start $f"
  local rc=0
  timeout "$lim" "$mpiexec" --oversubscribe "$@" >"$work/$f.log" 2>&1 || rc=$?
  if ((rc)); then
    log "FAILED $f rc=$rc"; echo "FAILED $f rc=$rc" >>"$work/failures.txt"; tail -15 "$work/$f.log"
  fi
  pack
  return $rc
}

# The growth of device16.sh: a driver started on FROM (default 2x2) grown to TO (default 4x4)
# after iteration 1, GROW_ITERS iterations in all (default 6), against the driver started
# on TO for one iteration less (all --bind-to none: a spawned job's ranks would be bound
# over the parent's cores).
grow() {  # <tag> <driver> <N> <round> [mpiexec args...]
  local tag=$1 d=$2 n=$3 r=$4 from=${FROM:-2x2} to=${TO:-4x4}; shift 4
  run "${tag}_${d}_grow.$r" "${GROW_TIMEOUT:-90}" --bind-to none -n $((${from%x*} * ${from#*x})) "$@" \
    "$build/apps/${d}_resizable" -n "$n" --nb "${NB:-64}" -g "$from" -i "${GROW_ITERS:-6}" \
    -p scripted -s "1:expand:$to" --no-check -q --json "$work/${tag}_${d}_grow.$r.json"
}
fresh() {  # <tag> <driver> <N> <round> [mpiexec args...]
  local tag=$1 d=$2 n=$3 r=$4 to=${TO:-4x4}; shift 4
  run "${tag}_${d}_fresh.$r" "${FRESH_TIMEOUT:-60}" --bind-to none -n $((${to%x*} * ${to#*x})) "$@" \
    "$build/apps/${d}_resizable" -n "$n" --nb "${NB:-64}" -g "$to" -i "$((${GROW_ITERS:-6} - 1))" \
    --no-check -q --json "$work/${tag}_${d}_fresh.$r.json"
}
