#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The generation check (docs/reference/apps.md, "The generations' reach under UCX") under
# Open MPI's UCX PML, on this machine, whatever its verdict here:
#   verdict     BLACS_DYN_PML=ucx: tests/resize/session_respawn merge (4 processes grown to
#               6 by spawn, shrunk back, its running sum checked exactly) prints exactly one
#               verdict line with its numbers (8 B, 64 KiB, 1 MiB, both pairs, the ratios,
#               the cost) and one of the two reaching verdicts, and PASSes
#   selected    the UCX PML chosen by Open MPI's own variables (OMPI_MCA_pml=ucx, no
#               BLACS_DYN_PML): the check runs too (it reads the PML Open MPI selected);
#               under ob1 (no setting) it does not run
#   off         RESIZE_UCX_CHECK=off: no check, the run PASSes
#   unreachable RESIZE_FAULT=generation-unreachable (the newcomer's pair addresses no
#               process: MPI returns an error on the MPI_ERRORS_RETURN communicator): the
#               "do not reach" line, an error on the processes, a non-zero exit, no hang
#   restart     the same fault in the pdgemm driver with a checkpoint directory under
#               malleable-run (2x2 -> 3x3 after iteration 2): the launch ends during
#               the expansion, the launcher resizes by restart from the checkpoint taken
#               before the spawn (launches of 4 then 9 processes) and the result check is OK
# Skipped (77) where Open MPI has no pml/ucx component or UCX cannot start here.
# Usage: generation_check.sh <mpiexec> <session_respawn> <pdgemm_resizable>
set -uo pipefail
mpiexec=$1 prog=$2 pdgemm=$3
runner=${MALL_LAUNCHER:?MALL_LAUNCHER: the built malleable-run}
if ! command -v ompi_info >/dev/null || ! ompi_info 2>/dev/null | grep -q "MCA pml: ucx"; then
  echo "SKIPPED: this Open MPI has no pml/ucx component"; exit 77
fi
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RESIZE_RECONFIGURE=merge RESIZE_HISTORY=off
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
run() {  # <env...> -- : session_respawn merge on 4 processes; sets out, rc
  local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done
  out=$(env "${env[@]}" timeout 120 "$mpiexec" "${flags[@]}" -n 4 "$prog" merge 2>&1); rc=$?
}
num='[0-9]+(\.[0-9]+)?'
line_re="^\[respawn_test\] generation check \(PML ucx, node [^)]+\): an original and a newcomer 8 B $num us, 64 KiB $num us, 1 MiB $num GB/s against (two originals 8 B $num us, 64 KiB $num us, 1 MiB $num GB/s|a stored same-launch reference .*) \(((a|no) TCP connection joins them, )?times ${num}x at 8 B, ${num}x at 64 KiB, mean $num (<|>=) 2\.0\): they reach each other(, but not)? through shared memory; .* \(the check took $num ms\)$"

run BLACS_DYN_PML=ucx --
if ((rc != 0)) && grep -qE "PML ucx cannot be selected|No components were able to be opened in the pml framework" <<<"$out"; then
  echo "$out" | tail -5; echo "SKIPPED: Open MPI's UCX PML cannot start on this machine"; exit 77
fi
# verdict
((rc == 0)) && grep -q "^PASS: merge" <<<"$out" || fail "verdict: exit $rc, no PASS: $out"
[[ $(grep -c "generation check" <<<"$out") -eq 1 ]] || fail "verdict: not exactly one verdict line: $out"
grep -qE "$line_re" <<<"$out" || fail "verdict: the line does not say what was measured and decided: $out"
verdict=$(grep -o "generation check.*" <<<"$out")
echo "verdict: ${verdict}"
# selected
run OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any --
((rc == 0)) && grep -q "^PASS: merge" <<<"$out" || fail "selected: exit $rc, no PASS: $out"
grep -qE "$line_re" <<<"$out" || fail "selected: no verdict line with OMPI_MCA_pml=ucx: $out"
echo "selected by OMPI_MCA_pml=ucx: $(grep -o "they reach each other[^;]*" <<<"$out")"
run --
((rc == 0)) && grep -q "^PASS: merge" <<<"$out" || fail "ob1: exit $rc, no PASS: $out"
! grep -q "generation check" <<<"$out" || fail "ob1: the check ran under ob1 (RESIZE_UCX_CHECK=auto): $out"
# off
run BLACS_DYN_PML=ucx RESIZE_UCX_CHECK=off --
((rc == 0)) && grep -q "^PASS: merge" <<<"$out" || fail "off: exit $rc, no PASS: $out"
! grep -q "generation check" <<<"$out" || fail "off: the check ran with RESIZE_UCX_CHECK=off: $out"
echo "ob1 and RESIZE_UCX_CHECK=off: no check, PASS"
# unreachable
run BLACS_DYN_PML=ucx RESIZE_FAULT=generation-unreachable --
((rc != 0 && rc != 124)) || fail "unreachable: exit $rc (expected an error, not 0 nor a hang): $out"
grep -qE "^\[respawn_test\] generation check \(PML ucx, node [^)]+\): world rank 0 and a spawned process on its node do not reach each other \(MPI_Isend: .*\): the expansion cannot be used; every process stops .*RESIZE_UCX_CHECK=off skips the check \(the check took $num ms\)$" <<<"$out" ||
  fail "unreachable: no 'do not reach' line: $out"
grep -q "error: generation check .* do not reach each other" <<<"$out" || fail "unreachable: no error: $out"
! grep -q "^PASS" <<<"$out" || fail "unreachable: the run went on: $out"
echo "unreachable: exit $rc, $(grep -m1 -o "do not reach each other ([^)]*)" <<<"$out")"
# restart: the checkpoint before the spawn, the launcher's resize by restart
P=("$pdgemm" -n 240 --nb 16 -i 5 -p scripted -s 2:expand:3x3)
out=$(BLACS_DYN_PML=ucx RESIZE_FAULT=generation-unreachable MALLEABLE_MPIEXEC="$mpiexec ${flags[*]}" timeout 250 \
      "$runner" -n 4 -- "${P[@]}" --checkpoint "$work/ck" -q 2>&1); rc=$?
((rc == 0)) || fail "restart: malleable-run exit $rc: $out"
grep -q "do not reach each other" <<<"$out" || fail "restart: no 'do not reach' line: $out"
launches=$(grep -o "^malleable-run: launch [0-9]*: [0-9]* processes" <<<"$out" | awk '{print $4}' | tr '\n' ' ')
[[ $launches == "4 9 " ]] || fail "restart: launches of '$launches' processes, expected 4 9: $out"
grep -qE "^malleable-run: launch 1 ended with status [0-9]+ during an expansion by spawn: a resize by restart from .*pdgemm-000002.h5" <<<"$out" ||
  fail "restart: no resize by restart from the checkpoint before the spawn: $out"
grep -q "result check: .*OK" <<<"$out" || fail "restart: result check: $out"
echo "restart: launches of $launches processes, $(grep -o "result check: .*OK" <<<"$out" | head -1)"
((fails == 0)) || { echo "FAILED: $fails"; exit 1; }
echo "PASS: the generation check ran under UCX, printed its verdict, and its 'do not reach' path stops the job or resizes by restart"
