#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Render slurm.sh adaptive's runs: summary.json, section.md, the trimmed run records and
the plot (Arefeen's (time adaptation) "dedicated / not adapted / adapted").

    adaptive_report.py RAW_DIR [--out docs/data/adaptive] [--img docs/img/adaptive_load.png]

RAW_DIR holds what slurm.sh adaptive wrote: meta.json, emu_<scenario>_<kind>_r<rep>.json,
real_<kind>.json and real_<kind>.events.json (kind: dedicated, fixed = not adapted,
adaptive = adapted). Everything printed is computed from those files.
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

KINDS = ("dedicated", "fixed", "adaptive")
LABEL = {"dedicated": "dedicated", "fixed": "not adapted", "adaptive": "adapted"}


def load(path):
    with open(path) as f:
        return json.load(f)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def parse_load(text):
    """'R@A-B:xF,...' -> [(rank, A, B, F)] (the driver's --load)."""
    out = []
    for item in filter(None, text.split(",")):
        m = re.fullmatch(r"(\d+)@(\d+)-(\d+):x([0-9.]+)", item)
        if not m:
            raise SystemExit(f"adaptive_report.py: cannot parse load {item!r}")
        out.append((int(m[1]), int(m[2]), int(m[3]), float(m[4])))
    return out


def regrids(run):
    return [r for r in run.get("resizes") or [] if r.get("action") == "regrid" and r.get("ok", True)]


def run_summary(run):
    its = run["iterations"]
    rs = run.get("resizes") or []
    t_resize = sum(r["t_total_s"] for r in rs if r.get("ok", True))
    wall = sum(s["wall_s"] for s in its)
    comp = sum(s["compute_s"] for s in its)
    last = its[-1]
    return {
        "iterations": len(its),
        "iter_wall_s": wall,
        "iter_compute_s": comp,
        "resize_s": t_resize,
        "total_wall_s": wall + t_resize,
        "total_compute_s": comp + t_resize,
        "regrids": len(regrids(run)),
        "final_grid": f'{last["grid"]["rows"]}x{last["grid"]["cols"]}',
        "final_procs": last["procs"],
        "check": run.get("check"),
    }


def events(run):
    out = []
    for r in regrids(run):
        p, m = r.get("predicted") or {}, r.get("measured") or {}
        why = p.get("reasoning") or ""
        out.append({
            "after_iteration": r["after_iteration"],
            "from": f'{r["from"]["rows"]}x{r["from"]["cols"]}',
            "to": f'{r["to"]["rows"]}x{r["to"]["cols"]}',
            "what": why.split(":", 1)[0],
            "clock": p.get("clock"),
            "predicted_cost_policy_s": p.get("policy_t_resize_s"),
            "predicted_cost_session_s": p.get("t_total_s"),
            "measured_cost_s": m.get("t_total_s"),
            "measured_redist_s": m.get("t_redist_s"),
            "measured_other_s": m.get("t_other_s"),
            "t_iteration_before_s": m.get("t_iteration_before_s"),
            "predicted_t_iteration_after_s": p.get("t_iteration_after_s"),
            "measured_t_iteration_after_s": m.get("t_iteration_after_s"),
            "reasoning": why,
        })
    return out


def power_series(run, rank):
    return {s["iteration"]: s["powers"][rank] for s in run["iterations"]
            if "powers" in s and rank < len(s["powers"])}


def follow(run, rank, first, last):
    """How many iterations of the new condition the measured power of `rank` needs to cross
    half-way between its level before (median of the 10 iterations before `first`) and its
    level during the load (median from first+5 to last): at the start (1 = already in the
    first loaded iteration) and after the end (1 = in the first iteration after `last`)."""
    p = power_series(run, rank)
    before = med([p.get(i) for i in range(max(1, first - 10), first)])
    during = med([p.get(i) for i in range(first + 5, last + 1)])
    if before is None or during is None:
        return None
    half = 0.5 * (before + during)
    start = next((i - first + 1 for i in sorted(p) if i >= first and p[i] < half), None)
    end = next((i - last for i in sorted(p) if i > last and p[i] > half), None)
    after = med([p.get(i) for i in range(last + 6, last + 16)])
    return {"rank": rank, "first_loaded": first, "last_loaded": last, "power_before": before,
            "power_during": during, "power_after": after, "half_way": half,
            "iterations_to_cross_at_start": start, "iterations_to_cross_at_end": end}


def rounded(x, digits=6):
    if isinstance(x, float):
        return float(f"{x:.{digits}g}")
    if isinstance(x, list):
        return [rounded(v, digits) for v in x]
    if isinstance(x, dict):
        return {k: rounded(v, digits) for k, v in x.items()}
    return x


def fmt_s(x, d=2):
    return "-" if x is None else f"{x:.{d}f}"


def fmt_ms(x):
    return "-" if x is None else f"{1e3 * x:.1f}"


def ratio(a, b):
    return None if a is None or not b else a / b


def fmt_r(x):
    return "-" if x is None else f"{x:.2f}"


# ---------------------------------------------------------------------------------------
def plot(img, meta, emu_runs, real_runs, real_events):
    if not shutil.which("gnuplot"):
        print("adaptive_report.py: gnuplot not installed, no plot", file=sys.stderr)
        return False
    tmp = tempfile.mkdtemp()
    panels = []
    for sc in meta["emulated"]["scenarios"]:
        runs = emu_runs.get(sc["name"], {})
        if all(k in runs for k in KINDS):
            spans = [(a, b) for _, a, b, _ in parse_load(sc["load"])]
            panels.append((f'emulated load: {sc["text"]} (repetition 1, compute clock)', runs, "compute_s", spans))
    if real_runs and all(k in real_runs for k in KINDS):
        ev = real_events.get("fixed", {})
        on, off = ev.get("quota_on_after_iteration"), ev.get("quota_off_after_iteration")
        spans = [(on + 1, off)] if on and off else []
        panels.append((f'real load: rank 1 under a {100 * meta["real"]["quota_us"] // meta["real"]["period_us"]}% '
                       f'CPU quota (cgroup), wall clock', real_runs, "wall_s", spans))
    if not panels:
        return False
    gp = [f"set terminal pngcairo size 1000,{330 * len(panels)} font 'DejaVu Sans,10' noenhanced",
          f"set output '{img}'", f"set multiplot layout {len(panels)},1",
          "set grid ytics lc rgb '#dddddd'", "set key top right", "set ylabel 'iteration time (ms)'",
          "set logscale y"]
    colors = {"dedicated": "#2ca02c", "fixed": "#d62728", "adaptive": "#1f77b4"}
    for k, (title, runs, field, spans) in enumerate(panels):
        files = {}
        for kind in KINDS:
            f = os.path.join(tmp, f"p{k}_{kind}.dat")
            with open(f, "w") as out:
                for s in runs[kind]["iterations"]:
                    out.write(f'{s["iteration"]} {1e3 * s[field]:.6f}\n')
            files[kind] = f
        gp.append("unset arrow; unset object; unset label")
        for j, (a, b) in enumerate(spans):
            gp.append(f"set object {j + 1} rect from {a - 0.5},graph 0 to {b + 0.5},graph 1 "
                      "fc rgb '#f3e0c0' fs solid 0.5 noborder behind")
        for j, r in enumerate(regrids(runs["adaptive"])):
            x = r["after_iteration"] + 0.5
            gp.append(f"set arrow {j + 1} from {x},graph 0 to {x},graph 1 nohead lc rgb '#1f77b4' dt 2")
        gp.append(f"set title '{title}; shaded: load; dashed: adaptation events'")
        gp.append("set xlabel 'iteration'" if k == len(panels) - 1 else "unset xlabel")
        gp.append("plot " + ", ".join(
            f"'{files[kind]}' using 1:2 with lines lw 1.5 lc rgb '{colors[kind]}' title '{LABEL[kind]}'"
            for kind in KINDS))
    gp.append("unset multiplot")
    script = os.path.join(tmp, "plot.gp")
    with open(script, "w") as f:
        f.write("\n".join(gp) + "\n")
    os.makedirs(os.path.dirname(os.path.abspath(img)), exist_ok=True)
    subprocess.run(["gnuplot", script], check=True)
    shutil.rmtree(tmp)
    return True


# ---------------------------------------------------------------------------------------
def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw")
    ap.add_argument("--out", default=os.path.join(root, "docs", "data", "adaptive"))
    ap.add_argument("--img", default=os.path.join(root, "docs", "img", "adaptive_load.png"))
    a = ap.parse_args()
    meta = load(os.path.join(a.raw, "meta.json"))
    la = os.path.join(a.raw, "loadavg_after.txt")
    if os.path.exists(la):
        meta["loadavg_after"] = json.loads("{" + open(la).read().strip() + "}")["loadavg_after"]
    os.makedirs(a.out, exist_ok=True)

    # Emulated load: every run, then per scenario the three kinds over the repetitions.
    emu = {}        # scenario -> rep -> kind -> run
    for f in sorted(glob.glob(os.path.join(a.raw, "emu_*_r*.json"))):
        m = re.fullmatch(r"emu_(.+)_(dedicated|fixed|adaptive)_r(\d+)\.json", os.path.basename(f))
        if m:
            emu.setdefault(m[1], {}).setdefault(int(m[3]), {})[m[2]] = load(f)
    summary = {"meta": meta, "emulated": {}, "real": None}
    for sc in meta["emulated"]["scenarios"]:
        name = sc["name"]
        reps = emu.get(name, {})
        loads = parse_load(sc["load"])
        runs, evs, follows, ratios = [], [], [], []
        for rep in sorted(reps):
            per = {}
            for kind in KINDS:
                if kind in reps[rep]:
                    s = run_summary(reps[rep][kind])
                    s.update(rep=rep, kind=kind)
                    runs.append(s)
                    per[kind] = s
            if "adaptive" in reps[rep]:
                for e in events(reps[rep]["adaptive"]):
                    e["rep"] = rep
                    evs.append(e)
            if "fixed" in reps[rep]:
                for rank, first, last, factor in loads:
                    fo = follow(reps[rep]["fixed"], rank, first, last)
                    if fo:
                        fo.update(rep=rep, factor=factor)
                        follows.append(fo)
            if all(k in per for k in KINDS):
                ratios.append({"rep": rep, **{
                    f"{clk}_{num}_over_{den}": ratio(per[num][f"total_{clk}_s"], per[den][f"total_{clk}_s"])
                    for clk in ("wall", "compute") for num, den in (("adaptive", "fixed"), ("adaptive", "dedicated"),
                                                                      ("fixed", "dedicated"))}})
        medians = {kind: {k: med([r[k] for r in runs if r["kind"] == kind])
                          for k in ("total_wall_s", "total_compute_s", "resize_s", "regrids")} for kind in KINDS}
        med_ratios = {k: med([r[k] for r in ratios]) for k in (ratios[0] if ratios else {}) if k != "rep"}
        summary["emulated"][name] = {"load": sc["load"], "text": sc["text"], "runs": runs, "medians": medians,
                                     "ratios": ratios, "median_ratios": med_ratios, "events": evs,
                                     "estimator_follow": follows}

    # Real load.
    real, real_ev = {}, {}
    for kind in KINDS:
        f = os.path.join(a.raw, f"real_{kind}.json")
        if os.path.exists(f):
            real[kind] = load(f)
            ef = os.path.join(a.raw, f"real_{kind}.events.json")
            real_ev[kind] = load(ef) if os.path.exists(ef) else {}
    if real:
        rr = {}
        for kind, run in real.items():
            s = run_summary(run)
            s.update(real_ev.get(kind, {}))
            rr[kind] = s
        follows = []
        for kind in ("fixed", "adaptive"):
            ev = real_ev.get(kind, {})
            on, off = ev.get("quota_on_after_iteration"), ev.get("quota_off_after_iteration")
            if kind in real and on and off:
                fo = follow(real[kind], 1, on + 1, off)
                if fo:
                    fo["run"] = kind
                    follows.append(fo)
        rat = {f"{clk}_{num}_over_{den}": ratio(rr[num][f"total_{clk}_s"], rr[den][f"total_{clk}_s"])
               for clk in ("wall", "compute") for num, den in (("adaptive", "fixed"), ("adaptive", "dedicated"),
                                                                 ("fixed", "dedicated"))
               if num in rr and den in rr}
        summary["real"] = {"runs": rr, "ratios": rat,
                           "events": events(real["adaptive"]) if "adaptive" in real else [],
                           "estimator_follow": follows}

    # Trimmed run records: repetition 1 of every emulated kind, and the real runs.
    for name, reps in emu.items():
        for kind, run in reps.get(1, {}).items():
            with open(os.path.join(a.out, f"emu_{name}_{kind}.json"), "w") as f:
                json.dump(rounded(run), f, separators=(",", ":"))
    for kind, run in real.items():
        run = dict(run, quota=real_ev.get(kind))
        with open(os.path.join(a.out, f"real_{kind}.json"), "w") as f:
            json.dump(rounded(run), f, separators=(",", ":"))
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(rounded(summary), f, indent=1)
        f.write("\n")

    have_plot = plot(a.img, meta, {n: r.get(1, {}) for n, r in emu.items()}, real, real_ev)
    md = render(summary, have_plot, a.img)
    with open(os.path.join(a.out, "section.md"), "w") as f:
        f.write(md)
    print(md)


def render(S, have_plot, img):
    M = S["meta"]
    E = M["emulated"]
    L = []
    w = L.append
    w("## Adapting to load while running")
    w("")
    w(f"Generated by `scripts/bench/slurm.sh adaptive` (data: `docs/data/adaptive/`, rendered by "
      f"`scripts/bench/adaptive_report.py`) on {M['date']}, host `{M['host']}`: {M['cores']} cores "
      f"({M['cpu']}), Linux {M['kernel']}, {M['mpi']}, source `{M['commit']}`"
      f"{', **quick mode**' if M['quick'] else ''}. Load average of the machine before / after the "
      f"runs: {M['loadavg_before']} / {M.get('loadavg_after', '?')} (other jobs shared the machine). "
      f"Redistribution cost model: {'`' + M['cost_model'] + '`' if M['cost_model'] else 'none (uncalibrated: the policy predicts moved bytes at 1 GB/s, later regrids of the same run from its in-memory resize history)'}.")
    w("")
    w("Arefeen's comparison (time adaptation, 2005) with the heterogeneous Life driver (`life_hetero_resizable`) and measured "
      "powers: *dedicated* (no load, `--policy fixed`), *not adapted* (the load, `--policy fixed`), "
      "*adapted* (the load, `--policy adaptive`: re-weight the blocks, re-map the grid, drop or take "
      "back a process when the predicted gain over the remaining iterations exceeds the predicted cost).")
    w("")
    w("### Emulated load")
    w("")
    w(f"{E['procs']} ranks on a {E['grid']} grid, N = {E['n']}, {E['iterations']} iterations, "
      f"{E['base_reps']} updates per generation; the load makes a rank do F times the updates. "
      f"{M['reps']} repetition(s), the three runs back to back in each. Command: "
      f"`{E['mpiexec']} life_hetero_resizable {E['args']} --policy fixed|adaptive [--load LOAD]`.")
    w("")
    w(f"**The {E['procs']} ranks share {M['cores']} cores**: the wall clock of an iteration includes "
      "time-sharing with the other ranks (and any other job on the machine); the *compute* clock "
      "(`--meter-kernels`: per iteration the slowest rank's own kernel time) estimates the iteration on "
      "dedicated cores, and it is the clock the policy and the speed estimate (`--speed-clock cpu`) use. "
      "Totals are the sum of the iteration times plus the measured resize times (wall clock, also "
      "added to the compute total).")
    w("")
    w("| scenario | run | total wall s (median) | total compute s (median) | adaptation events | resize time s |")
    w("|---|---|---|---|---|---|")
    for name, sc in S["emulated"].items():
        for kind in KINDS:
            m = sc["medians"][kind]
            evs = [r["regrids"] for r in sc["runs"] if r["kind"] == kind]
            w(f"| {sc['text']} | {LABEL[kind]} | {fmt_s(m['total_wall_s'])} | {fmt_s(m['total_compute_s'])} | "
              f"{', '.join(str(x) for x in evs)} | {fmt_s(m['resize_s'], 3)} |")
    w("")
    w("Ratios (median over the repetitions of each repetition's ratio; below 1: adapted is faster):")
    w("")
    w("| scenario | adapted / not adapted, wall | adapted / not adapted, compute | adapted / dedicated, wall | "
      "adapted / dedicated, compute | not adapted / dedicated, compute |")
    w("|---|---|---|---|---|---|")
    for name, sc in S["emulated"].items():
        r = sc["median_ratios"]
        per = "; ".join(fmt_r(x["compute_adaptive_over_fixed"]) for x in sc["ratios"])
        w(f"| {sc['text']} | {fmt_r(r.get('wall_adaptive_over_fixed'))} | "
          f"{fmt_r(r.get('compute_adaptive_over_fixed'))} (each: {per}) | {fmt_r(r.get('wall_adaptive_over_dedicated'))} | "
          f"{fmt_r(r.get('compute_adaptive_over_dedicated'))} | {fmt_r(r.get('compute_fixed_over_dedicated'))} |")
    w("")
    w("Every adaptation event of the adapted runs: predicted cost (the policy's, used for the decision; "
      "the session's own prediction beside it) against the measured resize time, and the iteration "
      "time after it, predicted against measured (compute clock, median of the iterations after).")
    w("")
    w("| scenario | rep | after iteration | change | what | predicted cost ms (policy / session) | measured cost ms | "
      "iteration before ms | after: predicted ms | after: measured ms |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for name, sc in S["emulated"].items():
        for e in sc["events"]:
            w(f"| {name} | {e['rep']} | {e['after_iteration']} | {e['from']} -> {e['to']} | {e['what']} | "
              f"{fmt_ms(e['predicted_cost_policy_s'])} / {fmt_ms(e['predicted_cost_session_s'])} | "
              f"{fmt_ms(e['measured_cost_s'])} | {fmt_ms(e['t_iteration_before_s'])} | "
              f"{fmt_ms(e['predicted_t_iteration_after_s'])} | {fmt_ms(e['measured_t_iteration_after_s'])} |")
    w("")
    w("### The speed estimate follows the load (§1)")
    w("")
    w("From the not-adapted runs (nothing moves): the loaded rank's measured power (its speed relative to "
      "the fastest rank) before, during and after the load, and how many iterations of the new condition "
      "it took to cross half-way between the levels before and during the load (1: the first iteration "
      "of the change already shows it).")
    w("")
    w("| scenario | rep | rank | power before | during | after | iterations to cross at the start | at the end |")
    w("|---|---|---|---|---|---|---|---|")
    for name, sc in S["emulated"].items():
        for fo in sc["estimator_follow"]:
            w(f"| {name} (x{fo['factor']:g}) | {fo['rep']} | {fo['rank']} | {fmt_s(fo['power_before'])} | "
              f"{fmt_s(fo['power_during'])} | {fmt_s(fo['power_after'])} | {fo['iterations_to_cross_at_start']} | "
              f"{fo['iterations_to_cross_at_end']} |")
    R = S.get("real")
    Rm = M["real"]
    if R:
        w("")
        w("### Real load: a CPU quota on one process (cgroup)")
        w("")
        w(f"{Rm['procs']} ranks on {Rm['grid']} (one per core), N = {Rm['n']}, {Rm['iterations']} iterations, "
          f"{Rm['base_reps']} updates per generation, speeds and the policy on the **wall clock** "
          f"(`--speed-clock wall --adapt-clock wall`). World rank 1 is put into a cgroup v1 `cpu` group "
          f"at its first progress line; when rank 0 reports iteration {Rm['quota_on_after']} its quota is set to "
          f"{Rm['quota_us']} us per {Rm['period_us']} us ({100 * Rm['quota_us'] // Rm['period_us']}% of a core), "
          f"at iteration {Rm['quota_off_after']} lifted (-1). The dedicated run gets no quota. "
          f"Command: `{Rm['mpiexec']} life_hetero_resizable {Rm['args']} --policy fixed|adaptive`.")
        w("")
        w("| run | quota on / off after iteration | total wall s | total compute s | adaptation events | resize time s | final grid |")
        w("|---|---|---|---|---|---|---|")
        for kind in KINDS:
            r = R["runs"].get(kind)
            if r:
                w(f"| {LABEL[kind]} | {r.get('quota_on_after_iteration') or '-'} / {r.get('quota_off_after_iteration') or '-'} | "
                  f"{fmt_s(r['total_wall_s'])} | {fmt_s(r['total_compute_s'])} | {r['regrids']} | {fmt_s(r['resize_s'], 3)} | "
                  f"{r['final_grid']} |")
        rt = R["ratios"]
        w("")
        w(f"Ratios (one run each): adapted / not adapted {fmt_r(rt.get('wall_adaptive_over_fixed'))} (wall), "
          f"{fmt_r(rt.get('compute_adaptive_over_fixed'))} (compute); adapted / dedicated "
          f"{fmt_r(rt.get('wall_adaptive_over_dedicated'))} (wall), {fmt_r(rt.get('compute_adaptive_over_dedicated'))} (compute); "
          f"not adapted / dedicated {fmt_r(rt.get('wall_fixed_over_dedicated'))} (wall).")
        w("")
        w("| run | rank | power before | during | after | iterations to cross at the start | at the end |")
        w("|---|---|---|---|---|---|---|")
        for fo in R["estimator_follow"]:
            w(f"| {LABEL[fo['run']]} | {fo['rank']} | {fmt_s(fo['power_before'])} | {fmt_s(fo['power_during'])} | "
              f"{fmt_s(fo['power_after'])} | {fo['iterations_to_cross_at_start']} | {fo['iterations_to_cross_at_end']} |")
        if R["events"]:
            w("")
            w("Adaptation events of the adapted run (wall clock):")
            w("")
            w("| after iteration | change | what | predicted cost ms (policy / session) | measured cost ms | "
              "iteration before ms | after: predicted ms | after: measured ms |")
            w("|---|---|---|---|---|---|---|---|")
            for e in R["events"]:
                w(f"| {e['after_iteration']} | {e['from']} -> {e['to']} | {e['what']} | "
                  f"{fmt_ms(e['predicted_cost_policy_s'])} / {fmt_ms(e['predicted_cost_session_s'])} | "
                  f"{fmt_ms(e['measured_cost_s'])} | {fmt_ms(e['t_iteration_before_s'])} | "
                  f"{fmt_ms(e['predicted_t_iteration_after_s'])} | {fmt_ms(e['measured_t_iteration_after_s'])} |")
    if have_plot:
        w("")
        w(f"![per-iteration times: dedicated, not adapted, adapted](../../img/{os.path.basename(img)})")  # from docs/data/adaptive/
    w("")
    w("Remarks (computed from the same runs):")
    w("")
    for line in remarks(S):
        w(f"- {line}")
    return "\n".join(L) + "\n"


def spread(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else (None, None)


def remarks(S):
    M = S["meta"]
    out = []
    for name, sc in S["emulated"].items():
        d = [r for r in sc["runs"] if r["kind"] == "dedicated"]
        lo_w, hi_w = spread([r["total_wall_s"] for r in d])
        lo_c, hi_c = spread([r["total_compute_s"] for r in d])
        tw = med([r["total_wall_s"] / r["total_compute_s"] for r in d if r["total_compute_s"]])
        if d:
            out.append(f"{sc['text']}: the dedicated runs took {fmt_s(lo_w)}-{fmt_s(hi_w)} s on the wall clock but "
                       f"{fmt_s(lo_c)}-{fmt_s(hi_c)} s on the compute clock over the repetitions; wall / compute "
                       f"= {fmt_r(tw)} (median): {M['emulated']['procs']} ranks time-share {M['cores']} cores, wait "
                       "for each other in the halo exchange and share the machine with whatever else runs, so the "
                       "wall-clock ratios are noisy and the compute-clock ones are the measure of the adaptation.")
        evs = sc["events"]
        errs = [abs(e["measured_t_iteration_after_s"] / e["predicted_t_iteration_after_s"] - 1) for e in evs
                if e["measured_t_iteration_after_s"] and e["predicted_t_iteration_after_s"]]
        costs = [e["measured_cost_s"] / e["predicted_cost_policy_s"] for e in evs
                 if e["measured_cost_s"] and e["predicted_cost_policy_s"]]
        if evs:
            out.append(f"{name}: over the {len(evs)} adaptation events the predicted iteration time after the event "
                       f"was off by {100 * med(errs):.0f}% (median; largest {100 * max(errs):.0f}%); measured / "
                       f"predicted cost {fmt_r(med(costs))} (median; {fmt_r(min(costs))}-{fmt_r(max(costs))}). "
                       f"Each event cost {fmt_ms(med([e['measured_cost_s'] for e in evs]))} ms (median) against "
                       f"iterations of {fmt_ms(med([e['t_iteration_before_s'] for e in evs]))} ms.")
        ad = [r for r in sc["runs"] if r["kind"] == "adaptive"]
        start = f"{M['emulated']['grid']}"
        moved = [r["final_grid"] for r in ad if r["final_grid"] != start]
        if moved:
            out.append(f"{name}: {len(moved)} of the {len(ad)} adapted runs ended on {', '.join(sorted(set(moved)))}, "
                       f"not on the {start} they started on: "
                       "the policy predicts a grid from compute time alone, and with the powers equal again "
                       "the re-weighted grid it is on predicts the same time as the original shape, so it does "
                       "not re-map back (communication differences between shapes are not modelled).")
    R = S.get("real")
    if R and "adaptive" in R["runs"]:
        r = R["runs"]["adaptive"]
        on = r.get("quota_on_after_iteration") or 0
        early = [e for e in R["events"] if e["after_iteration"] <= on]
        out.append(f"Real load: on the wall clock, with {M['cores']} cores shared with other jobs (load average "
                   f"{M['loadavg_before']} before), the adapted run regridded {r['regrids']} times, {len(early)} of "
                   f"them before the quota was set: the estimate follows whatever load the other jobs put on the "
                   "ranks too, and a one-run comparison on this machine says little about the gain; the estimator "
                   "table is the evidence asked for in §1 here.")
    return out


if __name__ == "__main__":
    main()
