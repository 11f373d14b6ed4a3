#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A checkpoint directory that cannot be written is refused when the cadence is set, before
# any iteration, on every rank: pdgemm on 2x2 with --checkpoint DIR where DIR
#   proc      cannot be made (under /proc);
#   readonly  is on a tmpfs mounted read-only (needs root; skipped otherwise).
# Each: exit 5, "checkpoint failed: set_checkpointing: checkpoint directory DIR ..." from
# all 4 ranks, and no iteration ran (the run's first progress line is never printed).
# Usage: checkpoint_dir_refused.sh <mpiexec> <pdgemm_resizable>
set -uo pipefail
mpiexec=$1 pdgemm=$2
work=$(mktemp -d)
cleanup() {
  mountpoint -q "$work/ro" && umount "$work/ro"
  rm -rf "$work"
}
trap cleanup EXIT
export RESIZE_HISTORY=off OPENBLAS_NUM_THREADS=1
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }

# refused <case> <dir> <reason regex>
refused() {
  local what=$1 dir=$2 reason=$3 out rc r
  out=$(timeout 60 "$mpiexec" "${flags[@]}" -n 4 "$pdgemm" -n 240 --nb 32 -i 4 -g 2x2 --checkpoint "$dir" \
        --checkpoint-every 1 2>&1); rc=$?
  [[ $rc -eq 5 ]] || fail "$what: exit $rc, expected 5: $(tail -4 <<<"$out" | tr '\n' '|')"
  for r in 0 1 2 3; do
    grep -qE "^pdgemm \(rank $r\): checkpoint failed: set_checkpointing: checkpoint directory $dir $reason" <<<"$out" ||
      fail "$what: rank $r did not refuse the directory: $(grep -m2 'checkpoint failed' <<<"$out" | tr '\n' '|')"
  done
  grep -q "iter    1" <<<"$out" && fail "$what: an iteration ran before the refusal"
  echo "$what: exit $rc; $(grep -m1 -o 'checkpoint failed: .*' <<<"$out")"
}

refused proc /proc/malleable-ck "cannot be created"
mkdir -p "$work/ro"
if [[ $(id -u) -eq 0 ]] && mount -t tmpfs -o size=1m,ro tmpfs "$work/ro" 2>/dev/null; then
  refused readonly "$work/ro" "cannot make a file in it: Read-only file system"
else
  echo "readonly: skipped (mounting a read-only tmpfs needs root)"
fi
if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo "PASS: unwritable checkpoint directories refused at set_checkpointing"
