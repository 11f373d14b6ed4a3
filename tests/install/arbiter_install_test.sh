#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The arbiter installed as docs/guide/arbiter.md says, `cmake --install` with the prefix
# /usr into a staging directory (DESTDIR; components runtime and tools): the unit's
# configuration is /etc/malleable/arbiterd.conf and the daemon started by its ExecStart
# reads it (arbiter_unit_check.sh); then installed again over it, as an upgrade from
# source: the edited configuration is kept, the new default beside it (arbiterd.conf.new).
# Usage: arbiter_install_test.sh BUILD_DIR SOURCE_DIR   (exit 77: skipped)
set -uo pipefail
build=$1 src=$2
fail() { echo "arbiter install: FAILED: $*" >&2; exit 1; }
[[ -x $build/cluster/malleable-arbiterd ]] || { echo "SKIPPED: no malleable-arbiterd (built without libmunge)"; exit 77; }
stage=$(mktemp -d "$build/arbiter-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
install_into() {
  local c
  for c in runtime tools; do
    DESTDIR=$stage cmake --install "$build" --prefix /usr --component $c >"$stage.log" 2>&1 ||
      { cat "$stage.log" >&2; rm -f "$stage.log"; fail "DESTDIR=$stage cmake --install --prefix /usr --component $c"; }
  done
  cat "$stage.log"
  rm -f "$stage.log"
}
install_into >/dev/null
"$src/tests/install/arbiter_unit_check.sh" "$stage" "$src" "cmake --install, prefix /usr, DESTDIR"
rc=$?
((rc == 0)) || exit $rc
conf=$stage/etc/malleable/arbiterd.conf
out=$(install_into)
grep -q '^qos-interval = 37$' "$conf" || fail "a second install overwrote the edited $conf"
cmp -s "$conf.new" "$src/packaging/arbiter/arbiterd.conf" || fail "no new default $conf.new after the second install"
grep -q "Keeping the edited $conf" <<<"$out" || fail "the second install did not say it kept $conf: $out"
echo "arbiter install: PASS: a second install kept the edited $conf (the new default in arbiterd.conf.new)"
