#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint and restart of s, d, c and z matrices (block-cyclic, block, extended layouts):
# written on 2x2, restarted on 3x3, 1x5 and 2x2 with every element, the
# application state and the iteration exact; refused with one message on every rank,
# exit code 3 and the file unchanged for another element type, a corrupted dataset
# (checksum mismatch) and a truncated file; format version 1 written on request and read.
# Usage: checkpoint_sdcz.sh <mpiexec> <session_checkpoint>
set -uo pipefail
mpiexec=$1 prog=$2
. "$(dirname "${BASH_SOURCE[0]}")/../../support/checks.sh"  # work, fail, fails, flags
run() { local np=$1; shift; timeout 120 "$mpiexec" --oversubscribe --bind-to none -n "$np" "$prog" "$@"; }
f=$work/sdcz.h5
run 4 write "$f" || fail "writing the checkpoint"
[[ -f $f && ! -e $f.tmp ]] || fail "no $f (or a $f.tmp left behind)"
sum=$(md5sum <"$f")
for g in 3x3:9 1x5:5; do
  out=$(run "${g#*:}" read "$f" "${g%:*}" 2>&1)
  grep -q "^PASS: restart on ${g%:*}" <<<"$out" || fail "restart on ${g%:*}: $out"
done
# refused: the message on every rank, exit 3, the file unchanged
refused() {  # refused <what> <np> <expected text> <file> <mode> [grid]
  local what=$1 np=$2 text=$3 file=$4 mode=$5 grid=${6:-2x2} before out rc n
  before=$(md5sum <"$file")
  out=$(run "$np" "$mode" "$file" "$grid" 2>&1); rc=$?
  n=$(grep -c "^refused (rank [0-9]*): .*$text" <<<"$out")
  [[ $rc -eq 3 ]] || fail "$what: exit code $rc, expected 3"
  [[ $n -eq $np ]] || fail "$what: the message on $n of $np ranks: $out"
  [[ $(md5sum <"$file") == "$before" ]] || fail "$what: the file changed"
  echo "$what: refused on $n ranks, exit $rc: $(grep -m1 '^refused' <<<"$out")"
}
refused "other element type" 4 "matrix 'Z' holds complex double (z) in the file, this program registered complex float (c)" "$f" wrong
cp "$f" "$work/bad.h5"
run 1 corrupt "$work/bad.h5" D || fail "corrupting the copy"
refused "corrupted dataset" 4 "matrix 'D': checksum mismatch" "$work/bad.h5" read 2x2
head -c $(($(stat -c %s "$f") / 2)) "$f" >"$work/short.h5"
refused "truncated file" 4 "truncated" "$work/short.h5" read
[[ $(md5sum <"$f") == "$sum" ]] || fail "the original checkpoint changed"
# The per-block path with chunked datasets (checkpoint.hpp, per_block_io), forced on
# these small blocks, written on 2x2 and read onto grids whose blocks cut the chunks.
export MALLEABLE_CHECKPOINT_BLOCKS=always
run 4 write "$work/blocks.h5" || fail "writing the per-block checkpoint"
for g in 3x3:9 1x5:5; do
  out=$(run "${g#*:}" read "$work/blocks.h5" "${g%:*}" 2>&1)
  grep -q "^PASS: restart on ${g%:*}" <<<"$out" || fail "per-block restart on ${g%:*}: $out"
done
# HDF5's own reader sees the matrices of the per-block file (whole chunks written raw with
# H5Dwrite_chunk, cut edge chunks, complex compound; the block layout by selection):
# element (i, j) of h5dump is the value the program put at (i, j): tag * 1000 + i +
# j / 1000 + 1/3 (complex: imaginary part -value(j, i)).
h5at() { h5dump -m '%.3f' -d "/matrices/$2" -s "$3" -c 1,1 "$1" | sed -n "/^ *($3):/,/}/p" | tr -d ' \n'; }
for want in "S 36,28 (36,28):1036.361}" "S 0,0 (0,0):1000.333}" "C 22,30 (22,30):{3022.363,-3030.355}" "D 39,32 (39,32):2039.365}"; do
  read -r name at expect <<<"$want"
  got=$(h5at "$work/blocks.h5" "$name" "$at")
  [[ $got == "$expect" ]] || fail "h5dump of $name at ($at): '$got', expected '$expect'"
done
cp "$work/blocks.h5" "$work/badblocks.h5"
run 1 corrupt "$work/badblocks.h5" C || fail "corrupting the per-block copy"
refused "corrupted chunked dataset" 4 "matrix 'C': checksum mismatch" "$work/badblocks.h5" read 2x2
# and a per-block file read by the union path (the file format is the same matrix)
out=$(MALLEABLE_CHECKPOINT_BLOCKS=never run 9 read "$work/blocks.h5" 3x3 2>&1)
grep -q "^PASS: restart on 3x3" <<<"$out" || fail "per-block file read by the union path: $out"
unset MALLEABLE_CHECKPOINT_BLOCKS
# Format versions: files are written in version 2, and version 1 (the checksum of library
# 0.3) on request; both are read (per-block and union paths), and a damaged version 1
# file is refused by its own checksum. An unknown version to write is refused on every
# rank before anything is made.
h5version() { h5dump -a /version "$1" | sed -n 's/^ *(0): *\([0-9]*\).*/\1/p'; }
[[ $(h5version "$f") == 2 ]] || fail "default file: format version '$(h5version "$f")', expected 2"
for blocks in always never; do
  MALLEABLE_CHECKPOINT_FORMAT=1 MALLEABLE_CHECKPOINT_BLOCKS=$blocks run 4 write "$work/v1_$blocks.h5" >/dev/null ||
    fail "writing format version 1 ($blocks)"
  [[ $(h5version "$work/v1_$blocks.h5") == 1 ]] || fail "version 1 file ($blocks): version '$(h5version "$work/v1_$blocks.h5")'"
  out=$(MALLEABLE_CHECKPOINT_BLOCKS=$blocks run 9 read "$work/v1_$blocks.h5" 3x3 2>&1)
  grep -q "^PASS: restart on 3x3" <<<"$out" || fail "version 1 file ($blocks) restarted on 3x3: $out"
done
cp "$work/v1_always.h5" "$work/v1bad.h5"
run 1 corrupt "$work/v1bad.h5" D || fail "corrupting the version 1 copy"
refused "corrupted version 1 file" 4 "matrix 'D': checksum mismatch" "$work/v1bad.h5" read 2x2
out=$(MALLEABLE_CHECKPOINT_FORMAT=9 run 4 write "$work/v9.h5" 2>&1); rc=$?
n=$(grep -c "^refused (rank [0-9]*): .*MALLEABLE_CHECKPOINT_FORMAT=9: this library writes format versions 1 to 2" <<<"$out")
[[ $rc -eq 3 && $n -eq 4 ]] || fail "MALLEABLE_CHECKPOINT_FORMAT=9: exit $rc, message on $n of 4 ranks: $out"
[[ ! -e $work/v9.h5 && ! -e $work/v9.h5.tmp ]] || fail "MALLEABLE_CHECKPOINT_FORMAT=9 left a file"
echo "format versions: 2 by default, 1 on request, both read; MALLEABLE_CHECKPOINT_FORMAT=9 refused on $n ranks"
if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo PASS
