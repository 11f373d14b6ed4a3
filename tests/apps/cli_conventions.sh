#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The drivers' command-line conventions, on a real driver under mpiexec:
#   --version exits 0 and names the library version and commit;
#   usage errors (bad values, -p scripted without a schedule, unknown options) exit 2 with
#   the option named, on every launch: two of them (a bad value, an unknown option) under
#   mpiexec -n 2 (every rank leaves with status 2, none hangs), the others as one
#   process started without mpiexec (MPI singleton init: a launch of about half the
#   cost; MALL_CLI_ALL_MPIEXEC=1 runs them all under mpiexec -n 2);
#   --json - writes parseable JSON alone on stdout (schema, version, command line, sizes as
#   numbers, grids as {rows, cols}); the summary a person reads goes to stderr;
#   --stop-file ends the run gracefully after the current iteration, result still checked.
# Usage: cli_conventions.sh <mpiexec> <driver>
set -uo pipefail
mpiexec=$1 driver=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"  # work, fail, fails, flags
run() { "$mpiexec" "${flags[@]}" -n 2 "$driver" "$@"; }
single() { "$driver" "$@"; }  # one process, MPI singleton init

out=$("$driver" --version) || fail "--version exited $?"
grep -Eq "malleable [0-9]+\.[0-9]+\.[0-9]+, commit " <<<"$out" || fail "--version printed '$out'"

usage() {  # usage [--mpiexec] <regex the message must match> <args...>
  local launch=single
  [[ $1 == --mpiexec || ${MALL_CLI_ALL_MPIEXEC:-0} == 1 ]] && launch=run
  [[ $1 == --mpiexec ]] && shift
  local want=$1
  shift
  local rc=0
  msg=$($launch "$@" 2>&1) || rc=$?
  # mpiexec passes the processes' status on: 2 from rank 0's usage error
  ((rc == 2)) || fail "'$*' exited $rc, not 2"
  grep -Eq -- "$want" <<<"$msg" || fail "'$*' said: $(head -3 <<<"$msg")"
}
usage --mpiexec "--size: must be a positive number, got '0'" -n 0
usage "--nb: must be a positive number" --nb -4
usage "--iters: must be a positive number" -i 0
usage "--resize-timeout: must be a positive number, got '-1'" --resize-timeout -1
usage "-p scripted needs a schedule" -p scripted
usage "--grid" -g 0x2
usage "--grid" -g two
usage --mpiexec "not expected|--no-such-option" --no-such-option

# a schedule entry that cannot run is said; -s without -p scripted too
msg=$(run -n 64 --nb 16 -g 1x2 -i 2 -p scripted -s 5:expand:2x2 -q 2>&1) || fail "the late-schedule run failed"
grep -q "schedule entry '5:expand:2x2.*will not run" <<<"$msg" || fail "no warning for a schedule entry after the last iteration"
msg=$(run -n 64 --nb 16 -g 1x2 -i 1 -s 1:expand:2x2 -q 2>&1) || fail "the -s with -p fixed run failed"
grep -q "schedule is ignored with -p fixed" <<<"$msg" || fail "no warning for -s with -p fixed"

# a matrix too large for memory is named, not 'std::bad_alloc' (class 5)
rc=0
msg=$(run -n 2147483647 --nb 1000000 -g 1x2 -i 1 2>&1) || rc=$?
((rc != 0)) || fail "an impossible matrix size exited 0"
grep -q "matrix 'A' (2147483647 x 2147483647): its buffer of .* does not fit in memory" <<<"$msg" ||
  fail "the out-of-memory message: $(head -2 <<<"$msg")"

# --json -: stdout is JSON and nothing else
run -n 96 --nb 16 -g 1x2 -i 3 --json - >"$work/out.json" 2>"$work/err.txt" || fail "the --json - run failed"
python3 - "$work/out.json" <<'PY' || fail "--json - did not give the expected JSON"
import json, sys
d = json.load(open(sys.argv[1]))  # the whole of stdout must parse
assert d["schema"] == "malleable.run/2", d["schema"]
assert d["malleable"]["version"] and "commit" in d["malleable"], d["malleable"]
assert d["command_line"][-2:] == ["--json", "-"], d["command_line"]
assert d["problem_size"] == {"n": 96, "nb": 16, "distribution": "block-cyclic"}, d["problem_size"]
assert d["iterations"][0]["grid"] == {"rows": 1, "cols": 2}, d["iterations"][0]
assert len(d["iterations"]) == 3
PY
grep -q "result check" "$work/err.txt" || fail "the summary is not on stderr"

# --stop-file: present from the start, so the run ends after its first iteration
touch "$work/stop"
out=$(run -n 96 --nb 16 -g 1x2 -i 50 --stop-file "$work/stop" -q 2>&1) || fail "the --stop-file run failed"
grep -q "ending after iteration 1 of 50" <<<"$out" || fail "no stop after iteration 1: $(tail -3 <<<"$out")"
grep -Eq "\(sA\)\^1 B0: .*OK" <<<"$out" || fail "the stopped run's result is not checked for 1 iteration"

((fails == 0)) && echo "PASS" || exit 1
