#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The unmodified ScaLAPACK program gives the same answer with blacs-dyn as with stock
# ScaLAPACK (identical RESULT line), and after an expansion the same solver code runs on
# the world of 4 with the same solution. The stock binary with libmalleable_blacs_dyn preloaded
# (no relinking) gives the identical line too.
# Usage: compare_stock.sh MPIEXEC STOCK_EXE DYN_EXE EXPAND_EXE BLACS_DYN_LIB|-
set -eu
mpiexec=$1 stock=$2 dyn=$3 expand=$4 lib=$5
run() { "$mpiexec" --oversubscribe --bind-to none -n 2 "$@" | grep '^RESULT'; }
s=$(run "$stock")
d=$(run "$dyn")
if [ "$lib" = - ]; then p=$s; else p=$(run -x LD_PRELOAD="$lib" "$stock"); fi
e=$(run "$expand")
echo "stock:     $s"
echo "dyn:       $d"
echo "preloaded: $p"
echo "$e" | sed 's/^/expanded:  /'
[ "$s" = "$d" ] || { echo "FAILED: blacs-dyn build differs from stock"; exit 1; }
[ "$s" = "$p" ] || { echo "FAILED: stock binary with blacs-dyn preloaded differs"; exit 1; }
first=$(echo "$e" | sed -n 1p)
second=$(echo "$e" | sed -n 2p)
[ "$first" = "$s" ] || { echo "FAILED: the first solve of the expanding run differs from stock"; exit 1; }
case "$second" in
  "RESULT np=4 grid=2x2 "*) ;;
  *) echo "FAILED: after the expansion the solver did not see a world of 4"; exit 1 ;;
esac
xs=$(echo "$s" | sed 's/.*xsum=\([^ ]*\).*/\1/')
xe=$(echo "$second" | sed 's/.*xsum=\([^ ]*\).*/\1/')
err=$(echo "$second" | sed 's/.*maxerr=\([^ ]*\).*/\1/')
awk -v a="$xs" -v b="$xe" -v e="$err" 'BEGIN { d = a - b; if (d < 0) d = -d;
  if (d > 1e-9 * (a < 0 ? -a : a) || e > 1e-9) { print "FAILED: solution differs"; exit 1 } }'
echo PASS
