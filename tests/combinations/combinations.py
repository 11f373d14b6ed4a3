#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The combination suite's cases: a pairwise covering array over the library's dimensions.

README
======
Every feature of malleable has its own tests; this suite tries them *together*, as a user
would. Each case is one run of one program with one value of every dimension,
checked against the program's serial oracle (the drivers' and examples' own check line
against OpenBLAS/LAPACKE/a serial Life; the user programs' closed-form running sum).

Dimensions (value names as in tests/combinations/cases.txt):
  mech      resize mechanism     spawn (MPI_Comm_spawn in place), restart (checkpoint,
                                 exit 4, malleable-run relaunches), none (-p fixed)
  dir       direction            expand (2x2 -> 3x2), shrink (2x3 -> 2x2; the examples
                                 2x2 -> 1x2), both (2x2 -> 3x2 -> 2x2); "-" with mech none
  bg        background resize    off, wait, continue (--background; A marked constant)
  ckpt      checkpoint           none, global (HDF5 file every iteration), local, partner
                                 (levels every iteration, 2 emulated nodes), global+partner
  fault     injected fault       none, kill (one process SIGKILLed in iteration 3),
                                 newcomer (RESIZE_FAULT=kill-newcomer[-background]),
                                 full (the checkpoint directory a 64 KiB tmpfs: root only)
  mover     data mover           redist, pdgemr2d
  type      element type         s, d, c, z
  api       programming API      cxx, c, fortran
  launcher  launcher             mpiexec, malleable-run (malleable-run)
  mpi       MPI                  openmpi, mpich (the MPICH build, label mpich)
  prog      program              pdgemm, pdgemv, pdgetrf, life (the drivers), pdgemm_c,
                                 pdgemv_fortran (examples), porting_cxx, porting_c,
                                 porting_f (apps/examples/porting), user_cxx, user_c (the
                                 running-sum program built against the installed prefix,
                                 tests/combinations/user)

