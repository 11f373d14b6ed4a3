#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The cost of fresh memory, the kernel's page faults on a new array (resize/src/move/pages.hpp,
# RESIZE_HUGEPAGES): scripts/bench/first_touch.c, compiled into a temporary directory, writes
# new anonymous arrays of each size whole, REPS times: 4 KiB pages (small), populated first
# by MADV_POPULATE_WRITE (populate, populate_ms: the madvise alone), transparent huge pages
# (huge: 2 MiB aligned, MADV_HUGEPAGE; huge_MiB: what the kernel gave as huge pages) and the
# same array written again (warm). Repetition 1 is reported apart from the median of the
# others: on a virtual machine whose host backs guest memory at its first touch, the first
# huge pages a process gets are often guest memory never touched since boot.
# --warm-host GIB: first write GIB of memory once and free it (its time: warm_host).
# --after-free "D1 D2 ...": how long written and freed memory stays backed: for each delay
# D (seconds), one process writes and frees 4 GiB, and D seconds later a new process writes
# 512 MiB on small and on huge pages (its first repetition; lines after_free in the table).
# Prints the system's THP settings, free memory and free 2/4 MiB blocks before and after,
# the table, and writes the raw lines to OUT/TAG.tsv and the report to OUT/TAG.txt.
#   scripts/bench/first_touch.sh [--sizes 32,128,512] [--reps 5] [--warm-host GIB]
#                                [--tag NAME] [--out docs/data/first_touch]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
sizes=32,128,512 reps=5 warm=0 tag=run out=$here/docs/data/first_touch after_free=""
while (($#)); do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --warm-host) warm=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --after-free) after_free=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "first_touch.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $reps -ge 2 ]] || { echo "first_touch.sh: --reps takes 2 or more" >&2; exit 2; }
tmp=$(mktemp -d /tmp/first_touch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wall -Wextra "$here/scripts/bench/first_touch.c" -o "$tmp/first_touch"
mkdir -p "$out"
state() {  # free memory and free blocks of order 9 (2 MiB) and 10 (4 MiB), all zones
  awk '/MemFree/ {printf "MemFree %.1f GiB", $2 / 1048576}' /proc/meminfo
  awk '{o9 += $(5 + 9); o10 += $(5 + 10)} END {printf ", free 2 MiB blocks %d, 4 MiB blocks %d\n", o9, o10}' /proc/buddyinfo
}
{
  echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg), uptime $(cut -d' ' -f1 /proc/uptime) s"
  echo "# THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null), defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
  echo "# sizes $sizes MiB, $reps repetitions, warm-host ${warm} GiB; before: $(state)"
} | tee "$out/$tag.txt"
"$tmp/first_touch" "$sizes" "$reps" "$warm" >"$out/$tag.tsv"
echo "# after: $(state)" | tee -a "$out/$tag.txt"
awk -F'\t' '$1 == "warm_host" {printf "warm_host: %s MiB written once in %.0f ms (%.0f MB/s), %s MiB of it huge pages\n", $2, $4, $2 * 1.048576 / $4 * 1e3, $5}' \
  "$out/$tag.tsv" | tee -a "$out/$tag.txt"
python3 - "$out/$tag.tsv" <<'PY' | tee -a "$out/$tag.txt"
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
t = {}
for kind, mib, rep, ms, _ in rows:
    if kind != "warm_host":
        t.setdefault((kind, int(mib)), {})[int(rep)] = float(ms)
sizes = sorted({m for _, m in t})
print("| MiB | kind | rep 1 ms | later reps ms: median (min-max) | later median / small's |")
print("|---:|---|---:|---:|---:|")
for m in sizes:
    small = t.get(("small", m), {})
    base = statistics.median([v for r, v in small.items() if r > 1]) if len(small) > 1 else None
    for kind in ("small", "populate_ms", "populate", "huge", "warm"):
        d = t.get((kind, m))
        if not d:
            continue
        later = [v for r, v in d.items() if r > 1]
        med = statistics.median(later)
        rel = f"{med / base:.2f}x" if base else "-"
        print(f"| {m} | {kind} | {d.get(1, float('nan')):.1f} | {med:.1f} ({min(later):.1f}-{max(later):.1f}) | {rel} |")
huge = [r for r in rows if r[0] == "huge" and r[4] != "-"]
short = [r for r in huge if int(r[4]) < int(r[1])]
print(f"huge arrays not wholly on huge pages: {len(short)} of {len(huge)}" + (" (AnonHugePages counts the whole process)" if short else ""))
PY
for d in $after_free; do
  w=$("$tmp/first_touch" 1 2 4 | awk -F'\t' '$1 == "warm_host" {print $4}')
  sleep "$d"
  "$tmp/first_touch" 512 2 | awk -F'\t' -v d="$d" -v w="$w" '$3 == 1 && ($1 == "small" || $1 == "huge") {t[$1] = $4}
    END {printf "after_free: 4 GiB written in %.0f ms and freed; %s s later, a new process: 512 MiB small pages %.0f ms, huge pages %.0f ms\n", w, d, t["small"], t["huge"]}'
done | tee -a "$out/$tag.txt"
