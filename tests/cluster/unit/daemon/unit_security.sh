#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The daemon's systemd unit is sandboxed (packaging/arbiter/malleable-arbiterd.service.in,
# as CMake configures it into the build): `systemd-analyze security --offline` rates its
# exposure at most THRESHOLD (2.0, "OK"; the unsandboxed unit was 8.5, "EXPOSED"), and the
# directives the admin guide's threat model relies on are there. Where systemd-analyze is
# missing or cannot analyse a unit file offline (systemd older than 250): SKIPPED, exit 77.
# Usage: unit_security.sh BUILD_DIR [THRESHOLD]
set -u
unit=$1/cluster/malleable-arbiterd.service
threshold=${2:-2}
[[ -f $unit ]] || { echo "SKIPPED: no $unit (malleable-arbiterd is built with libmunge only)"; exit 77; }
command -v systemd-analyze >/dev/null || { echo "SKIPPED: systemd-analyze is missing"; exit 77; }
# --threshold counts in tenths of the 0-10 exposure the report prints (0-100)
out=$(systemd-analyze security --offline=yes --threshold="$(awk -v t="$threshold" 'BEGIN { printf "%d", t * 10 }')" "$unit" 2>&1)
rc=$?
if grep -qiE "unrecognized option|unknown option|invalid option" <<<"$out"; then
  echo "SKIPPED: this systemd-analyze cannot analyse a unit file offline: $(head -n 1 <<<"$out")"
  exit 77
fi
grep -E "Overall exposure" <<<"$out"
fail=0
if ((rc != 0)); then
  echo "FAILED: the unit's exposure is above $threshold (systemd-analyze security exited $rc); what it flags:"
  grep -E "^✗" <<<"$out" | head -n 40
  fail=1
fi
for want in MemoryMax= TasksMax= LimitNOFILE= NoNewPrivileges=yes CapabilityBoundingSet= ProtectSystem=strict \
            ProtectHome=yes PrivateTmp=yes PrivateDevices=yes RestrictAddressFamilies= SystemCallFilter= \
            SystemCallArchitectures=native RestrictNamespaces=yes MemoryDenyWriteExecute=yes UMask=0077; do
  grep -qE "^${want}" "$unit" || { echo "FAILED: $unit has no ${want}..."; fail=1; }
done
((fail == 0)) && echo "PASS: $unit sandboxed (exposure at most $threshold)"
exit $fail
