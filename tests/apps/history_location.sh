#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where the resize history lives (docs/reference/apps.md "Where the resize history
# lives"), with a driver that resizes once (a shrink: no spawn):
#   - by default one file per application under $XDG_CACHE_HOME/malleable/history/,
#     a second program gets a file of its own, and a second run reads the first's;
#   - RESIZE_HISTORY=off writes nothing, RESIZE_HISTORY=<file> writes that file;
#   - HOME=/nonexistent (not created) and a cache directory that cannot be written:
#     exit 0 with exactly one notice line, nothing created;
#   - a user's program (the session's default options) that expands writes
#     nothing under HOME; with RESIZE_HISTORY=<file> it writes that file.
# Usage: history_location.sh <mpiexec> <pdgemm driver> <pdgemv driver> <user program>
set -uo pipefail
mpiexec=$1 gemm=$2 gemv=$3 user=$4
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
unset RESIZE_HISTORY XDG_CACHE_HOME
run() {  # run <log> <driver> [env assignments...]
  local log=$1 driver=$2
  shift 2
  env "$@" "$mpiexec" --oversubscribe --bind-to none -n 4 "$driver" -n 120 --nb 16 -i 3 -g 2x2 \
    -p scripted -s 1:shrink:1x2 -q >"$log" 2>&1
}
notices() { grep -c "resize history" "$1"; }

home=$work/home && mkdir -p "$home"
run "$work/a.log" "$gemm" HOME="$home" || fail "default location: the run failed"
mapfile -t files < <(find "$home/.cache/malleable/history" -name '*.json' 2>/dev/null)
[[ ${#files[@]} -eq 1 && $(basename "${files[0]}") == pdgemm-*.json ]] ||
  fail "default location: expected one pdgemm-<hash>.json under ~/.cache/malleable/history, found: ${files[*]}"
run "$work/b.log" "$gemv" HOME="$home" || fail "second program: the run failed"
n=$(find "$home/.cache/malleable/history" -name '*.json' | wc -l)
[[ $n -eq 2 ]] || fail "a second program must get a history file of its own (found $n files)"
python3 - "${files[0]}" <<'PY' || fail "the first program's file holds its resize only"
import json, sys
h = json.load(open(sys.argv[1]))
assert h["format"] == "malleable.resize_history" and len(h["events"]) == 1, h
PY
run "$work/c.log" "$gemm" HOME="$home" || fail "second run of the first program failed"
python3 -c "import json,sys; assert len(json.load(open(sys.argv[1]))['events']) == 2" "${files[0]}" ||
  fail "the second run did not add to its program's history"

xdg=$work/xdg
run "$work/d.log" "$gemm" HOME="$home" XDG_CACHE_HOME="$xdg" || fail "XDG_CACHE_HOME: the run failed"
[[ $(find "$xdg/malleable/history" -name 'pdgemm-*.json' 2>/dev/null | wc -l) -eq 1 ]] || fail "XDG_CACHE_HOME not followed"

off_home=$work/off && mkdir -p "$off_home"
run "$work/e.log" "$gemm" HOME="$off_home" RESIZE_HISTORY=off || fail "RESIZE_HISTORY=off: the run failed"
[[ -z $(find "$off_home" -mindepth 1) ]] || fail "RESIZE_HISTORY=off wrote: $(find "$off_home" -mindepth 1)"
[[ $(notices "$work/e.log") -eq 0 ]] || fail "RESIZE_HISTORY=off printed a notice"
run "$work/f.log" "$gemm" HOME="$off_home" RESIZE_HISTORY="$work/elsewhere/h.json" || fail "RESIZE_HISTORY=<file>: the run failed"
[[ -f $work/elsewhere/h.json ]] || fail "RESIZE_HISTORY=<file> not written"

if [[ -e /nonexistent ]]; then
  echo "note: /nonexistent exists here; the missing-home case uses $work/missing-home instead"
  missing=$work/missing-home
else
  missing=/nonexistent
fi
run "$work/g.log" "$gemm" HOME="$missing" || fail "HOME=$missing: the run failed"
[[ -e $missing ]] && fail "HOME=$missing was created"
[[ $(notices "$work/g.log") -eq 1 ]] || fail "HOME=$missing: expected one notice line, got: $(grep 'resize history' "$work/g.log")"
grep "resize history" "$work/g.log"

# A cache directory that cannot be written. root writes through a 0555 mode, so for root
# a read-only file system (/proc) stands in.
ro=$work/ro-cache && mkdir -p "$ro" && chmod 0555 "$ro"
if [[ $(id -u) -eq 0 ]]; then ro=/proc/malleable-cache; fi
run "$work/h.log" "$gemm" HOME="$off_home" XDG_CACHE_HOME="$ro" || fail "read-only XDG_CACHE_HOME=$ro: the run failed"
[[ $(notices "$work/h.log") -eq 1 ]] || fail "read-only cache: expected one notice line, got: $(grep 'resize history' "$work/h.log")"
grep "resize history" "$work/h.log"

user_home=$work/user-home && mkdir -p "$user_home"
env HOME="$user_home" "$mpiexec" --oversubscribe --bind-to none -n 4 "$user" history >"$work/u.log" 2>&1 ||
  fail "user program: the run failed"
[[ -z $(find "$user_home" -mindepth 1) ]] || fail "a user's program wrote its history under HOME: $(find "$user_home" -mindepth 1)"
env HOME="$user_home" RESIZE_HISTORY="$work/user/h.json" "$mpiexec" --oversubscribe --bind-to none -n 4 "$user" history \
  >"$work/v.log" 2>&1 || fail "user program with RESIZE_HISTORY=<file>: the run failed"
[[ -f $work/user/h.json ]] || fail "user program: RESIZE_HISTORY=<file> not written"

if [[ $fails -gt 0 ]]; then tail -n 20 "$work"/*.log; exit 1; fi
echo "PASS"