Constraints (CONSTRAINTS below; each a rule over a few dimensions, checked on partial cases):
  - api is the program's language; element types other than d only in the user programs
    (the drivers, examples and porting programs are double precision).
  - mech none <=> dir "-"; without a resize no background and no newcomer.
  - mech restart: drivers only, a global checkpoint (global or global+partner), launched
    by malleable-run (exit 4 means "relaunch me"), background off (a resize by restart
    has no background phase: asking for both is refused, see the refusal cases).
  - checkpoints (any level): the drivers only (the examples have no checkpoint options).
  - fault newcomer: spawn and an expansion; fault full: some checkpoint.
  - background: drivers and user programs (off/wait/continue), pdgemm_c and
    pdgemv_fortran (off/wait: their "background" argument), porting programs off.
  - mover pdgemr2d: every program but porting_cxx (the C++ Session takes no RESIZE_MOVER).
  - mpi mpich (Debian 12's MPICH cannot MPI_Comm_spawn): mech none or restart, no fault,
    drivers only, registered in the MPICH build only (label combinations_mpich).

Cases: the seeds first (SEEDS: the combinations users reported broken, since a
pairwise array need not hold a given triple), then the Open MPI array covers every pair of values of the other ten dimensions that
some valid case holds (allpairspy, Debian's python3-allpairspy, over the values in an
order shuffled by SEED; pairs it leaves out under the constraints are added by a greedy
step that picks the valid case covering the most missing pairs); the MPICH cases then
cover every allowed pair (mpi=mpich, X). tests/combinations/cases.txt is committed (so a
change of the array shows in review, and configuring needs no generator);
test_combinations.py checks that it equals this script's output, that every allowed
pair is covered and that no case breaks a constraint. Refusal cases (REFUSALS) ask a
program for an impossible combination and check its exit status and message; control
cases (CONTROLS) make a user program lose its newcomers' state on purpose and check that
its check fails.
`--full N` writes N seeded random valid cases (label combinations_full;bench).

What the cases found:
  - 01_pdgemm_spawn_expand_global and 05_pdgemv_spawn_expand_global_kill_mrun hung until
    their 150 s deadline (a global checkpoint after a spawn expansion, §1), and
    02_pdgemm_spawn_expand_local aborted in MPI_Comm_split_type with MPI_ERR_TRUNCATE
    (levels after a spawn, §2): both fixed in blacs-dyn and the levels (branch h42a,
    merged), the cases pass since;
  - 06_pdgemv_spawn_both_bgwait_gp_gemr2d hung again, about once in 20 runs under load
    (and in a fresh-clone CI): the background shrink's helper thread duplicated the world
    (MPI_Comm_dup, a collective) while the main thread split the same world for the
    checkpoint levels; the duplicate is now made on the main thread before the helper
    starts (0 hangs in 40 runs under the same load);
  - a resize by restart asked together with a background mode was silently run without
    the background: now a usage error (apps/drivers/driver.cpp, case 71);
  - pdgemm_c / pdgemv_fortran ran an unknown mode argument as the blocking default: now
    refused with status 2 (cases 74, 75);
  - the C API had no state hand-over for a program's own bytes (the C user program could
    not keep its running sum): resize_set_app_state;
  - a relaunch that restarts from the last iteration's checkpoint runs no iteration (case
    36: a newcomer killed in a background expansion ends the job only after its last
    checkpoint): the runner reads the last iteration from the restart line too.
  - the kill of a program without the drivers' pause hook raced with its end (case 61:
    the process chosen had left in a shrink, the job ended 0): the hook
    RESIZE_FAULT=pause-in-iteration moved from the drivers into the session
    (Session::end_iteration), so every program holds still where the kill lands.
  - with RESIZE_RECONFIGURE=respawn (RESPAWNS, key reconf): a shrink by respawn whose
    newcomer stalled hung until blacs-dyn's 180 s join timeout (a respawn spawns for a
    shrink too: it now has the expansion's fallback), and a completed respawn left the
    fallback's marker, so a later kill relaunched from the state before the expansion
    (case 100).
  The MPICH cases are generated and registered in the MPICH build only (label
  combinations_mpich, with bench: they have not been run yet).
  The controls (78, 79) fail as they must: newcomers refilling their data (the porting
  guide's old pattern, §3) end with a running sum of 267190 against 287935.
"""
import argparse
import itertools
import random
import sys

SEED = 42

DIMENSIONS = [
    ("prog", ["pdgemm", "pdgemv", "pdgetrf", "life", "pdgemm_c", "pdgemv_fortran",
              "porting_cxx", "porting_c", "porting_f", "user_cxx", "user_c"]),
    ("ckpt", ["none", "global", "local", "partner", "global+partner"]),
    ("fault", ["none", "kill", "newcomer", "full"]),
    ("type", ["s", "d", "c", "z"]),
    ("mech", ["spawn", "restart", "none"]),
    ("dir", ["expand", "shrink", "both", "-"]),
    ("bg", ["off", "wait", "continue"]),
    ("api", ["cxx", "c", "fortran"]),
    ("mover", ["redist", "pdgemr2d"]),
    ("launcher", ["mpiexec", "malleable-run"]),
]
NAMES = [d for d, _ in DIMENSIONS]
DRIVERS = {"pdgemm", "pdgemv", "pdgetrf", "life"}
USER = {"user_cxx", "user_c"}
API = {"pdgemm": "cxx", "pdgemv": "cxx", "pdgetrf": "cxx", "life": "cxx", "pdgemm_c": "c",
       "pdgemv_fortran": "fortran", "porting_cxx": "cxx", "porting_c": "c", "porting_f": "fortran",
       "user_cxx": "cxx", "user_c": "c"}
BACKGROUND = {p: {"off", "wait", "continue"} for p in DRIVERS | USER}
BACKGROUND.update({"pdgemm_c": {"off", "wait"}, "pdgemv_fortran": {"off", "wait"},
                   "porting_cxx": {"off"}, "porting_c": {"off"}, "porting_f": {"off"}})


def _rule(keys, ok, why):
    return (tuple(keys), ok, why)


# Each rule: the dimensions it reads, a predicate over them, and what it says.
CONSTRAINTS = [
    _rule(["prog", "api"], lambda c: API[c["prog"]] == c["api"], "api is the program's language"),
    _rule(["prog", "type"], lambda c: c["type"] == "d" or c["prog"] in USER,
          "only the user programs take other element types than d"),
    _rule(["mech", "dir"], lambda c: (c["mech"] == "none") == (c["dir"] == "-"), "direction iff a resize"),
    _rule(["mech", "bg"], lambda c: c["mech"] != "none" or c["bg"] == "off", "no background without a resize"),
    _rule(["mech", "prog"], lambda c: c["mech"] != "restart" or c["prog"] in DRIVERS,
          "resize by restart: the drivers"),
    _rule(["mech", "ckpt"], lambda c: c["mech"] != "restart" or c["ckpt"] in ("global", "global+partner"),
          "resize by restart needs a global checkpoint"),
    _rule(["mech", "launcher"], lambda c: c["mech"] != "restart" or c["launcher"] == "malleable-run",
          "resize by restart is relaunched by malleable-run"),
    _rule(["mech", "bg"], lambda c: c["mech"] != "restart" or c["bg"] == "off",
          "a resize by restart has no background phase (refusal case)"),
    _rule(["ckpt", "prog"], lambda c: c["ckpt"] == "none" or c["prog"] in DRIVERS, "checkpoints: the drivers"),
    _rule(["fault", "mech"], lambda c: c["fault"] != "newcomer" or c["mech"] == "spawn", "a newcomer needs spawn"),
    _rule(["fault", "dir"], lambda c: c["fault"] != "newcomer" or c["dir"] in ("expand", "both"),
          "a newcomer needs an expansion"),
    _rule(["fault", "ckpt"], lambda c: c["fault"] != "full" or c["ckpt"] != "none",
          "a full checkpoint directory needs a checkpoint"),
    _rule(["bg", "prog"], lambda c: c["bg"] in BACKGROUND[c["prog"]], "the program's background modes"),
    _rule(["mover", "prog"], lambda c: c["mover"] == "redist" or c["prog"] != "porting_cxx",
          "porting_cxx has no mover choice"),
]
MPICH_RULES = [  # for cases with mpi=mpich, on top of CONSTRAINTS
    _rule(["mech"], lambda c: c["mech"] in ("none", "restart"), "MPICH cannot spawn here"),
    _rule(["fault"], lambda c: c["fault"] == "none", "MPICH cases: no fault"),
    _rule(["prog"], lambda c: c["prog"] in DRIVERS, "MPICH cases: the drivers"),
]


def violations(case, rules=CONSTRAINTS):
    """The rules a (partial) case breaks: only rules whose dimensions are all given."""
    return [why for keys, ok, why in rules if all(k in case for k in keys) and not ok(case)]


def valid(case, mpi="openmpi"):
    return not violations(case) and (mpi != "mpich" or not violations(case, MPICH_RULES))


_VALID = {}


def valid_cases(mpi="openmpi"):
    """Every valid full case, by backtracking over the dimensions in order (a fresh copy)."""
    if mpi not in _VALID:
        _VALID[mpi] = _enumerate(mpi)
    return [dict(c) for c in _VALID[mpi]]


def _enumerate(mpi):
    out = []

    def walk(i, case):
        if i == len(DIMENSIONS):
            out.append(dict(case))
            return
        name, values = DIMENSIONS[i]
        for v in values:
            case[name] = v
            if valid(case, mpi):
                walk(i + 1, case)
            del case[name]

    walk(0, {})
    return out


def pairs_of(case):
    return {((a, case[a]), (b, case[b])) for a, b in itertools.combinations(NAMES, 2)}


def allowed_pairs(cases):
    out = set()
    for c in cases:
        out |= pairs_of(c)
    return out


def greedy_top_up(chosen, space, rng):
    """Adds cases from `space` until every pair some case of `space` holds is covered."""
    missing = allowed_pairs(space) - allowed_pairs(chosen)
    added = []
    order = list(range(len(space)))
    rng.shuffle(order)
    while missing:
        best = max(order, key=lambda k: len(pairs_of(space[k]) & missing))
        added.append(space[best])
        missing -= pairs_of(space[best])
    return added


def all_pairs_class():
    """allpairspy's AllPairs (Debian's python3-allpairspy), imported when needed."""
    try:
        from allpairspy import AllPairs
    except ImportError:  # an interpreter other than Debian's python3 (e.g. pyenv)
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            from allpairspy import AllPairs
        except ImportError:
            sys.exit("combinations.py: needs Debian's python3-allpairspy (apt-get install python3-allpairspy)")
    return AllPairs


def _case(**kv):
    base = dict(type="d", bg="off", fault="none", mover="redist", launcher="mpiexec", ckpt="none")
    base.update(kv)
    base["api"] = API[base["prog"]]
    return base


# Cases every array holds, first: the combinations users reported broken (a pairwise
# array need not hold a given triple). The generator covers the remaining pairs.
SEEDS = [
    _case(prog="pdgemm", mech="spawn", dir="expand", ckpt="global"),      # 1: global checkpoint after a spawn
    _case(prog="pdgemm", mech="spawn", dir="expand", ckpt="local"),       # 2: levels after a spawn
    _case(prog="user_cxx", mech="spawn", dir="both"),                     # 3: newcomers' state
    _case(prog="user_c", mech="spawn", dir="both", type="z"),             # 3, in C
    _case(prog="pdgemv", mech="spawn", dir="expand", ckpt="global", fault="kill",
          launcher="malleable-run"),                                      # recovery from a checkpoint after a spawn
    _case(prog="pdgemv", mech="spawn", dir="both", bg="wait",
          ckpt="global+partner", mover="pdgemr2d"),                       # a background shrink begun where a
                                                                          # background expansion completed hung
]


def openmpi_cases(seed=SEED):
    """(the seeds and allpairspy's cases, the cases added to cover pairs they left out)."""
    AllPairs = all_pairs_class()
    rng = random.Random(seed)
    dims = [(n, rng.sample(v, len(v))) for n, v in DIMENSIONS]
    order = [n for n, _ in dims]

    def ok(values):
        return valid(dict(zip(order, values)))

    seeds = [dict(s) for s in SEEDS]
    tested = [[s[n] for n in order] for s in seeds]
    cases = seeds + [dict(zip(order, c)) for c in AllPairs([v for _, v in dims], filter_func=ok,
                                                           previously_tested=tested)]
    space = valid_cases()
    return cases, greedy_top_up(cases, space, rng)


def mpich_cases(seed=SEED):
    """Cases with mpi=mpich covering every allowed pair (mpich, X=x)."""
    rng = random.Random(seed + 1)
    space = valid_cases("mpich")
    rng.shuffle(space)
    want = {(n, c[n]) for c in space for n in NAMES}
    out = []
    while want:
        best = max(space, key=lambda c: len({(n, c[n]) for n in NAMES} & want))
        out.append(best)
        want -= {(n, best[n]) for n in NAMES}
    return out


def short_name(c):
    parts = [c["prog"], c["mech"]]
    if c["dir"] != "-":
        parts.append(c["dir"])
    if c["bg"] != "off":
        parts.append("bg" + c["bg"])
    if c["ckpt"] != "none":
        parts.append(c["ckpt"].replace("global+partner", "gp"))
    if c["fault"] != "none":
        parts.append(c["fault"])
    if c["type"] != "d":
        parts.append(c["type"])
    if c["mover"] != "redist":
        parts.append("gemr2d")
    if c["launcher"] != "mpiexec":
        parts.append("mrun")
    if c.get("mpi", "openmpi") != "openmpi":
        parts.append(c["mpi"])
    return "_".join(parts).replace("+", "")


# Impossible combinations asked on the command line: the program must refuse them with
# the exit status and a message matching the pattern (on rank 0 at least).
# (name, program, arguments ({ck}: a scratch directory), expected status, regex)
REFUSALS = [
    ("restart_without_checkpoint", "pdgemm", "-p scripted -s 2:expand:3x2 --mechanism restart", 2,
     r"restart needs --checkpoint DIR"),
    ("restart_with_background", "pdgemv",
     "-p scripted -s 2:expand:3x2 --mechanism restart --checkpoint {ck} --background wait --constant A", 2,
     r"--background.*resize by restart|resize by restart.*--background"),
    ("every_without_checkpoint", "life", "--checkpoint-every 2", 2, r"needs --checkpoint DIR"),
    ("driver_element_type", "pdgetrf", "--type s", 2, r"--type"),
    ("example_c_background_continue", "pdgemm_c", "120 4 2:expand:3x2 background-continue", 2,
     r"background-continue.*(unknown|not a mode)|(unknown|not a mode).*background-continue"),
    ("example_f_background_continue", "pdgemv_fortran", "120 4 2:expand:3x2 continue", 2,
     r"continue.*(unknown|not a mode)|(unknown|not a mode).*continue"),
    ("user_unknown_type", "user_c", "--type q", 2, r"type.*q"),
    ("user_cxx_unknown_background", "user_cxx", "--background later", 2, r"background.*later"),
]


# Controls: a user program made to lose its newcomers' state on purpose (a porting
# mistake: newcomers refill the data they received; or they forget the running sum): the
# check must fail (status 1, FAILED), so a case that passes is not one that cannot fail.
CONTROLS = [
    ("user_cxx_newcomers_refill", "user_cxx", "--schedule 2:expand:3x2 --newcomer-mistake refill", 1,
     r"on every process: FAILED"),
    ("user_c_newcomers_forget", "user_c", "--schedule 2:expand:3x2 --type c --newcomer-mistake forget", 1,
     r"on every process: FAILED"),
]


# The expansion fallback (docs/guide/checkpoint.md, "When a spawn does not complete"): the
# last newcomer of the expansion stalls before its MPI_Init (fault "stall":
# BLACS_DYN_FAULT=stall-newcomer-in-init), the spawn's deadline (RESIZE_SPAWN_DEADLINE=5)
# passes and the job resizes by restart under malleable-run (mechanism spawn, a global
# checkpoint directory: the fallback's preconditions). Not a value of the pairwise array's
# fault dimension (it holds only with all of those); these cases cover every pair of
# background x checkpoint (the global file, or levels: the fallback then secures the state
# in the local level) x direction ("both": a shrink in place after the relaunch), spread
# over the drivers; life has nothing constant, so its background request runs blocking.
FALLBACKS = [
    dict(prog="pdgemm", bg="off", ckpt="global", dir="expand"),
    dict(prog="pdgemv", bg="off", ckpt="global+partner", dir="both"),
    dict(prog="pdgetrf", bg="wait", ckpt="global", dir="both"),
    dict(prog="pdgemm", bg="wait", ckpt="global+partner", dir="expand"),
    dict(prog="pdgemv", bg="continue", ckpt="global", dir="expand"),
    dict(prog="pdgemm", bg="continue", ckpt="global+partner", dir="both"),
    dict(prog="life", bg="continue", ckpt="global", dir="both"),
]


def fallback_cases():
    return [_case(mech="spawn", fault="stall", launcher="malleable-run", **f) for f in FALLBACKS]


# The refresh (docs/guide/checkpoint.md, "The refresh: Open MPI's memory bounded over long
# runs"): with RESIZE_REFRESH_AFTER=1 (fault "refresh") the expansion of 2 processes would
# take the launch past 1 spawned process, so it is carried out by restart under
# malleable-run, and a shrink after it ("both") in place. Its preconditions are the
# fallback's (mechanism spawn, a checkpoint directory, the launcher), so the same layout
# covers every pair of background x checkpoint x direction over the drivers.
def refresh_cases():
    return [_case(mech="spawn", fault="refresh", launcher="malleable-run", **f) for f in FALLBACKS]


# The respawn reconfiguration (docs/reference/apps.md, "Merge or respawn"): the same runs
# with RESIZE_RECONFIGURE=respawn (key reconf; the other cases leave the variable unset,
# RESIZE_RECONFIGURE's default). Every resize spawns its whole grid and the old processes
# end; run_case.py checks that each resize line says "reconfigured by respawn" and, where
# the program resizes in the background, that the respawn was carried out blocking. Not a
# dimension of the pairwise array (it holds only with mechanism spawn): these cases pair
# respawn with every program, checkpoint, background mode, direction, fault (a kill
# recovered by malleable-run, a newcomer killed, the fallback's stalled spawn, the
# refresh), mover, launcher and a few element types.
RESPAWNS = [
    dict(prog="pdgemm", ckpt="global", dir="both"),
    dict(prog="pdgemv", ckpt="local", bg="wait", dir="expand", mover="pdgemr2d"),
    dict(prog="pdgetrf", ckpt="partner", bg="continue", dir="shrink"),
    dict(prog="life", ckpt="global+partner", dir="expand", fault="kill", launcher="malleable-run"),
    dict(prog="pdgemm_c", bg="wait", dir="both", mover="pdgemr2d"),
    dict(prog="pdgemv_fortran", dir="shrink"),
    dict(prog="user_c", bg="continue", dir="both", type="z"),
    dict(prog="user_cxx", bg="wait", dir="expand", type="s", mover="pdgemr2d", fault="newcomer"),
    dict(prog="porting_c", dir="both", mover="pdgemr2d"),
    dict(prog="pdgemv", ckpt="global", bg="continue", dir="both", fault="newcomer", launcher="malleable-run"),
    dict(prog="pdgemm", ckpt="global+partner", bg="wait", dir="both", fault="stall", launcher="malleable-run"),
    dict(prog="life", ckpt="global", dir="both", fault="stall", launcher="malleable-run"),
    dict(prog="pdgetrf", ckpt="global", bg="continue", dir="both", fault="refresh", launcher="malleable-run"),
]


def respawn_cases():
    return [_case(mech="spawn", **r) for r in RESPAWNS]


def case_lines(seed=SEED):
    pair_cases, topped = openmpi_cases(seed)
    lines = []
    k = 0
    for c in pair_cases + topped:
        k += 1
        c = dict(c, mpi="openmpi")
        lines.append(f"{k:02d}_{short_name(c)} kind=run " + " ".join(f"{n}={c[n]}" for n in NAMES + ["mpi"]))
    for c in mpich_cases(seed):
        k += 1
        c = dict(c, mpi="mpich")
        lines.append(f"{k:02d}_{short_name(c)} kind=run " + " ".join(f"{n}={c[n]}" for n in NAMES + ["mpi"]))
    for name, prog, _args, _status, _rx in REFUSALS:
        k += 1
        lines.append(f"{k:02d}_refuse_{name} kind=refuse prog={prog} refusal={name} mpi=openmpi")
    for name, prog, _args, _status, _rx in CONTROLS:
        k += 1
        lines.append(f"{k:02d}_control_{name} kind=control prog={prog} refusal={name} mpi=openmpi")
    for c in fallback_cases():
        k += 1
        lines.append(f"{k:02d}_fallback_{short_name(c)} kind=fallback " + " ".join(f"{n}={c[n]}" for n in NAMES) +
                     " mpi=openmpi")
    for c in refresh_cases():
        k += 1
        lines.append(f"{k:02d}_refresh_{short_name(c)} kind=refresh " + " ".join(f"{n}={c[n]}" for n in NAMES) +
                     " mpi=openmpi")
    for c in respawn_cases():
        k += 1
        lines.append(f"{k:02d}_respawn_{short_name(c)} kind=respawn " + " ".join(f"{n}={c[n]}" for n in NAMES) +
                     " mpi=openmpi reconf=respawn")
    return lines, len(pair_cases), len(topped)


def full_lines(n, seed):
    rng = random.Random(seed)
    space = valid_cases()
    picks = rng.sample(space, min(n, len(space)))
    return [f"full{k + 1:03d}_{short_name(c)} kind=run " + " ".join(f"{d}={c[d]}" for d in NAMES) + " mpi=openmpi"
            for k, c in enumerate(picks)]


HEADER = ("# SPDX-License-Identifier: BSD-3-Clause\n"
          "# Generated by tests/combinations/combinations.py --write (seed {seed}): do not edit.\n"
          "# {pairs} seeds and cases from allpairspy, {topped} added to cover pairs it left out, then the\n"
          "# MPICH cases, the refusal cases, the controls, the expansion fallback's cases, the\n"
          "# refresh's, the respawn's. One case a line: NAME key=value ...\n")


FULL_SEED, FULL_N = 1, 60
FULL_HEADER = ("# SPDX-License-Identifier: BSD-3-Clause\n"
               "# Generated by tests/combinations/combinations.py --full {n} --seed {seed} --write: do not edit.\n"
               "# Seeded random draws of valid cases: the longer label combinations_full (with bench).\n")


def case_text(seed=SEED):
    lines, pairs, topped = case_lines(seed)
    return HEADER.format(seed=seed, pairs=pairs, topped=topped) + "\n".join(lines) + "\n"


def full_text(n=FULL_N, seed=FULL_SEED):
    return FULL_HEADER.format(n=n, seed=seed) + "\n".join(full_lines(n, seed)) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, help=f"default {SEED} (--full: {FULL_SEED})")
    ap.add_argument("--write", help="write the case list to this file instead of standard output")
    ap.add_argument("--full", type=int, metavar="N", help="N seeded random valid cases (the longer label)")
    a = ap.parse_args()
    if a.full:
        text = full_text(a.full, FULL_SEED if a.seed is None else a.seed)
    else:
        text = case_text(SEED if a.seed is None else a.seed)
    if a.write:
        with open(a.write, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
