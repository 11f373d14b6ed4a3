#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The checkpoint levels' measurement tables in docs/measurements/checkpoint.md, from the
outputs levels.sh levels, levels.sh cluster and levels.sh recovery kept in
docs/data/levels: replaces the text between <!-- levels-NAME --> and <!-- /levels-NAME -->
for NAME = one-machine, cluster, recovery.

    levels_report.py [--data docs/data/levels] [--doc docs/measurements/checkpoint.md]

Subcommand: checkpoint [--data DIR] [--plot PNG] (checkpoint write / restart read against raw MPI-IO;
its notes in DOC_CHECKPOINT below).
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



# ---- checkpoint (`scripts/bench/levels_report.py checkpoint ARGS`, its arguments as when it was a script of its own)
DOC_CHECKPOINT = """Render the checkpoint benchmark (scripts/bench/levels.sh checkpoint) as a docs/measurements/results.md section.

Reads DATA/bandwidth.log (checkpoint_bench's lines, one block per path and grid) and
DATA/overhead_{plain,auto}_R.{json,log} (pdgemm_resizable without checkpoints and with
--checkpoint-every auto, back to back), writes DATA/section.md, DATA/plot.dat, DATA/plot.gp
and, with --plot, the PNG (gnuplot).

    levels_report.py checkpoint --data docs/data/checkpoint [--plot docs/img/checkpoint.png]
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data_archive  # noqa: E402  (the overhead runs are packed in runs.tar.xz)


def bandwidth(path):
    rows, cur = [], None
    for line in open(path):
        if line.startswith("== path:"):
            cur = {"path": line.split(":", 1)[1].strip()}
        m = re.match(r"checkpoint bandwidth: N=(\d+) NB=(\d+) .* write on (\S+), read on (\S+),", line)
        if m and cur is not None:
            cur.update(n=int(m[1]), nb=int(m[2]), wgrid=m[3], rgrid=m[4].rstrip(","))
        m = re.match(r"\s+(write|read)\s+\w+\s+([\d.]+) s .*raw MPI-IO\s+([\d.]+) s .*ratio ([\d.]+)x", line)
        if m and cur is not None:
            cur[m[1]] = (float(m[2]), float(m[3]), float(m[4]))
        m = re.match(r"\s+paired ratios .*write ([\d.]+)x / ([\d.]+)x / ([\d.]+)x, read ([\d.]+)x / ([\d.]+)x / ([\d.]+)x", line)
        if m and cur is not None:
            cur["paired"] = tuple(float(m[k]) for k in range(1, 7))
        m = re.match(r"\s+write over the previous checkpoint under the same name\s+([\d.]+) s .*ratio ([\d.]+)x", line)
        if m and cur is not None:
            cur["over"] = (float(m[1]), float(m[2]))
        m = re.match(r"\s+raw MPI-IO in the checkpoint's pattern .*write\s+([\d.]+) s .*read\s+([\d.]+) s", line)
        if m and cur is not None:
            cur["pattern"] = (float(m[1]), float(m[2]))
            rows.append(cur)
            cur = None
    return rows


def overhead(data):
    """Per repetition: (plain s/iteration, auto s/iteration incl. checkpoints, checkpoints, C,
    interval); the runs read from runs.tar.xz (scripts/bench/data_archive.py), loose files over it."""
    with data_archive.unpacked(data) as src:
        return overhead_files(src)


def overhead_files(data):
    out = []
    for plain in sorted(glob.glob(os.path.join(data, "overhead_plain_*.json"))):
        r = plain.rsplit("_", 1)[1].split(".")[0]
        auto = os.path.join(data, f"overhead_auto_{r}.json")
        log = os.path.join(data, f"overhead_auto_{r}.log")
        if not os.path.exists(auto):
            continue
        p, a = json.load(open(plain)), json.load(open(auto))
        iters = len(a["iterations"])
        tp = sum(i["wall_s"] for i in p["iterations"]) / len(p["iterations"])
        ck = [dict(kv.split("=") for kv in l.split(": ", 1)[1].split())
              for l in open(log) if "checkpoint-every auto:" in l]
        # periodic checkpoints only (the first, which measures C, and the Young/Daly ones);
        # the one after the last iteration is not part of the cadence
        periodic = [c for c in ck if c["reason"] in ("first", "interval")]
        cost = sum(float(c["cost"]) for c in periodic)
        ta = (sum(i["wall_s"] for i in a["iterations"]) + cost) / iters
        mean_c = cost / max(1, len(periodic))
        mtbf = float(ck[0]["mtbf"]) if ck else float("nan")
        out.append(dict(rep=r, plain=tp, auto=ta, ckshare=cost / iters / tp, n=len(periodic), c=mean_c, mtbf=mtbf, iters=iters,
                        interval=math.sqrt(2 * mean_c * mtbf), ok=p["check"]["ok"] and a["check"]["ok"],
                        checks=sum(c["reason"] == "interval" for c in ck)))
    return out


def main_checkpoint():
    ap = argparse.ArgumentParser(description=DOC_CHECKPOINT, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--plot")
    a = ap.parse_args()
    meta = dict(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(a.data, "meta.tsv")))
    bw, ov = bandwidth(os.path.join(a.data, "bandwidth.log")), overhead(a.data)
    s = ["## Checkpoint and restart: bandwidth and periodic overhead", "",
         f"`{meta['command']}` ({meta['host']}; `uptime` load {meta['load_before']} before, "
         f"{meta['load_after']} after; {meta['date']}). Rendered by `scripts/bench/levels_report.py checkpoint` "
         "from `docs/data/checkpoint/`. Each line: a session checkpoints an N x N double matrix "
         "(one parallel HDF5 file) and a second session restarts from it; the same bytes written "
         "and read with raw `MPI_File_write_at_all`/`read_at_all`, contiguous per process, to the "
         "same directory, one after the other in one run; ratio = raw / checkpoint (1 = as fast as raw "
         "MPI-IO). Medians of the repeats. \"pattern\" = raw MPI-IO in the checkpoint's own file layout "
         "(darray view). Both writes create a new file (the previous repeat's is removed before the "
         "timing, as the session's own periodic checkpoints take a new name each time); \"over same "
         "name\" = a second checkpoint written over the first under its name (ext4 flushes a file "
         "renamed over another, auto_da_alloc). See docs/guide/checkpoint.md.", "",
         "\"paired\" = raw / checkpoint of each repeat's back-to-back pair, min / median / max over the repeats.", "",
         "| N | write grid -> read grid | path | write s | raw write s | write ratio | paired write ratios | over same name s (ratio) | restart s | raw read s | read ratio | paired read ratios | raw in pattern write / read s |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    dat = ["# case write raw_write restart raw_read"]
    for k, r in enumerate(bw):
        w, rd = r["write"], r["read"]
        over = f"{r['over'][0]:.3f} ({r['over'][1]:.2f}x)" if "over" in r else "-"
        p = r.get("paired")
        pw = f"{p[0]:.2f} / {p[1]:.2f} / {p[2]:.2f}" if p else "-"
        pr = f"{p[3]:.2f} / {p[4]:.2f} / {p[5]:.2f}" if p else "-"
        s.append(f"| {r['n']} | {r['wgrid']} -> {r['rgrid']} | {r['path']} | {w[0]:.3f} | {w[1]:.3f} | {w[2]:.2f}x | {pw} | "
                 f"{over} | {rd[0]:.3f} | {rd[1]:.3f} | {rd[2]:.2f}x | {pr} | {r['pattern'][0]:.3f} / {r['pattern'][1]:.3f} |")
        short = "union" if r["path"].startswith("union") else "selection" if "selection" in r["path"] else "chunk"
        dat.append(f"\"{r['wgrid']}->{r['rgrid']}\\n{short}\" {w[0]} {w[1]} {rd[0]} {rd[1]}")
    if ov:
        s += ["", f"**Periodic checkpoints at the Young/Daly interval.** `pdgemm_resizable -n {meta['ov_n']} -i "
              f"{ov[0]['iters']}` on 2x2 without checkpoints and with `--checkpoint DIR --checkpoint-every auto "
              f"--mtbf {meta['ov_mtbf']}`, back to back, {len(ov)} pairs. Time per iteration = the iterations' "
              "wall time (JSON `iterations[].wall_s`) plus, with checkpoints, the measured cost of every "
              "periodic checkpoint (the first, which measures C, and those at the interval; not the one after "
              "the last iteration) divided by the iterations. Young/Daly's first-order overhead "
              "C / interval = sqrt(C / (2 MTBF)) is the model's prediction; \"of which checkpoint writes\" is the checkpoints' own time over the "
              "iterations' time without checkpoints, the rest of the overhead is iterations running slower in the "
              "run with checkpoints (load from other jobs varies between the two runs, and the file writes leave "
              "dirty pages for the kernel to flush).", "",
              "| pair | s/iteration, no checkpoints | s/iteration, auto | overhead | of which checkpoint writes | checkpoints (at the interval) | mean C s | sqrt(2 C MTBF) s | model C/interval | checks |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for o in ov:
            s.append(f"| {o['rep']} | {o['plain']:.4f} | {o['auto']:.4f} | {100 * (o['auto'] / o['plain'] - 1):+.1f}% | "
                     f"{100 * o['ckshare']:.1f}% | "
                     f"{o['n']} ({o['checks']}) | {o['c']:.3f} | {o['interval']:.2f} | "
                     f"{100 * math.sqrt(o['c'] / (2 * o['mtbf'])):.1f}% | {'OK' if o['ok'] else 'FAILED'} |")
    s += ["", "![checkpoint vs raw MPI-IO](../../img/checkpoint.png)", ""]  # from docs/data/checkpoint/
    open(os.path.join(a.data, "section.md"), "w").write("\n".join(s))
    open(os.path.join(a.data, "plot.dat"), "w").write("\n".join(dat) + "\n")
    gp = f"""set terminal pngcairo size 1000,450 font ",10"
set output "{a.plot or 'checkpoint.png'}"
set title "Checkpoint write / restart read vs raw MPI-IO of the same bytes (N = {bw[0]['n'] if bw else '?'}, medians)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "seconds"
set key top right
set bmargin 4
set grid ytics
plot "{os.path.join(a.data, 'plot.dat')}" using 2:xtic(1) title "checkpoint write", '' using 3 title "raw write", \\
     '' using 4 title "restart read", '' using 5 title "raw read"
"""
    open(os.path.join(a.data, "plot.gp"), "w").write(gp)
    if a.plot:
        subprocess.run(["gnuplot", os.path.join(a.data, "plot.gp")], check=True)
    print(f"levels_report.py checkpoint: {len(bw)} bandwidth lines, {len(ov)} overhead pairs -> {a.data}/section.md")


# The subcommands: the scripts folded in above, each run as it was (scripts/bench/subcommands.py).
if __name__ == "__main__":
    import subcommands
    sys.exit(subcommands.run(main, {
        "checkpoint": main_checkpoint,
    }))
