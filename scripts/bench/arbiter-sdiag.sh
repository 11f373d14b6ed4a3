#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# slurmctld's load with malleable-arbiterd, measured with sdiag on the emulated cluster
# (scripts/cluster.sh; root; takes the cluster lock, brings it up with Slurm and takes
# everything down at the end). The daemon runs in the head's namespace (interval 2 s,
# TCP on the cluster's private address 10.213.7.10:7070); N fake jobs (held Slurm jobs,
# so that they exist in Slurm, each asked about by a client thread in node1) send one
# arbitrate request a second each for SECONDS. All the clients share node1's address, one
# client to the per-client cap (--max-connections-per-uid, 8 by default; on a site each
# job's node is its own client): the cap is raised to 128 so that it turns none away.
# For each of: no clients, 4, 16, 64 clients, sdiag before and after, and the RPCs
# slurmctld served in between by message type.
# With accounting (slurmdbd and its MariaDB server) when they are installed, so that the
# daemon's sacctmgr is real; sdiag counts slurmctld's RPCs only, not slurmdbd's.
# Usage: scripts/bench/arbiter-sdiag.sh [BUILD_DIR] [SECONDS]   (docs/guide/arbiter-operation.md, "Slurm's load")
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-$SRC/build}
SECS=${2:-60}
# shellcheck source=tests/cluster/harness.sh
source "$SRC/tests/cluster/harness.sh"
[[ -x $BUILD/cluster/malleable-arbiterd ]] || { echo "no $BUILD/cluster/malleable-arbiterd" >&2; exit 1; }
command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed"; exit 77; }
acct=(--no-accounting)
acct_note="without accounting"
if command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null; then
  acct=()
  acct_note="with accounting (slurmdbd)"
fi
cluster_begin 2 --slurm "${acct[@]}"
eval "export $("$CLUSTER" slurm-env)"
work=$(mktemp -d)
chmod 755 "$work"
dpid=
finish() {
  local rc=$?
  [[ -n $dpid ]] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
  "$CLUSTER" exec head scancel --name=arbsdiag >/dev/null 2>&1 || true
  rm -rf "$work"
  cluster_end $rc
}
trap finish EXIT
MS=/run/malleable-cluster/slurm/munge/munge.socket
ids=()
for ((i = 0; i < 64; ++i)); do
  ids+=("$("$CLUSTER" exec head sbatch --parsable -H -J arbsdiag -N 1 -o /dev/null --wrap 'sleep 600')")
done
"$CLUSTER" exec head "$BUILD/cluster/malleable-arbiterd" --socket "$work/arbiter.sock" --state-dir "$work/state" \
  --listen 10.213.7.10:7070 --munge-socket "$MS" --interval 2 --slurm-user 0 \
  --max-connections-per-uid 128 2>"$work/arbiterd.log" &
dpid=$!
for ((i = 0; i < 100; ++i)); do grep -q "listening on" "$work/arbiterd.log" && break; sleep 0.1; done
grep -q "listening on" "$work/arbiterd.log" || { cat "$work/arbiterd.log"; exit 1; }

# sdiag's RPCs by message type: "NAME count" lines.
rpcs() {
  "$CLUSTER" exec head sdiag | awk '/^Remote Procedure Call statistics by message type/ {on=1; next}
    /^Remote Procedure Call statistics by user/ {on=0} on && /count:/ {
      for (i = 1; i <= NF; ++i) if ($i ~ /^count:/) { sub("count:", "", $i); print $1, $i } }'
}
echo "sdiag on the emulated cluster (2 nodes, Slurm $(sinfo -V | awk '{print $2}') $acct_note); daemon interval 2 s; $SECS s per row; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '| clients | requests | slurmctld RPCs | per second | by type |\n|---|---|---|---|---|\n'
for n in 0 4 16 64; do
  rpcs >"$work/before"
  if ((n == 0)); then
    sleep "$SECS"
    asked="0"
  else
    asked=$("$CLUSTER" exec node1 python3 "$SRC/scripts/bench/arbiter-sdiag-clients.py" 10.213.7.10 7070 "$MS" "$SECS" \
            "${ids[@]:0:$n}")
  fi
  rpcs >"$work/after"
  awk -v n="$n" -v secs="$SECS" -v asked="$asked" 'NR == FNR {b[$1] = $2; next} {d = $2 - b[$1]; if (d > 0) { t += d; s = s sprintf("%s %d; ", $1, d) } }
    END {printf "| %d | %s | %d | %.2f | %s |\n", n, asked, t, t / secs, s}' "$work/before" "$work/after"
done
echo "the daemon's Slurm queries: $(grep -c 'asking Slurm failed' "$work/arbiterd.log" || true) failed; QOS: $(grep -c 'QOS limits' "$work/arbiterd.log" || true) log lines"
grep 'QOS limits' "$work/arbiterd.log" | head -3 || true
