#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The 16-core run's table (scripts/bench/device16.sh run): reads its records (a folder, or
docs/data/device16 whose raw/ is packed in runs.tar.xz), writes summary.csv beside them
and prints the targets.

    device16_report.py [DIR]      (default docs/data/device16)
    device16_report.py --ab [DIR]  device16.sh ab's rounds (DIR/ab): per case the medians over
                                   the rounds of redist's time per build, new/old, and COSTA's
                                   time over the new build's; writes DIR/ab_summary.csv
    device16_report.py --ucx [DIR] device16.sh ucx's rounds (DIR/ucx, or DIR holding the
                                   records): grown over fresh under the UCX PML, per round and
                                   median, and both against a fresh job under ob1; writes
                                   DIR/ucx_summary.csv
    device16_report.py --respawn DIR  device16.sh respawn's records (DIR holding them): the
                                   copy bound, grown by respawn and by merge over fresh per
                                   driver, COSTA over redist and redist's bytes moved per
                                   second over the copy's per case; writes DIR/respawn_summary.csv

growth rows: per round, the median wall time of the iterations on 4x4 after the first one
there (the first pays for the newcomers' warm-up), for the grown job and for the job started
on 4x4 (its first iteration left out too); the ratio is the median over the rounds of the
grown job's over the median of the fresh job's. redist rows: per case, COSTA's time over
redist's (both the fastest of the repetitions, one run)."""
import csv
import json
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data_archive  # noqa: E402


def growth(raw, driver):
    per = {"grow": [], "fresh": []}
    r = 1
    while os.path.exists(os.path.join(raw, "node_%s_grow.%d.json" % (driver, r))):
        for arm in per:
            with open(os.path.join(raw, "node_%s_%s.%d.json" % (driver, arm, r))) as f:
                its = [i["wall_s"] for i in json.load(f)["iterations"] if i["procs"] == 16]
            per[arm].append(st.median(its[1:]))
        r += 1
    return per


def ucx(d):
    """device16.sh ucx's rounds (DIR/ucx, or DIR itself when it holds the records): per driver
    the grown job and the job started on 4x4, both under the UCX PML, and the job started on
    4x4 under ob1 (Open MPI's default); a round counts where both UCX arms ran."""
    with data_archive.unpacked(d) as u:
        src = os.path.join(u, "ucx") if os.path.isdir(os.path.join(u, "ucx")) else u

        size = {}

        def steady(name):
            p = os.path.join(src, name + ".json")
            if not os.path.exists(p):
                return None
            with open(p) as fh:
                rec = json.load(fh)
            size[name.split("_")[1]] = rec["problem_size"]["n"]
            its = [i["wall_s"] for i in rec["iterations"] if i["procs"] == 16]
            return st.median(its[1:]) if len(its) > 1 else None

        rows = []
        for driver, n in (("pdgetrf", 8000), ("pdgemm", 6000)):
            g, f, o, rounds = [], [], [], []
            for r in range(1, 10):
                a, b = steady("ucx_%s_grow.%d" % (driver, r)), steady("ucx_%s_fresh.%d" % (driver, r))
                if a is not None and b is not None:
                    g.append(a), f.append(b), rounds.append(r)
                c = steady("ob1_%s_fresh.%d" % (driver, r))
                if c is not None:
                    o.append(c)
            if not g:
                rows.append(dict(case="%s N=%d 2x2->4x4" % (driver, n), rounds=0, met="not measured"))
                continue
            ratio = st.median(g) / st.median(f)
            q = [a / b for a, b in zip(g, f)]
            per = ["%.2f" % x for x in q]
            rows.append(dict(case="%s N=%d 2x2->4x4" % (driver, size.get(driver, n)), rounds=len(g), grown_ucx_s="%.3f" % st.median(g),
                             fresh_ucx_s="%.3f" % st.median(f), ratio="%.2f" % ratio,
                             per_round=" ".join(per), spread="%.2f-%.2f" % (min(q), max(q)),
                             fresh_ob1_s="%.3f" % st.median(o) if o else "", ob1_rounds=len(o),
                             grown_over_ob1="%.2f" % (st.median(g) / st.median(o)) if o else "",
                             ucx_over_ob1_fresh="%.2f" % (st.median(f) / st.median(o)) if o else "",
                             target="<= 1.05 (grown / fresh, UCX)", met="met" if ratio <= 1.05 else "missed"))
    keys = ["case", "rounds", "grown_ucx_s", "fresh_ucx_s", "ratio", "per_round", "spread", "fresh_ob1_s",
            "ob1_rounds", "grown_over_ob1", "ucx_over_ob1_fresh", "target", "met"]
    with open(os.path.join(d, "ucx_summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, keys, restval="")
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        if not r["rounds"]:
            print("%-28s not measured" % r["case"])
            continue
        print("%-28s rounds %d  grown %ss  fresh %ss  %sx (per round %s)  %s;  fresh ob1 %ss (%d): grown/ob1 %sx, "
              "fresh ucx/ob1 %sx" % (r["case"], r["rounds"], r["grown_ucx_s"], r["fresh_ucx_s"], r["ratio"],
                                     r["per_round"], r["met"], r["fresh_ob1_s"] or "-", r["ob1_rounds"],
                                     r["grown_over_ob1"] or "-", r["ucx_over_ob1_fresh"] or "-"))


def ab(d):
    with data_archive.unpacked(d) as u:
        src = os.path.join(u, "ab")
        res = {}
        for w in ("old", "new"):
            r = 1
            while os.path.exists(os.path.join(src, "%s.%d.json" % (w, r))):
                with open(os.path.join(src, "%s.%d.json" % (w, r))) as fh:
                    for c in json.load(fh):
                        res.setdefault(c["shape"], {}).setdefault(w, []).append(c)
                r += 1
    rows = []
    for shape, runs in res.items():
        o = st.median(c["redist_s"] for c in runs["old"])
        n = st.median(c["redist_s"] for c in runs["new"])
        cn = st.median(c["costa_s"] for c in runs["new"])
        ok = all(c["redist_identical_to_pdgemr2d"] and c["costa_identical_to_pdgemr2d"] for c in runs["old"] + runs["new"])
        rows.append(dict(case=shape, ranks=runs["new"][0]["ranks"], rounds=len(runs["new"]), old_s="%.4f" % o,
                         new_s="%.4f" % n, new_over_old="%.2f" % (n / o), costa_s="%.4f" % cn,
                         costa_over_new="%.2f" % (cn / n), check="ok" if ok else "differs"))
    with open(os.path.join(d, "ab_summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print("%-40s %3s %s %s %sx  costa/new %sx %s" % (r["case"], r["ranks"], r["old_s"], r["new_s"], r["new_over_old"],
                                                       r["costa_over_new"], r["check"]))
    no = [float(r["new_over_old"]) for r in rows]
    cn = [float(r["costa_over_new"]) for r in rows]
    print("new/old %.2fx to %.2fx (median %.2fx); COSTA/new %.2fx to %.2fx, %d of %d below 1.5x" %
          (min(no), max(no), st.median(no), min(cn), max(cn), sum(x < 1.5 for x in cn), len(cn)))


def steady_s(path):
    """The median wall time of a run's iterations on its last grid after the first there
    (None when the record is missing or has fewer than two)."""
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        its = json.load(fh)["iterations"]
    last = [i["wall_s"] for i in its if its and i["procs"] == its[-1]["procs"]]
    return st.median(last[1:]) if len(last) > 1 else None


def respawn_growth(d, driver):
    """One row per driver: the medians over the rounds of each arm's steady iteration, the
    grown arms over the fresh one (and per round, where both ran)."""
    arms = {"respawn": "respawn_%s_grow.%d", "merge": "merge_%s_grow.%d", "fresh": "node_%s_fresh.%d"}
    per = {a: {} for a in arms}
    for a, pat in arms.items():
        for r in range(1, 10):
            v = steady_s(os.path.join(d, pat % (driver, r) + ".json"))
            if v is not None:
                per[a][r] = v
    row = dict(kind="growth", case=driver, rounds=" ".join("%s %d" % (a, len(per[a])) for a in arms))
    for a in arms:
        row[a + "_s"] = "%.4f" % st.median(per[a].values()) if per[a] else ""
    for a in ("respawn", "merge"):
        both = sorted(set(per[a]) & set(per["fresh"]))
        if both:
            row[a + "_over_fresh"] = "%.3f" % (st.median(per[a].values()) / st.median(per["fresh"].values()))
            row[a + "_per_round"] = " ".join("%.2f" % (per[a][r] / per["fresh"][r]) for r in both)
    q = row.get("respawn_over_fresh")
    row["target"] = "respawn / fresh <= 1.05"
    row["met"] = "not measured" if q is None else "met" if float(q) <= 1.05 else "missed"
    return row


def respawn(d):
    rows = []
    copy_bps = None
    cp = os.path.join(d, "copy.log")
    if os.path.exists(cp):
        for line in open(cp):
            f = line.split("\t")
            if f[0] == "best":
                copy_bps = float(f[3].split()[1])
                rows.append(dict(kind="copy", case=f[1] + ", " + f[2], copied_Bps="%.4g" % copy_bps,
                                 target="the node's bound", met="measured"))
    for driver in ("pdgetrf", "pdgemm"):
        rows.append(respawn_growth(d, driver))
    cases = []
    if os.path.exists(os.path.join(d, "redist.json")):
        with open(os.path.join(d, "redist.json")) as fh:
            cases = json.load(fh)
    for c in cases:
        costa = c["costa_s"] if isinstance(c.get("costa_s"), (int, float)) else None
        ok = c["redist_identical_to_pdgemr2d"] and c.get("costa_identical_to_pdgemr2d") is not False
        bps = c["moved_bytes"] / c["redist_s"]
        ratio = costa / c["redist_s"] if costa else None
        rows.append(dict(kind="redist", case="%s (%d ranks)" % (c["shape"], c["ranks"]), redist_s="%.4f" % c["redist_s"],
                         costa_s="%.4f" % costa if costa else "not built",
                         costa_over_redist="%.2f" % ratio if ratio else "", moved_Bps="%.4g" % bps,
                         of_copy="%.3f" % (bps / copy_bps) if copy_bps else "", target="COSTA / redist >= 1.5",
                         met=("not measured" if ratio is None else "met" if ratio >= 1.5 else "missed") +
                         ("" if ok else " (result differs)")))
    keys = ["kind", "case", "rounds", "respawn_s", "merge_s", "fresh_s", "respawn_over_fresh", "respawn_per_round",
            "merge_over_fresh", "merge_per_round", "copied_Bps", "redist_s", "costa_s", "costa_over_redist",
            "moved_Bps", "of_copy", "target", "met"]
    with open(os.path.join(d, "respawn_summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, keys, restval="")
        w.writeheader()
        w.writerows(rows)
    print_respawn(rows)


def print_respawn(rows):
    print("targets: respawn-grown / fresh <= 1.05x (per driver); COSTA / redist >= 1.5x (per case); redist's bytes "
          "moved per second as a fraction of the node's copy (bytes copied per second)")
    for r in rows:
        g = r.get
        if r["kind"] == "copy":
            print("copy    %-44s %s B/s copied (STREAM's count: twice)" % (r["case"], r["copied_Bps"]))
        elif r["kind"] == "growth":
            print("growth  %-8s rounds (%s): respawn %ss merge %ss fresh %ss; respawn/fresh %sx (per round %s) %s; "
                  "merge/fresh %sx (per round %s)" % (r["case"], r["rounds"], g("respawn_s") or "-", g("merge_s") or "-",
                                                      g("fresh_s") or "-", g("respawn_over_fresh", "-"),
                                                      g("respawn_per_round", "-"), r["met"], g("merge_over_fresh", "-"),
                                                      g("merge_per_round", "-")))
        else:
            costa = r["costa_s"] + ("s" if r["costa_over_redist"] else "")
            print("redist  %-44s %ss COSTA %s %sx %s; moved %s B/s, %s of copy" % (
                r["case"], r["redist_s"], costa, r["costa_over_redist"] or "-", r["met"], r["moved_Bps"],
                r["of_copy"] or "-"))
    red = [float(r["costa_over_redist"]) for r in rows if r["kind"] == "redist" and r["costa_over_redist"]]
    frac = [float(r["of_copy"]) for r in rows if r["kind"] == "redist" and r["of_copy"]]
    if red:
        print("COSTA / redist: %.2fx to %.2fx over %d cases, %d below 1.5x" % (min(red), max(red), len(red),
                                                                              sum(x < 1.5 for x in red)))
    if frac:
        print("redist's bytes moved per second / the copy's: %.3f to %.3f (median %.3f)" % (min(frac), max(frac),
                                                                                          st.median(frac)))


def main():
    if sys.argv[1:2] == ["--respawn"]:
        respawn(sys.argv[2] if len(sys.argv) > 2 else "docs/data/device16/respawn/records")
        return
    if sys.argv[1:2] == ["--ucx"]:
        ucx(sys.argv[2] if len(sys.argv) > 2 else "docs/data/device16")
        return
    if sys.argv[1:2] == ["--ab"]:
        ab(sys.argv[2] if len(sys.argv) > 2 else "docs/data/device16")
        return
    d = sys.argv[1] if len(sys.argv) > 1 else "docs/data/device16"
    with data_archive.unpacked(d) as u:
        raw = os.path.join(u, "raw") if os.path.isdir(os.path.join(u, "raw")) else u
        rows = []
        for driver, n in (("pdgemm", 6000), ("pdgetrf", 8000)):
            per = growth(raw, driver)
            g, f = st.median(per["grow"]), st.median(per["fresh"])
            rows.append(dict(kind="growth", case="%s N=%d 2x2->4x4" % (driver, n), ranks=16,
                             ours_s="%.3f" % g, other_s="%.3f" % f, ratio="%.2f" % (g / f),
                             rounds=len(per["grow"]),
                             spread="%.2f-%.2f" % (min(a / b for a, b in zip(per["grow"], per["fresh"])),
                                                   max(a / b for a, b in zip(per["grow"], per["fresh"]))),
                             target="<= 1.05 (grown / fresh)", met="met" if g / f <= 1.05 else "missed"))
        with open(os.path.join(raw, "redist.json")) as fh:
            cases = json.load(fh)
        for c in cases:
            ratio = c["costa_s"] / c["redist_s"]
            ok = c["redist_identical_to_pdgemr2d"] and c["costa_identical_to_pdgemr2d"]
            rows.append(dict(kind="redist", case=c["shape"], ranks=c["ranks"], ours_s="%.4f" % c["redist_s"],
                             other_s="%.4f" % c["costa_s"], ratio="%.2f" % ratio, rounds=1,
                             spread="-", target=">= 1.50 (COSTA / redist)",
                             met=("met" if ratio >= 1.5 else "missed") + ("" if ok else " (result differs)")))
    keys = ["kind", "case", "ranks", "ours_s", "other_s", "ratio", "rounds", "spread", "target", "met"]
    with open(os.path.join(d, "summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, keys)
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print("%-7s %-40s %3s %8s %8s %6sx %-10s %s" % (r["kind"], r["case"], r["ranks"], r["ours_s"], r["other_s"],
                                                     r["ratio"], r["spread"], r["met"]))
    red = [float(r["ratio"]) for r in rows if r["kind"] == "redist"]
    print("redist / COSTA: %.2fx to %.2fx over %d cases, %d below 1.5x" %
          (min(red), max(red), len(red), sum(x < 1.5 for x in red)))


if __name__ == "__main__":
    main()
