#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The simulator against a Slurm whose rules are known, on a recorded run: the accounting of
# 240 rigid jobs run on the emulated cluster's Slurm 22.05 (tests/clustersim/data/emulated_slurm:
# its sacct log and its `scontrol show config`, recorded by scripts/bench/workload.sh ground-truth)
# replayed by scripts/bench/workload/ground_truth.py replay with the rules read from that
# configuration: the replay's mean and median wait within 10% of the accounting's, while the
# same log under rules that are not that Slurm's (EASY; exact times) misses the median by more
# than 10% (the rules read are what makes the match); a configuration naming a rule the
# simulator does not follow (multifactor priority) is refused with the reason. A few seconds.
# Usage: ground_truth_replay.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
data=$src/tests/clustersim/data/emulated_slurm
gt=$src/scripts/bench/workload/ground_truth.py
cp "$data/sacct.txt" "$data/slurm_config.txt" "$tmp/"
python3 "$gt" replay --sim "$bin" --out "$tmp" --nodes 16 >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; echo "FAILED: the replay did not run"; exit 1; }
python3 - "$tmp/ground_truth.json" <<'PY' || { cat "$tmp/out"; echo "FAILED: the replay is off its accounting"; exit 1; }
import json, sys
g = json.load(open(sys.argv[1]))
(rm, rmed), (sm, smed) = g["recorded"], g["replayed"]
assert g["jobs"] == 240, g
assert "--bf-resolution" in g["rules"] and "conservative" in g["rules"], g["rules"]
assert abs(sm - rm) <= 0.10 * rm and abs(smed - rmed) <= 0.10 * rmed, (g["recorded"], g["replayed"])
for label, (m, med) in g["contrast"].items():
    assert abs(med - rmed) > 0.10 * rmed, (label, med, rmed)
print(f"recorded mean {rm:.1f} median {rmed:.1f}; replayed {sm:.1f} {smed:.1f}")
PY
sed 's|^PriorityType .*|PriorityType            = priority/multifactor|' "$data/slurm_config.txt" >"$tmp/slurm_config.txt"
if python3 "$gt" replay --sim "$bin" --out "$tmp" --nodes 16 >"$tmp/out" 2>&1; then
  echo "FAILED: a configuration with multifactor priority was replayed"; exit 1
fi
grep -q "cannot follow PriorityType 'priority/multifactor'" "$tmp/out" ||
  { cat "$tmp/out"; echo "FAILED: the refusal does not name the rule"; exit 1; }
echo "PASS: ground truth replay"
