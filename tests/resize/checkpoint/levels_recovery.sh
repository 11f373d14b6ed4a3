#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On one machine, nodes emulated with MALLEABLE_NODE_MAP: local + partner levels
# written by 6 processes on 3 "nodes"; a lost node (its directory deleted) recovered from
# the survivors' local copies and the partner copies onto 2x2 without the global file, and
# so again from files rewritten in the earlier format 2 (levels_to_format2.py); a
# damaged partner copy falls back to the global file; two nodes lost with and without
# partners covering them; refusals on every rank (one node for a partner level, a
# directory that cannot be made, a file system without room for the next version). Leaves
# nothing behind.
# Usage: levels_recovery.sh MPIEXEC PROGRAM
set -uo pipefail
mpiexec=$1 prog=$2
tmp=$(mktemp -d /dev/shm/malleable-levels-test.XXXXXX)
trap 'umount "$tmp/small" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
say() { echo "$*"; }
bad() { echo "FAILED: $*"; fails=$((fails + 1)); }
run() {  # run NP MAP ARGS... -> output in $tmp/out, status in $rc
  local n=$1 map=$2
  shift 2
  MALLEABLE_NODE_MAP=$map timeout 120 "$mpiexec" --oversubscribe -n "$n" "$prog" "$@" >"$tmp/out" 2>&1
  rc=$?
  sed 's/^/    /' "$tmp/out"
}
expect_pass() { [[ $rc -eq 0 ]] && grep -q '^PASS' "$tmp/out" && ! grep -q FAILED "$tmp/out" || bad "$1 (status $rc)"; }
has() { grep -q -- "$1" "$tmp/out" || bad "$2: no line matching '$1'"; }
fresh() { rm -rf "$tmp/l" "$tmp/g"; cp -a "$tmp/l.0" "$tmp/l"; cp -a "$tmp/g.0" "$tmp/g"; }

say "== write: 6 processes on 3 nodes, 5 iterations (local every 1, partner every 2, keep 2)"
run 6 every=2 write "$tmp/l.0" 5 "$tmp/g.0"
expect_pass "write"
for n in node1 node2 node3; do
  have=$(ls "$tmp/l.0/$n" 2>/dev/null | tr '\n' ' ')
  # Its 2 processes' local versions 4 and 5, the partner copies (versions 2 and 4) of the
  # 2 processes of the node whose partner it is; nothing temporary.
  [[ $(ls "$tmp/l.0/$n" | grep -c '\.local\.') -eq 4 && $(ls "$tmp/l.0/$n" | grep -c '\.partner\.') -eq 4 ]] ||
    bad "$n holds: $have"
  ls "$tmp/l.0/$n" | grep -q tmp && bad "$n: a temporary file is left: $have"
done
# The ring: node3's copies on node1.
[[ -f $tmp/l.0/node1/levels.partner.r4-6.v000004 && -f $tmp/l.0/node2/levels.partner.r0-6.v000004 ]] ||
  bad "partner copies are not on the ring's next node"

say "== nothing lost: the newest version (5) from the local copies, 3x2"
fresh
run 6 every=2 read "$tmp/l" 3x2 5
expect_pass "no loss"
has "6 old processes from local copies, 0 from partner copies" "no loss"

say "== node3 lost: its directory deleted, 4 processes on node1+node2 (2x2), the global directory gone"
fresh
rm -rf "$tmp/l/node3" "$tmp/g"
run 4 node1,node1,node2,node2 read "$tmp/l" 2x2 4 "$tmp/g"
expect_pass "node3 lost"
has "4 old processes from local copies, 2 from partner copies, 0 bytes from the global checkpoint" "node3 lost"

say "== node3 lost, every file rewritten in format 2 (as an earlier library wrote them, the payload not aligned): still recovered"
fresh
rm -rf "$tmp/l/node3" "$tmp/g"
python3 "$(dirname "${BASH_SOURCE[0]}")/levels_to_format2.py" "$tmp"/l/node*/levels.* || bad "format 2: the files were not rewritten"
run 4 node1,node1,node2,node2 read "$tmp/l" 2x2 4 "$tmp/g"
expect_pass "format 2 files"
has "4 old processes from local copies, 2 from partner copies, 0 bytes from the global checkpoint" "format 2 files"

