#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# malleable-plot on a real run: a resizable PDGEMM with two resizes writes its JSON, the
# plot command turns it into a PNG that must be a real, non-trivial image; bad input exits 2.
# Usage: plot_run.sh <mpiexec> <driver> <malleable-plot>
set -euo pipefail
mpiexec=$1 driver=$2 plot=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$mpiexec" --oversubscribe --bind-to none -n 4 "$driver" -n 240 --nb 32 -i 6 -p scripted -q --meter-kernels \
  -s 2:expand:2x3:local2,4:shrink:2x2 --json "$work/run.json" >/dev/null
grep -q "6 iterations, 2 resizes" <<<"$("$plot" "$work/run.json" -o "$work/run.png")" || { echo "FAILED: plot summary"; exit 1; }
grep -q "89 50 4e 47 0d 0a 1a 0a" <<<"$(head -c 8 "$work/run.png" | od -An -tx1)" || { echo "FAILED: not a PNG"; exit 1; }
size=$(stat -c %s "$work/run.png")
((size > 15000)) || { echo "FAILED: a PNG of only $size bytes"; exit 1; }
rc=0
"$plot" "$work/missing.json" -o "$work/x.png" 2>/dev/null || rc=$?
((rc == 2)) || { echo "FAILED: a missing input exited $rc, not 2"; exit 1; }
echo '{"iterations": []}' >"$work/empty.json"
rc=0
"$plot" "$work/empty.json" -o "$work/x.png" 2>/dev/null || rc=$?
((rc == 2)) || { echo "FAILED: an empty run exited $rc, not 2"; exit 1; }
echo "PASS: plot of $size bytes"
