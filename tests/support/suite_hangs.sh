#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The hangs of a test run, from the logs of ctest + tests/support/suite_rerun.sh (scripts/test.sh):
# a rerun must never hide a hang. Names every test that timed out and passed only on the
# second try (FLAKY, with the count), and every test that timed out and did not pass on
# the second try either (HUNG: timed out twice, or timed out and then failed). Exit status
# 1 if any test is HUNG, else 0 (a FLAKY test alone does not fail the run, but is named).
# ctest writes the first attempt of a test with the "N/M" prefix and its reruns without:
#   2/4 Test #3: hang.once ........................***Timeout   2.00 sec
#       Test #3: hang.once ........................   Passed    0.00 sec
# Usage: suite_hangs.sh LOG...  (a test is named with its log's folder: "name (build)")
set -euo pipefail
flaky=() hung=()
for log in "$@"; do
  [[ -f $log ]] || continue
  where=$(basename "$(dirname "$(readlink -f "$log")")")
  while IFS=$'\t' read -r kind name; do
    case $kind in
      flaky) flaky+=("$name ($where)") ;;
      hung) hung+=("$name ($where)") ;;
    esac
  done < <(awk '
      function name_of(line) { sub(/^.*Test +#[0-9]+: /, "", line); sub(/ \.+.*$/, "", line); return line }
      /^[[:space:]]*([0-9]+\/[0-9]+ )?Test +#[0-9]+: / {
        n = name_of($0)
        if (!(n in seen)) { seen[n] = 1; order[++count] = n }
        if ($0 ~ /\*\*\*Timeout/) timeouts[n]++
        else if ($0 ~ / Passed/) passed[n] = 1
        else failed[n] = 1
      }
      END {
        for (i = 1; i <= count; ++i) {
          n = order[i]
          if (!(n in timeouts)) continue
          if (passed[n] && !failed[n]) print "flaky\t" n
          else print "hung\t" n (timeouts[n] >= 2 ? " (timed out twice)" : " (timed out, then failed)")
        }
      }' "$log")
done
if ((${#flaky[@]})); then
  echo "test: FLAKY: ${#flaky[@]} test(s) timed out and passed only on the second try (a hang, not a pass):"
  printf '  %s\n' "${flaky[@]}"
else
  echo "test: 0 tests needed a second try"
fi
if ((${#hung[@]})); then
  echo "test: HUNG: ${#hung[@]} test(s) did not pass on the second try either (the run fails):"
  printf '  %s\n' "${hung[@]}"
  exit 1
fi
exit 0
