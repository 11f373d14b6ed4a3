#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# workload.sh second-log on a site's sacct log (data/site.sacct, NODES=8) end to end: every
# replay row run, on the 8 nodes it was given; its evidence computed from this log (no other
# log's text: no CTC, no "passes every 20 s", no 318 nodes); the inferred node limit, the
# machine's size or more, left out and said; the smaller machine derived from the log; a
# sacct log without NODES refused. A few seconds.
# Usage: second_log.sh <malleable-clustersim or empty> <source dir>
. "$(dirname "${BASH_SOURCE[0]}")/prologue.sh"
build=$(dirname "$(dirname "$bin")")
fail=0
TRACE=$src/tests/clustersim/data/site.sacct NODES=8 OUT=$tmp/out \
  bash "$src/scripts/bench/workload.sh" second-log "$build" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; echo "FAILED: workload.sh second-log on the sacct log"; exit 1; }
t=$tmp/out/table.md
grep -q "site: rigid replays against the log .*; 8 nodes$" "$t" || { cat "$t"; echo "FAILED: not 8 nodes"; fail=1; }
[[ $(grep -c "^| " "$t") == 11 ]] || { cat "$t"; echo "FAILED: not every row (the header, 8 replays, the smaller machine, the log)"; fail=1; }
grep -q "^| + inferred per-user limits (--user-max-jobs 2) | .*--user-max-nodes left out: a user's most nodes at once (11) is the machine's 8 |" "$t" ||
  { cat "$t"; echo "FAILED: the node limit not left out and said"; fail=1; }
grep -q "^| on 3 nodes (sensitivity, not a rule) | the log left 5 of 8 nodes idle" "$t" ||
  { cat "$t"; echo "FAILED: the smaller machine not derived from the log"; fail=1; }
grep -q "no pass interval below 60 s shows" "$t" || { cat "$t"; echo "FAILED: no pass evidence"; fail=1; }
if grep -qiE "ctc|every 20 s|20-s|318|kth" "$t" "$tmp/out/evidence.md" "$tmp/out/meta.txt" "$tmp/log"; then
  grep -iE "ctc|every 20 s|20-s|318|kth" "$t" "$tmp/out/evidence.md" "$tmp/out/meta.txt" "$tmp/log"
  echo "FAILED: another log's text"; fail=1
fi
grep -q "^log: tests/clustersim/data/site.sacct (sacct, " "$tmp/out/meta.txt" || { echo "FAILED: meta.txt"; fail=1; }
if TRACE=$src/tests/clustersim/data/site.sacct OUT=$tmp/none bash "$src/scripts/bench/workload.sh" second-log "$build" \
  >"$tmp/none.log" 2>&1; then
  echo "FAILED: a sacct log without NODES accepted"; fail=1
fi
grep -q "a sacct log needs NODES" "$tmp/none.log" || { cat "$tmp/none.log"; echo "FAILED: no reason"; fail=1; }
[[ $fail == 0 ]] || { echo FAILED; exit 1; }
echo "PASS: second log"
