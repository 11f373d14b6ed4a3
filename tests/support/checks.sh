# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the shell tests that count their failures:
#   work    a scratch folder, removed on exit (a test that must clean more sets its own
#           trap after sourcing this, one that removes $work too);
#   fails   the count, 0 at first; fail MESSAGE prints "FAILED: MESSAGE" and counts it;
#   flags   the launcher's flags of this build's MPI as an array (MALL_MPIEXEC_FLAGS from
#           the test environment, cmake/MalleableTesting.cmake; Open MPI's when unset).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
read -r -a flags <<<"${MALL_MPIEXEC_FLAGS:---oversubscribe --bind-to none}"
