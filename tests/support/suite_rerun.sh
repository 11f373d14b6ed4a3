#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The second try of a test run's timed-out tests (scripts/test.sh): called in the build
# folder after a ctest run that failed, with that run's log. Every test that timed out
# runs once more, alone (-j 1: Open MPI's spawn hang is mostly a hang of two jobs that
# spawn at once, and the second try should test the test, not that again). The second
# try's output is appended to the log, where tests/support/suite_hangs.sh names each such test
# as FLAKY (passed alone) or HUNG (timed out or failed again).
# Exit status: 0 if the only failures were timeouts and each passed on its second try.
# Usage: suite_rerun.sh LOG [ctest arguments of the first run, e.g. -LE bench]
set -uo pipefail
log=$1; shift
mapfile -t names < <(sed -nE 's/^[[:space:]]*[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+.*\*\*\*Timeout.*/\1/p' "$log" | sort -u)
others=0  # a failure other than a timeout fails the run whatever the second tries give
if sed -nE '/^The following tests FAILED:/,$p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' | grep -vq '(Timeout)$'; then
  others=1
fi
if ((${#names[@]} == 0)); then
  exit 1  # the run failed, and not by a timeout
fi
re=$(printf '%s\n' "${names[@]}" | sed -E 's/[][\\.*^$+?(){}|]/\\&/g' | paste -sd'|')
echo "test: ${#names[@]} test(s) timed out; a second try for each, alone: ${names[*]}"
ctest "$@" -R "^($re)\$" --output-on-failure -j 1 >"$log.rerun" 2>&1
rc=$?
cat "$log.rerun"
cat "$log.rerun" >>"$log"
rm -f "$log.rerun"
((others == 0 && rc == 0))
