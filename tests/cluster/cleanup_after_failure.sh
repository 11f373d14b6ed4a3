#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A cluster test that fails must leave nothing behind: no namespace, no Slurm or munge
# daemon, the machine-wide lock free, no shared directory of its cluster's jobs
# (~/.malleable/slurm/<ClusterName>, HOME a directory of the test's here) while another
# cluster's stays. The inner run brings a 2-node cluster with Slurm up (as the Slurm tests
# do), makes that directory as a job would, installs an EXIT trap of their shape (its own
# clean-up, then cluster_end with the saved status) and fails on purpose; the outer run
# checks, under the lock, what is left. (Before the fix, `(exit $rc)` in such a trap
# stopped it under set -e, and munged kept the lock's descriptor: the next cluster test
# waited 15 min.)
# Usage: cleanup_after_failure.sh <source dir> <build dir>
SRC=$1 BUILD=$2 MODE=${3:-outer}
if [[ $MODE == inner ]]; then
  . "$SRC/tests/cluster/harness.sh"
  command -v slurmctld >/dev/null || { echo "SKIPPED: Slurm is not installed"; exit 77; }
  cluster_begin 2 --slurm
  work=$(mktemp -d)
  trap 'rc=$?; rm -rf "$work"; cluster_end $rc' EXIT
  eval "export $("$CLUSTER" slurm-env)"
  shared=$HOME/.malleable/slurm/$(sed -n 's/^ClusterName=//p' "$SLURM_CONF")
  mkdir -p "$shared" && touch "$shared/ledger"
  echo "inner: cluster up, work $work, shared $shared"
  exit 3  # the failure
fi
set -uo pipefail
home=$(mktemp -d)
mkdir -p "$home/.malleable/slurm/mallc1"  # another cluster's
out=$(HOME=$home bash "$0" "$SRC" "$BUILD" inner 2>&1)
rc=$?
if [[ $rc -eq 77 ]]; then echo "$out"; rm -rf "$home"; exit 77; fi
echo "the failing run exited $rc: $(grep -m1 '^inner:' <<<"$out")"
fails=0
[[ $rc -eq 3 ]] || { echo "FAILED: the failing run exited $rc, expected its own status 3"; fails=1; }
work=$(sed -n 's/^inner: cluster up, work \(.*\), shared .*/\1/p' <<<"$out")
shared=$(sed -n 's/^inner: cluster up, work .*, shared //p' <<<"$out")
[[ $shared == "$home"/.malleable/slurm/mallc[0-9]* && ! -e $shared ]] ||
  { echo "FAILED: the shared directory '$shared' of its cluster's jobs is left"; fails=1; }
[[ -d $home/.malleable/slurm/mallc1 ]] || { echo "FAILED: another cluster's shared directory was removed"; fails=1; }
rm -rf "$home"
[[ -n $work && ! -e $work ]] || { echo "FAILED: its work directory '$work' is left"; fails=1; }
left=$(flock -w 60 /run/malleable-cluster.lock sh -c \
  'echo "namespaces $(ip netns list | grep -c "^mallc-")"; echo "daemons $(pgrep -fc "[/]run/malleable-cluster/" || true)"') ||
  { echo "FAILED: the cluster lock is still held 60 s after the failing run ended"; exit 1; }
echo "$left"
grep -q "^namespaces 0$" <<<"$left" || { echo "FAILED: namespaces of the cluster are left"; fails=1; }
grep -q "^daemons 0$" <<<"$left" || { echo "FAILED: Slurm or munge daemons of the cluster are left"; fails=1; }
((fails)) && exit 1
echo "PASS"
