# SPDX-License-Identifier: BSD-3-Clause
"""The benchmarks' rule of tests/structure/check-structure.py (--benches, --benches-mutation):

  one program  a part's benchmarks are one program, the case as its first argument: in
               <part>/bench/ one file defines `main` (main.cpp, or the part's one program),
               but for the programs EXCEPTIONS names with the reason each stays apart;
  in bench/    no other file of the parts' folders or of tests/ whose name says bench
               defines `main` (a bench of a part lives in its bench/; the stand-alone C
               probes that scripts/bench/*.sh compile are scripts', not a part's).

Usage (through check-structure.py): --benches [source-dir], --benches-mutation [source-dir].
"""
import os
import re
import shutil
import tempfile

PASS_MESSAGE = "each part's benchmarks are one program in its bench/ (and the stated exceptions)"
PARTS = ("redist", "resize", "blacs-dyn", "gridmap", "cluster", "launcher", "sim")
# Programs of a bench/ folder that stay apart, each with its reason.
EXCEPTIONS = {
    os.path.join("redist", "bench", "plan_scale_bench.cpp"):
        "replaces the global operator new to count the planner's heap, which would count every case",
    os.path.join("redist", "bench", "calibrate_cost.cpp"):
        "malleable-calibrate, the installed tool that fits the cost model, not a benchmark",
    os.path.join("resize", "bench", "kernel_meter_bench.cpp"):
        "links the BLAS interposers, which would meter every case",
    os.path.join("tests", "redist", "dropin", "gemr2d_bench_program.c"):
        "an unmodified ScaLAPACK program, built stock and with the drop-in: the subject of a test",
}
MAIN = re.compile(r"^\s*int\s+main\s*\(", re.M)
SOURCES = (".cpp", ".cc", ".c")


def _defines_main(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return bool(MAIN.search(f.read()))
    except OSError:
        return False


def problems(root):
    out = []
    for part in PARTS:
        bench = os.path.join(root, part, "bench")
        if not os.path.isdir(bench):
            continue
        mains = sorted(os.path.join(part, "bench", n) for n in os.listdir(bench)
                       if n.endswith(SOURCES) and _defines_main(os.path.join(bench, n)))
        counted = [m for m in mains if m not in EXCEPTIONS]
        if len(counted) > 1:
            out.append(f"{part}/bench/: {len(counted)} programs ({', '.join(counted)}): one program, "
                       f"the case as its first argument (common's bench_main.hpp), or a reason in EXCEPTIONS")
    for top in PARTS + ("tests",):
        for dirpath, dirnames, files in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
            rel_dir = os.path.relpath(dirpath, root)
            if os.path.basename(rel_dir) == "bench" and rel_dir.split(os.sep)[0] in PARTS:
                continue
            for name in sorted(files):
                rel = os.path.join(rel_dir, name)
                if "bench" in name and name.endswith(SOURCES) and rel not in EXCEPTIONS \
                        and _defines_main(os.path.join(dirpath, name)):
                    out.append(f"{rel}: a benchmark program outside its part's bench/ (make it a case there)")
    return out


def mutation(root):
    """Plants a second program in resize/bench/ and a bench program in tests/resize/, each in a
    copy of the tree; the rule must catch both (and pass the copy before)."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "tree")
        for top in PARTS + ("tests",):
            src = os.path.join(root, top)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(copy, top), ignore=shutil.ignore_patterns("build*"))
        before = problems(copy)
        if before:
            print("benches mutation: the copied tree fails already:", before)
            return False
        plants = [("a second program in resize/bench/", os.path.join("resize", "bench", "extra_bench.cpp")),
                  ("a bench program in tests/", os.path.join("tests", "resize", "common", "map_bench.cpp"))]
        for what, rel in plants:
            path = os.path.join(copy, rel)
            with open(path, "w") as f:
                f.write("// planted\nint main(int argc, char** argv) { return 0; }\n")
            hit = any(rel in p for p in problems(copy))
            print(f"benches mutation: {what}: " + ("caught" if hit else "MISSED"))
            ok = ok and hit
            os.remove(path)
    print("check-structure --benches-mutation:", "PASS" if ok else "FAILED")
    return ok
