#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Resident memory of running processes by kind of mapping, sampled over time.

Usage: smaps_breakdown.py COMM OUT.tsv [--period S] [--seconds T]   (T: how long it samples, default 600)
Finds the processes whose /proc/PID/comm is COMM (the first 15 characters), and every
PERIOD seconds writes one row per process: time, pid, Rss of [heap] (glibc's main arena),
of anonymous mappings (other malloc arenas, large malloc blocks, Open MPI's mmaps), of
/dev/shm files, of other files (libraries), [stack], and the total. Meant to run beside
session_endurance.py or blacs_dyn_endurance to see on which kind of memory a rank grows.
"""
import os, sys, time, argparse


def kinds(pid):
    out = {"heap": 0, "anon": 0, "shm": 0, "file": 0, "stack": 0, "other": 0}
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if "-" in parts[0] and ":" not in parts[0]:
                path = parts[5] if len(parts) > 5 else ""
                if path == "[heap]":
                    cur = "heap"
                elif path == "":
                    cur = "anon"
                elif path.startswith("/dev/shm"):
                    cur = "shm"
                elif path.startswith("/"):
                    cur = "file"
                elif path == "[stack]":
                    cur = "stack"
                else:
                    cur = "other"
            elif parts[0] == "Rss:":
                out[cur] += int(parts[1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("comm")
    ap.add_argument("out")
    ap.add_argument("--period", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=600)
    a = ap.parse_args()
    t0 = time.time()
    with open(a.out, "w") as o:
        o.write("t\tpid\theap_kb\tanon_kb\tshm_kb\tfile_kb\tstack_kb\tother_kb\ttotal_kb\n")
        while time.time() - t0 < a.seconds:
            for p in os.listdir("/proc"):
                if not p.isdigit():
                    continue
                try:
                    if open(f"/proc/{p}/comm").read().strip() != a.comm[:15]:
                        continue
                    k = kinds(p)
                except (OSError, TypeError):
                    continue
                o.write(f"{time.time() - t0:.1f}\t{p}\t" + "\t".join(str(k[x]) for x in
                        ("heap", "anon", "shm", "file", "stack", "other")) + f"\t{sum(k.values())}\n")
            o.flush()
            time.sleep(a.period)


if __name__ == "__main__":
    main()
