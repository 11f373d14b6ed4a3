#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The default suite's simulated run (label `simulated`): redist's real plan +
# execute path (redist_sim) at 64 ranks on the simulated fat tree, every element of B
# checked and the rank-local link bounds (node links; leaf uplinks, with leaves of 2 nodes
# here so that 64 ranks span 2 leaves) compared with redist::node_traffic's whole-plan ones. Cases: an expansion 4x4 -> 8x8 (default and caterpillar schedules), a coprime step
# 7x7 -> 8x8, a shrink with a block-size change (8x8 nb 16 -> 4x4 nb 24) and blocks of 2
# (the packed transport), and the coprime step with a window of one message in flight per
# direction (ExecOptions::max_outstanding = 1, what the simulated coprime cases at scale
# compare against; the run must report at most 1 in flight). Exit 77 (SKIPPED) with the
# reason when SimGrid is missing.
#   run_small.sh <redist_sim binary or empty> <platform dir>
set -uo pipefail
sim=${1:-}
platforms=$2
if ! command -v smpirun >/dev/null; then
  echo "SKIPPED: smpirun not found (Debian package libsimgrid-dev; scripts/setup.sh installs it)"
  exit 77
fi
if [[ -z $sim || ! -x $sim ]]; then
  echo "SKIPPED: redist_sim was not built (configure found no smpicxx, or -DMALL_SIMGRID=OFF)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cases=(
  "--from 4x4 --to 8x8 --n 1000 --nb 16"
  "--from 4x4 --to 8x8 --n 1000 --nb 16 --schedule caterpillar"
  "--from 7x7 --to 8x8 --n 999 --nb 13"
  "--from 8x8 --to 4x4 --n 900 --nb-a 16 --nb-b 24"
  "--from 4x4 --to 8x8 --n 300 --nb 2"
  "--from 7x7 --to 8x8 --n 999 --nb 13 --max-outstanding 1"
)
failed=0
for c in "${cases[@]}"; do
  # shellcheck disable=SC2086
  out=$(smpirun -np 64 -platform "$platforms/fattree.xml" -hostfile "$platforms/hostfile.txt" \
        --cfg=smpi/simulate-computation:no --cfg=contexts/stack-size:512 --log=root.thresh:warning \
        "$sim" $c --check --full-plan-check --nodes-per-leaf 2 --leaf-uplink-gbit 100 2>&1)
  rc=$?
  echo "== $c (exit $rc)"
  echo "$out" | grep -E 'RESULT|PASS|FAILED|redist_sim|rror' | head -20
  if [[ $rc -ne 0 ]] || ! grep -q 'PASS: 0 wrong' <<<"$out" || grep -q FAILED <<<"$out"; then
    echo "case failed: $c"
    failed=1
  fi
  if [[ $c == *"--max-outstanding 1"* ]] && ! grep -q 'in_flight_max=1$' <<<"$out"; then
    echo "case failed: $c: more than 1 message in flight with a window of 1"
    failed=1
  fi
done
if ((failed)); then
  echo "FAILED"
  exit 1
fi
echo "PASS: ${#cases[@]} simulated cases at 64 ranks, every element checked"
