#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tables of malleable-redist-bench cost --json output (one file per run of calibrate + bench).

  summarize_cost.py run1.json [run2.json ...]                      # markdown to stdout
  summarize_cost.py --csv-dir DIR --section DIR/section.md run*.json

Markdown: the per-run summary (held-out and training median / p90 / max |error|), then one
row per case of the first run: predicted, measured (median of the interleaved runs, with
their min..max), the error, and the same case's error in the other runs; then the error
by change, schedule and N. --csv-dir also writes cases.csv (every case of every run) and
runs.csv (one line per run), and leaves the per-case table to cases.csv."""
import argparse
import csv
import json
import os
import statistics


def quantile(v, p):
    v = sorted(v)
    if not v:
        return 0.0
    x = p * (len(v) - 1)
    i = int(x)
    f = x - i
    return v[i] * (1 - f) + v[i + 1] * f if i + 1 < len(v) else v[i]


def stats(errs):
    a = [abs(e) for e in errs]
    return {"cases": len(a), "median": statistics.median(a), "p90": quantile(a, 0.9), "max": max(a),
            "within_15pct": sum(e <= 0.15 for e in a)}


def key(c):
    return (c["change"], c["n"], c["placement"], c["schedule"])


def pct(x):
    return f"{100 * x:.1f}%"


def markdown(docs, names, tag="", cases_table=True):
    out = []
    d0 = docs[0]
    stat = d0.get("statistic", "median").split(" ")[0]
    out.append(f"### Predicted vs measured redistribution time ({stat} of the runs)\n")
    import re
    fit = (d0.get("calibration") or {}).get("fit", [])
    cal_ns = sorted({int(m.group(1)) for r in fit for m in [re.search(r"N=(\d+)", r["what"])] if m})
    cal_text = ", ".join(map(str, cal_ns)) if cal_ns else "?"
    out.append(f"Machine `{d0.get('host', '?')}`, {d0.get('cpus', '?')} CPUs, {d0['ranks']} MPI ranks "
               f"(oversubscribed); {len(docs)} run(s) of `scripts/bench/redist.sh cost-model-error`, "
               f"each calibrating in the same job (malleable-calibrate's cases: N = {cal_text}) and then "
               f"comparing with the held-out benchmark cases (the redist case's: N = "
               f"{', '.join(str(n) for n in sorted({c['n'] for c in d0['cases']}))}); measured = "
               f"{d0.get('statistic', 'median').split(' ')[0]} of {d0.get('reps', '?')} runs, interleaved over the cases, calibration and benchmark cases in "
               f"the same rounds. Target: median |error| <= 15%.\n")
    out.append("| run | date (UTC) | load avg at end | calibration fit rms | training median / p90 / max "
               "| **held-out median** / p90 / max | held-out within 15% |")
    out.append("|---|---|---|---|---|---|---|")
    for i, d in enumerate(docs):
        h = stats([c["relative_error"] for c in d["cases"]])
        t = d.get("training")
        cal = d.get("calibration") or {}
        load = d.get("load_average_at_end", ["?"])
        tr = f"{pct(t['median'])} / {pct(t['p90'])} / {pct(t['max'])}" if t else "(model from file)"
        rms = pct(cal["rms_redistribution_residual"]) if "rms_redistribution_residual" in cal else "-"
        out.append(f"| {i + 1} | {d.get('date', '?')} | {load[0]:.1f} | {rms} | {tr} | "
                   f"**{pct(h['median'])}** / {pct(h['p90'])} / {pct(h['max'])} | "
                   f"{h['within_15pct']} / {h['cases']} |")
    out.append("")
    others = [{key(c): c for c in d["cases"]} for d in docs[1:]]
    extra = "".join(f" run {i + 2} error |" for i in range(len(others)))
    if not cases_table:  # with --csv-dir the cases are in cases<tag>.csv, not on the page
        out.append(f"Every case of every run (predicted, measured, min..max, error): `cases{tag}.csv`.")
        out.append("")
    else:
        out.append("Run 1 per case (ms; spread = min..max of the runs):\n")
        out.append("| N | change | placement | schedule | steps | predicted | measured | spread | error |"
                   + extra)
        out.append("|---|---|---|---|---|---|---|---|---|" + "---|" * len(others))
    for c in d0["cases"] if cases_table else []:
        cells = []
        for o in others:
            x = o.get(key(c))
            cells.append(f" {100 * x['relative_error']:+.0f}% |" if x else " |")
        lo, hi = c.get("min_s", min(c["runs_s"])), c.get("max_s", max(c["runs_s"]))
        out.append(f"| {c['n']} | {c['change'].replace(':', ' -> ')} | {c['placement']} | {c['schedule']} | "
                   f"{c['steps']} | {1e3 * c['predicted_s']:.1f} | {1e3 * c['measured_s']:.1f} | "
                   f"{1e3 * lo:.1f}..{1e3 * hi:.1f} | {100 * c['relative_error']:+.0f}% |" + "".join(cells))
    if cases_table:
        out.append("")
    allc = [c for d in docs for c in d["cases"]]
    for k, name in (("change", "change"), ("schedule", "schedule"), ("n", "N")):
        groups = {}
        for c in allc:
            groups.setdefault(c[k], []).append(c["relative_error"])
        out.append(f"By {name} (all runs): " + ", ".join(
            f"{g}: median |error| {pct(statistics.median(map(abs, v)))} (signed {100 * statistics.median(v):+.0f}%)"
            for g, v in groups.items()) + ".  ")
    spreads = [c["relative_iqr"] for c in allc]
    out.append(f"Run-to-run spread of the measurements (IQR / median, all cases of all runs): median "
               f"{pct(statistics.median(spreads))}, p90 {pct(quantile(spreads, 0.9))}.")
    out.append("")
    out.append("Files: " + ", ".join(f"`{os.path.basename(n)}`" for n in names) + f", `cases{tag}.csv`, `runs{tag}.csv`.")
    return "\n".join(out) + "\n"


def write_csv(docs, names, d, tag=""):
    with open(os.path.join(d, f"cases{tag}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "n", "change", "placement", "schedule", "steps", "messages", "moved_bytes",
                    "predicted_s", "measured_median_s", "min_s", "q25_s", "q75_s", "max_s", "relative_error",
                    "relative_iqr"])
        for i, doc in enumerate(docs):
            for c in doc["cases"]:
                r = c["runs_s"]
                w.writerow([i + 1, c["n"], c["change"], c["placement"], c["schedule"], c["steps"], c["messages"],
                            c["moved_bytes"], c["predicted_s"], c["measured_s"], min(r), quantile(r, 0.25),
                            quantile(r, 0.75), max(r), c["relative_error"], c["relative_iqr"]])
    with open(os.path.join(d, f"runs{tag}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "file", "date", "host", "ranks", "reps", "load_avg_end", "fit_rms",
                    "training_median", "training_p90", "training_max", "heldout_median", "heldout_p90",
                    "heldout_max", "heldout_cases"])
        for i, (doc, n) in enumerate(zip(docs, names)):
            h = stats([c["relative_error"] for c in doc["cases"]])
            t = doc.get("training") or {}
            cal = doc.get("calibration") or {}
            w.writerow([i + 1, os.path.basename(n), doc.get("date"), doc.get("host"), doc["ranks"], doc.get("reps"),
                        (doc.get("load_average_at_end") or [None])[0], cal.get("rms_redistribution_residual"),
                        t.get("median"), t.get("p90"), t.get("max"), h["median"], h["p90"], h["max"], h["cases"]])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="malleable-redist-bench cost --json files, one per run")
    ap.add_argument("--csv-dir", help="write cases.csv and runs.csv here")
    ap.add_argument("--section", help="write the markdown here instead of stdout")
    ap.add_argument("--tag", default="", help="suffix of the CSV names: cases<tag>.csv, runs<tag>.csv")
    a = ap.parse_args()
    docs = [json.load(open(p)) for p in a.runs]
    md = markdown(docs, a.runs, a.tag, cases_table=not a.csv_dir)
    if a.csv_dir:
        write_csv(docs, a.runs, a.csv_dir, a.tag)
    if a.section:
        open(a.section, "w").write(md)
    else:
        print(md, end="")


if __name__ == "__main__":
    main()
