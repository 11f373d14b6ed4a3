# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the simulator's script tests: bin (malleable-clustersim, $1) and src (the source
# dir, $2, where given); SKIPPED (77) when the simulator was not built; a scratch folder tmp,
# removed on exit.
set -uo pipefail
bin=$1
src=${2:-}
if [[ -z "$bin" || ! -x "$bin" ]]; then
  echo "SKIPPED: malleable-clustersim not built (SimGrid not found)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
