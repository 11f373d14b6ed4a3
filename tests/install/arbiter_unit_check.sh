#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The arbiter as installed for the prefix /usr into ROOT (a DESTDIR staging tree, or the
# .deb packages extracted there), checked as a site follows docs/guide/arbiter.md:
# - the unit's configuration is /etc/malleable/arbiterd.conf, the file the guide tells the
#   administrator to edit; the unit's ExecStart program, that configuration and the page
#   its Documentation= names exist in ROOT;
# - the daemon started by the unit's own ExecStart command line (each absolute path in it
#   rebased into ROOT, nothing added) reads that file: ROOT's configuration is edited as
#   an administrator would (the socket, state and munged's socket moved into a scratch
#   directory, `interval` and `qos-interval` changed from their defaults), and
#   `malleable-arbiterd --status` shows the changed values and answers on the socket the
#   file names. Its own munged (root, as cluster.arbiter.daemon_live) and a fake Slurm.
# Exit 0: PASS; 1: FAILED; 77: the installed paths checked but the daemon not started
# (not root, or no munged).
# Usage: arbiter_unit_check.sh ROOT SOURCE_DIR [LABEL]
set -euo pipefail
root=$1 src=$2 label=${3:-$1}
fail() { echo "arbiter unit ($label): FAILED: $*" >&2; exit 1; }
want_conf=/etc/malleable/arbiterd.conf  # GNUInstallDirs' full sysconfdir for /usr is /etc
unit=$root/usr/lib/systemd/system/malleable-arbiterd.service
[[ -f $unit ]] || fail "no unit at $unit"

# The unit's paths: ExecStart's program and --config, Documentation=.
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
[[ -n $exec_line ]] || fail "no ExecStart= in $unit"
read -r -a argv <<<"$exec_line"
conf=""
for ((i = 0; i < ${#argv[@]}; i++)); do
  [[ ${argv[i]} == --config ]] && conf=${argv[i + 1]:-}
  [[ ${argv[i]} == --config=* ]] && conf=${argv[i]#--config=}
done
[[ $conf == "$want_conf" ]] || fail "the unit reads the configuration '$conf', not $want_conf (ExecStart=$exec_line)"
grep -q "edit \`$want_conf\`" "$src/docs/guide/arbiter.md" || fail "docs/guide/arbiter.md does not tell the administrator to edit \`$want_conf\`"
[[ ${argv[0]} == /* && -x $root${argv[0]} ]] || fail "ExecStart's program ${argv[0]} is not in $root"
[[ -f $root$conf ]] || fail "the unit's configuration $conf is not in $root"
doc=$(sed -n 's/^Documentation=//p' "$unit")
[[ -n $doc ]] || fail "no Documentation= in $unit"
for url in $doc; do
  [[ $url == file:///* ]] || fail "Documentation=$url: not a file:// page"
  [[ -f $root${url#file://} ]] || fail "Documentation=$url: no such page in $root"
done
echo "arbiter unit ($label): ExecStart=$exec_line; $conf, ${argv[0]} and $doc in the tree"

# The daemon as the unit starts it reads that file.
munged=$(command -v munged || true)
[[ -z $munged && -x /usr/sbin/munged ]] && munged=/usr/sbin/munged
if ((EUID != 0)) || [[ -z $munged ]]; then
  echo "arbiter unit ($label): SKIPPED the daemon's start: needs root and munged (its own, as cluster.arbiter.daemon_live)"
  exit 77
fi
work=$(mktemp -d)
mpid=""
dpid=""
cleanup() {
  local rc=$?
  set +e  # the daemon's and munged's exit statuses are not the check's
  if [[ -n $dpid ]]; then kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; fi
  if [[ -n $mpid ]]; then
    kill "$mpid" 2>/dev/null || true
    # munged writes its seed file on the way out: wait for it before removing the folder
    for _ in $(seq 100); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.05; done
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
chmod 755 "$work"
head -c 1024 /dev/urandom >"$work/munge.key"
chmod 600 "$work/munge.key"
"$munged" --force --socket="$work/munge.sock" --key-file="$work/munge.key" \
  --pid-file="$work/munged.pid" --seed-file="$work/munged.seed" --log-file="$work/munged.log"
mpid=$(cat "$work/munged.pid")
mkdir "$work/bin"
printf '#!/bin/sh\nexit 0\n' >"$work/bin/squeue"
printf '#!/bin/sh\nexit 0\n' >"$work/bin/sinfo"
printf '#!/bin/sh\necho "sacctmgr: error: no slurmdbd (test)"; exit 1\n' >"$work/bin/sacctmgr"
chmod 755 "$work/bin/"*

# The administrator's edit of the installed file (the command line stays the unit's).
python3 - "$root$conf" "$work" <<'EOF'
import re, sys
path, work = sys.argv[1], sys.argv[2]
text = open(path).read()
edits = {"socket": work + "/arbiter.sock", "state-dir": work + "/state", "munge-socket": work + "/munge.sock",
         "interval": "7", "qos-interval": "37", "slurm-user": "root"}
for key, value in edits.items():
    text, n = re.subn(r"(?m)^#?\s*%s\s*=.*$" % re.escape(key), "%s = %s" % (key, value), text, count=1)
    if n != 1:
        sys.exit("no line '%s = ...' in %s" % (key, path))
open(path, "w").write(text)
EOF
rebased=()
for a in "${argv[@]}"; do
  if [[ $a == /* && -e $root$a ]]; then rebased+=("$root$a"); else rebased+=("$a"); fi
done
PATH=$work/bin:$PATH "${rebased[@]}" 2>"$work/arbiterd.log" &
dpid=$!
status="" deadline=$((SECONDS + 30))
until status=$("$root${argv[0]}" --status "$work/arbiter.sock" --munge-socket "$work/munge.sock" \
               --arbiter-user root 2>"$work/status.err"); do
  kill -0 "$dpid" 2>/dev/null || fail "the daemon ended: $(cat "$work/arbiterd.log")"
  ((SECONDS < deadline)) || fail "no status on $work/arbiter.sock within 30 s: $(cat "$work/status.err") $(cat "$work/arbiterd.log")"
  sleep 0.1
done
python3 - "$status" <<'EOF' || fail "the status does not show the edited configuration: $status"
import json, sys
s = json.loads(sys.argv[1])
assert s["interval_s"] == 7, s["interval_s"]
assert s["qos"]["every_s"] == 37, s["qos"]
EOF
echo "arbiter unit ($label): PASS: started as its unit starts it (${rebased[*]}), the edited $conf read:" \
     "--status on the socket it names shows interval_s 7 and qos every_s 37 (defaults 2 and 60)"
