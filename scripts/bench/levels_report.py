#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The checkpoint levels' measurement tables in docs/measurements/checkpoint.md, from the
outputs levels.sh levels, levels.sh cluster and levels.sh recovery kept in
docs/data/levels: replaces the text between <!-- levels-NAME --> and <!-- /levels-NAME -->
for NAME = one-machine, cluster, recovery.

    levels_report.py [--data docs/data/levels] [--doc docs/measurements/checkpoint.md]
"""
import argparse
import csv
import os
import re
import sys

LINK = 125e6  # bytes/s of 1 Gbit/s


def read(path):
    vals, head = {}, ""
    with open(path) as f:
        for line in f:
            if line.startswith("levels N="):
                head = line.strip()
            parts = line.split()
            if len(parts) >= 2:
                try:
                    vals[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    m = re.search(r", (\d+) bytes on the busiest process", head)
    vals["bytes"] = float(m.group(1)) if m else 0.0
    m = re.search(r"grid (\d+)x(\d+), (\d+) processes", head)
    vals["procs"] = int(m.group(3)) if m else 1
    return vals


def ms(x):
    return ("%.1f ms" if x < 0.01 else "%.0f ms") % (1e3 * x) if x < 10 else "%.1f s" % x


def one_machine(data):
    rows = []
    for p in (2, 3):
        one, grid = os.path.join(data, "one-%dx%d.txt" % (p, p)), os.path.join(data, "%dx%d.txt" % (p, p))
        if not (os.path.exists(one) and os.path.exists(grid)):
            continue
        o, g = read(one), read(grid)
        rows.append((p, o, g))
    out = ["| measurement | " + " | ".join("1 process, %.1f MB | %dx%d, %.1f MB per process" % (o["bytes"] / 1e6, p, p, g["bytes"] / 1e6)
                                            for p, o, g in rows) + " |",
           "|---|" + "---|---|" * len(rows)]

    def row(label, f):
        out.append("| " + label + " | " + " | ".join(f(o) + " | " + f(g) for _, o, g in rows) + " |")

    row("memcpy into fresh pages", lambda v: ms(v["memcpy_fresh_s"]))
    row("memcpy into touched pages", lambda v: ms(v["memcpy_warm_s"]))
    row("the same, until every process has copied", lambda v: ms(v["memcpy_warm_all_s"]) if "memcpy_warm_all_s" in v else "—")
    row("local level (x memcpy speed: fresh, touched, touched until all)",
        lambda v: "%s (%.2fx, %.2fx, %s)" % (ms(v["local_s"]), v["memcpy_fresh_s"] / v["local_s"], v["memcpy_warm_s"] / v["local_s"],
                                             "%.2fx" % (v["memcpy_warm_all_s"] / v["local_s"]) if "memcpy_warm_all_s" in v else "—"))
    row("local level, its first checkpoint (creates the files)",
        lambda v: ms(v["local_first_s"]) if "local_first_s" in v else "—")
    row("local + partner level, its first checkpoint",
        lambda v: ms(v["local_partner_first_s"]) if "local_partner_first_s" in v else "—")
    row("local + partner level", lambda v: "%s (%.1fx local)" % (ms(v["local_partner_s"]), v["local_partner_s"] / v["local_s"])
        if v["local_partner_s"] > 0 else "— (one node)")
    row("the partner transfer by MPI alone", lambda v: ms(v["mpi_ring_s"]) if "mpi_ring_s" in v else "—")
    row("global HDF5 checkpoint", lambda v: "%s (%.1fx local)" % (ms(v["global_s"]), v["global_s"] / v["local_s"]))
    return "\n".join(out)


def cluster(data):
    out = ["| grid (nodes) | bytes sent per node | link bound | MPI alone (x bound) | local + partner (x bound, x MPI) | local | local x memcpy (fresh, touched until all) | global HDF5 |",
           "|---|---|---|---|---|---|---|---|"]
    runs = [(p, "", "") for p in (2, 3)] + [(p, "links2-", ", `btl_tcp_links 2`") for p in (2, 3)]
    for p, tag, note in runs:
        path = os.path.join(data, "cluster-%s%dx%d.txt" % (tag, p, p))
        if not os.path.exists(path):
            continue
        v = read(path)
        sent = v["bytes"] * p
        bound = sent / LINK
        ring = v.get("mpi_ring_s", 0)
        warm_all = "%.2fx" % (v["memcpy_warm_all_s"] / v["local_s"]) if "memcpy_warm_all_s" in v else "—"
        out.append("| %dx%d (%d)%s | %.1f MB | %s | %s (%.2fx) | %s (%.2fx, %.2fx) | %s | %.2fx, %s | %s |" % (
            p, p, p, note, sent / 1e6, ms(bound), ms(ring), ring / bound, ms(v["local_partner_s"]), v["local_partner_s"] / bound,
            v["local_partner_s"] / ring if ring else 0, ms(v["local_s"]), v["memcpy_fresh_s"] / v["local_s"], warm_all,
            ms(v["global_s"])))
    return "\n".join(out)


def recovery(data):
    path = os.path.join(data, "recovery.tsv")
    runs = {}
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            runs.setdefault(r["mode"], []).append(r)
    out = ["| recovery | from the kill until computing again | iterations lost | bytes read from the file system |",
           "|---|---|---|---|"]
    names = {"levels": "levels (survivors' local + partner copies)", "global": "relaunch from the global HDF5 file (today)"}
    for mode in ("levels", "global"):
        rs = runs.get(mode, [])
        if not rs:
            continue
        t = [float(r["seconds_to_compute"]) for r in rs]
        out.append("| %s | %.1f s mean of %d (%s) | %s | %s |" % (
            names[mode], sum(t) / len(t), len(t), ", ".join("%.1f" % x for x in t), rs[-1]["iterations_lost"],
            "{:,}".format(int(rs[-1]["fs_bytes_read"]))))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--data", default=os.path.join(here, "docs/data/levels"))
    ap.add_argument("--doc", default=os.path.join(here, "docs/measurements/checkpoint.md"))
    a = ap.parse_args()
    s = open(a.doc).read()
    for name, f in (("one-machine", one_machine), ("cluster", cluster), ("recovery", recovery)):
        begin, end = "<!-- levels-%s -->" % name, "<!-- /levels-%s -->" % name
        if begin not in s or end not in s:
            sys.exit("levels_report: the markers %s are not in %s" % (begin, a.doc))
        i, j = s.index(begin) + len(begin), s.index(end)
        s = s[:i] + "\n" + f(a.data) + "\n" + s[j:]
    open(a.doc, "w").write(s)
    print("levels_report: %s updated from %s" % (a.doc, a.data))


if __name__ == "__main__":
    main()
