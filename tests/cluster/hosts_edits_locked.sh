#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cluster.sh's edits of the hosts file hold a lock of their own: `down` rewrites the file
# (truncate, then write), and without the lock a second cluster.sh reading it meanwhile
# read it empty and wrote it back empty, taking the machine's own lines with it (then
# every MPI_Init waited ~10 s for DNS). Four `down`s at once on a hosts file of two lines
# of its own and two node lines, 10 rounds, on a copy (MALLEABLE_CLUSTER_HOSTS_FILE),
# never the machine's /etc/hosts: each round must leave exactly the file's own lines.
# Usage: hosts_edits_locked.sh <source dir> [cluster.sh to test]
SRC=$1 SCRIPT=${2:-$1/scripts/cluster.sh}
set -uo pipefail
if ! why=$("$SCRIPT" check 2>&1); then echo "SKIPPED: $why"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# `down` also looks for a cluster to take down: hold the tests' cluster lock meanwhile.
exec 9>/run/malleable-cluster.lock
flock -w 900 9 || { echo "FAILED: the cluster lock is held by another run"; exit 1; }
hosts=$work/hosts
own=$'127.0.0.1\tlocalhost\n127.0.1.1\tvm'
bad=0
for round in $(seq 1 10); do
  printf '%s\n10.213.7.11 node1 # malleable-cluster\n10.213.7.12 node2 # malleable-cluster\n' "$own" >"$hosts"
  for k in 1 2 3 4; do MALLEABLE_CLUSTER_HOSTS_FILE=$hosts "$SCRIPT" down >/dev/null 2>&1 9>&- & done
  wait
  if [[ $(cat "$hosts") != "$own" ]]; then
    bad=$((bad + 1))
    echo "round $round: the hosts file holds $(wc -l <"$hosts") lines ($(wc -c <"$hosts") bytes) instead of its own 2"
  fi
done
flock -u 9
if ((bad)); then echo "FAILED: $bad of 10 rounds of concurrent downs damaged the hosts file"; exit 1; fi
echo "10 rounds of 4 concurrent downs: the hosts file kept exactly its own lines"
echo "PASS"