say "== node3 lost and the partner copy of rank 4 damaged: the global file of iteration 4"
fresh
rm -rf "$tmp/l/node3"
f=$tmp/l/node1/levels.partner.r4-6.v000004
size=$(stat -c %s "$f")
printf '\x55' | dd of="$f" bs=1 seek=$((size - 100)) conv=notrunc status=none
run 4 node1,node1,node2,node2 read "$tmp/l" 2x2 4 "$tmp/g"
expect_pass "damaged partner copy"
has "checksum mismatch" "damaged partner copy"
has "are in no level; reading iteration 4 from the global checkpoint" "damaged partner copy"

say "== node2 and node3 lost: ranks 2, 3 in no level (node3's copies on node1 survive) -> the global file; without it, refused"
fresh
rm -rf "$tmp/l/node2" "$tmp/l/node3"
run 2 node1,node1 read "$tmp/l" 1x2 4 "$tmp/g"
expect_pass "two nodes lost, global"
has "the blocks of 2 of 6 old processes (ranks 2,3) are in no level" "two nodes lost, global"
rm -rf "$tmp/g"
run 2 node1,node1 read "$tmp/l" 1x2 4 "$tmp/g"
[[ $rc -eq 3 && $(grep -c "refused (rank .): restart from levels in .*: no version is complete" "$tmp/out") -eq 2 ]] ||
  bad "two nodes lost without the global file: not refused on both ranks (status $rc)"

say "== 8 processes on 4 nodes, node1 and node3 lost: their partners (node2, node4) cover them"
rm -rf "$tmp/l8"
run 8 every=2 write "$tmp/l8" 4
expect_pass "write 8"
rm -rf "$tmp/l8/node1" "$tmp/l8/node3"
run 4 node2,node2,node4,node4 read "$tmp/l8" 2x2 4
expect_pass "two non-adjacent nodes lost"
has "4 old processes from local copies, 4 from partner copies" "two non-adjacent nodes lost"

say "== refusals on every rank: a partner level on one node, a directory that cannot be made"
rm -rf "$tmp/one"
run 2 "" partner1 "$tmp/one"
[[ $rc -eq 3 && $(grep -c "refused (rank .): checkpoint level partner: the job runs on one node" "$tmp/out") -eq 2 ]] ||
  bad "partner level on one node: not refused on both ranks (status $rc)"
# The local version of iteration 1 stays; nothing temporary.
have=$(ls "$tmp/one"/* 2>/dev/null | xargs -n1 basename 2>/dev/null | tr '\n' ' ')
[[ $have == "levels.local.r0-2.v000001 levels.local.r1-2.v000001 " ]] || bad "after the refusal the directory holds: $have"
run 2 every=1 write /proc/malleable-levels 1
[[ $rc -eq 3 && $(grep -c "refused (rank .): checkpoint level local on node node1 (rank 0): checkpoint level directory /proc/malleable-levels/node1 cannot be created" "$tmp/out") -eq 2 ]] ||
  bad "an impossible directory: not refused on both ranks (status $rc)"
# the first version failed, so there is no previous version to speak of.
grep -q "newest previous version is intact" "$tmp/out" && bad "the first version's failure claims a previous version"
[[ $(grep -c "cannot be created: .* (no earlier version was written)" "$tmp/out") -eq 2 ]] ||
  bad "the first version's failure does not say that no earlier version was written"

say "== no room for the next version: a tmpfs that holds one version (the file's length is allocated before it is mapped)"
rm -rf "$tmp/probe"
run 2 every=2 write "$tmp/probe" 1
pages=0
for f in "$tmp/probe/node1"/*; do pages=$((pages + ($(stat -c %s "$f") + 4095) / 4096)); done
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=$(((pages + 2) * 4096)) tmpfs "$tmp/small" 2>/dev/null; then
  run 2 every=2 write "$tmp/small/l" 2
  [[ $rc -eq 3 && $(grep -c "refused (rank .): checkpoint level local on node node1 (rank .): cannot write .*: No space left on device (the newest previous version is intact)" "$tmp/out") -eq 2 ]] ||
    bad "no room: not refused on both ranks (status $rc)"
  have=$(ls "$tmp/small/l/node1" | tr '\n' ' ')
  [[ $have == "levels.local.r0-2.v000001 levels.local.r1-2.v000001 " ]] || bad "after no room the directory holds: $have"
  umount "$tmp/small"
else
  say "   (skipped: cannot mount a tmpfs here)"
fi

if ((fails)); then echo "FAILED: $fails check(s)"; exit 1; fi
echo "PASS: levels written, recovered after a lost node without the global file, fallbacks and refusals"
