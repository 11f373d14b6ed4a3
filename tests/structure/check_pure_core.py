#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""resize's pure core (the static library resize_core, resize/CMakeLists.txt) is built and
linked without MPI, HDF5, ScaLAPACK or the BLACS. Read from a Makefile build tree:

  includes   no include folder in the core's flags.make (-I, -isystem, -idirafter) holds
             mpi.h, mpif.h, hdf5.h or H5public.h, or is named for MPI, HDF5, ScaLAPACK
             or the BLACS (openmpi, mpich, hdf5, scalapack, blacs)
  symbols    no object of the core's archive leaves undefined (nm -u) an MPI or PMPI
             call, an Open MPI global, an HDF5 call, a BLACS call, p?gemr2d or blacs-dyn's
             C++ API
  link       the link line of a program that links the core alone (CMake puts the core's
             whole link interface on it: tests/structure/pure_core_probe.cpp) names no
             such library, nor libmalleable_resize, _redist, _gridmap or _blacs_dyn, and
             ldd of that program lists none

Usage: check_pure_core.py <core dir> <core archive> <probe link.txt> <probe program>
         <core dir>: build/resize/CMakeFiles/resize_core.dir (its flags.make)
         <core archive>: build/resize/libresize_core.a
       check_pure_core.py --mutation <core dir> <core archive> <probe link.txt>
                          <probe program> <C++ compiler> <a library that links MPI>
         first the real inputs must pass; then, on copies, an include folder holding
         mpi.h, one named openmpi, an object calling each of MPI_Barrier, PMPI_Barrier,
         H5Fopen, Cblacs_gridinit, pdgemr2d_ and Cpdgemr2d, -lmpi, libhdf5 and
         libmalleable_redist on the link line, and ldd of the MPI library each must fail.
Prints PASS or FAILED with what was found; exits 1 on FAILED, 77 when the build tree is
not a Makefile one (no flags.make: nothing to read).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEADERS = ("mpi.h", "mpif.h", "hdf5.h", "H5public.h")
# Words of a path or library name (split at anything not a letter or digit) that name MPI,
# HDF5, ScaLAPACK or the BLACS: exact words, and prefixes (libmpi.so, hdf5_openmpi ...).
BAD_WORDS = {"mpi", "lmpi", "libmpi", "mpicxx", "ompi", "pmpi"}
BAD_PREFIXES = ("libmpi", "openmpi", "mpich", "libmpich", "hdf5", "libhdf5", "lhdf5", "scalapack",
                "libscalapack", "lscalapack", "blacs", "libblacs", "lblacs")
PROJECT_MPI_LIBS = re.compile(r"libmalleable_(resize|redist|gridmap|blacs_dyn)\.(so|a)\b")
# Undefined symbols the core may not have (the C names as they are, C++ by namespace).
BAD_SYMBOL = re.compile(r"^(P?MPIX?_|ompi_|MPIR_|H5|Cblacs|blacs_|[Cc]?p[sdcz]gemr2d|.*9blacs_dyn)")


def named_for_mpi(text):
    """Does `text` (a path, a library name or a link option) name MPI, HDF5, ScaLAPACK or the BLACS?"""
    words = [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]
    return any(w in BAD_WORDS or w.startswith(BAD_PREFIXES) for w in words) or bool(PROJECT_MPI_LIBS.search(text))


def include_dirs(flags_text):
    """The include folders named on the *_INCLUDES and *_FLAGS lines of a flags.make."""
    dirs = []
    for line in flags_text.splitlines():
        if not re.match(r"^\w+_(INCLUDES|FLAGS)\s*=", line):
            continue
        tokens = line.split("=", 1)[1].split()
        for i, t in enumerate(tokens):
            for opt in ("-isystem", "-idirafter", "-iquote", "-I"):
                if t == opt and i + 1 < len(tokens):
                    dirs.append(tokens[i + 1])
                elif t.startswith(opt) and len(t) > len(opt):
                    dirs.append(t[len(opt):])
    return dirs


def check_includes(core_dir):
    problems = []
    with open(os.path.join(core_dir, "flags.make")) as f:
        dirs = include_dirs(f.read())
    for d in dirs:
        held = [h for h in HEADERS if os.path.exists(os.path.join(d, h))]
        if held:
            problems.append("include folder %s holds %s" % (d, ", ".join(held)))
        elif named_for_mpi(d):
            problems.append("include folder %s is MPI's, HDF5's, ScaLAPACK's or the BLACS'" % d)
    return problems


def undefined_symbols(archive):
    """{member: [undefined symbol]} of a static library (nm -u prints "member.o:" first)."""
    out = subprocess.run(["nm", "-u", archive], capture_output=True, text=True, check=True).stdout
    members, current = {}, None
    for line in out.splitlines():
        if line.endswith(":") and " " not in line.strip():
            current = members.setdefault(line[:-1], [])
        elif line.strip() and current is not None:
            current.append(line.split()[-1])
    return members


def check_symbols(archive):
    members = undefined_symbols(archive)
    if not members:
        return ["no objects in %s (build the core first)" % archive]
    problems = []
    for member, symbols in sorted(members.items()):
        bad = sorted({s for s in symbols if BAD_SYMBOL.match(s)})
        if bad:
            problems.append("%s calls %s" % (member, ", ".join(bad[:6])))
    return problems


def check_link(link_txt, program):
    problems = []
    with open(link_txt) as f:
        tokens = f.read().split()
    for t in tokens[1:]:  # not the compiler itself
        if named_for_mpi(t):
            problems.append("the core's link line names %s" % t)
    out = subprocess.run(["ldd", program], capture_output=True, text=True).stdout
    for line in out.splitlines():
        name = line.split("=>")[0].strip()
        if name and named_for_mpi(name):
            problems.append("%s loads %s" % (os.path.basename(program), name))
    return problems


def check(core_dir, archive, link_txt, program):
    return check_includes(core_dir) + check_symbols(archive) + check_link(link_txt, program)


def report(problems, what):
    for p in problems:
        print("  " + p)
    print(("FAILED: " if problems else "PASS: ") + what)
    return 1 if problems else 0


def copy_core(core_dir, scratch):
    """The core's flags.make, copied to scratch/core."""
    dst = os.path.join(scratch, "core")
    os.makedirs(dst)
    shutil.copy(os.path.join(core_dir, "flags.make"), dst)
    return dst


def plant_include(core, folder):
    path = os.path.join(core, "flags.make")
    with open(path) as f:
        text = f.read()
    text = re.sub(r"^(CXX_INCLUDES\s*=.*)$", lambda m: m.group(1) + " -isystem " + folder, text, count=1,
                  flags=re.M)
    with open(path, "w") as f:
        f.write(text)


def plant_call(archive, compiler, symbol, scratch):
    """A copy of the core's archive with one more object, which calls `symbol`."""
    src, obj = os.path.join(scratch, "planted.cpp"), os.path.join(scratch, "planted.o")
    with open(src, "w") as f:
        f.write('extern "C" int %s(void*);\nint planted_call() { return %s(nullptr); }\n' % (symbol, symbol))
    subprocess.run([compiler, "-c", src, "-o", obj], check=True)
    copy = os.path.join(scratch, os.path.basename(archive))
    shutil.copy(archive, copy)
    subprocess.run(["ar", "q", copy, obj], check=True)
    return copy


def plant_link(link_txt, scratch, extra):
    dst = os.path.join(scratch, "link.txt")
    with open(link_txt) as f:
        text = f.read().rstrip("\n")
    with open(dst, "w") as f:
        f.write(text + " " + extra + "\n")
    return dst


def mutations(core_dir, archive, link_txt, program, compiler, scratch):
    """(what was planted, the check's problems) for each breach, each on a fresh copy."""
    results = []
    holder = os.path.join(scratch, "plain")
    os.makedirs(holder)
    open(os.path.join(holder, "mpi.h"), "w").close()
    for folder in (holder, "/opt/openmpi/include"):
        with tempfile.TemporaryDirectory(dir=scratch) as s:
            core = copy_core(core_dir, s)
            plant_include(core, folder)
            results.append(("include folder " + folder, check_includes(core)))
    for symbol in ("MPI_Barrier", "PMPI_Barrier", "H5Fopen", "Cblacs_gridinit", "pdgemr2d_", "Cpdgemr2d"):
        with tempfile.TemporaryDirectory(dir=scratch) as s:
            results.append(("an object calling " + symbol, check_symbols(plant_call(archive, compiler, symbol, s))))
    for extra in ("-lmpi", "/usr/lib/x86_64-linux-gnu/libhdf5_openmpi.so", "../../redist/libmalleable_redist.so.0"):
        results.append(("link line + " + extra, check_link(plant_link(link_txt, scratch, extra), program)))
    return results


def mutation_test(core_dir, archive, link_txt, program, compiler, mpi_library):
    base = check(core_dir, archive, link_txt, program)
    if base:
        return report(base, "the real core must pass before the mutations mean anything")
    with tempfile.TemporaryDirectory() as scratch:
        results = mutations(core_dir, archive, link_txt, program, compiler, scratch)
    results.append(("ldd of " + os.path.basename(mpi_library), check_link(link_txt, mpi_library)))
    missed = [what for what, problems in results if not problems]
    for what, problems in results:
        print("  %-60s %s" % (what, "caught: " + problems[0] if problems else "NOT CAUGHT"))
    if missed:
        return report(["not caught: " + m for m in missed], "the pure-core check misses a breach")
    return report([], "the pure-core check catches each of %d planted breaches" % len(results))


def main(argv):
    mutation = len(argv) > 1 and argv[1] == "--mutation"
    args = argv[2:] if mutation else argv[1:]
    if len(args) != (6 if mutation else 4):
        sys.exit(__doc__)
    if not os.path.exists(os.path.join(args[0], "flags.make")):
        print("SKIPPED: no %s/flags.make (not a Makefile build tree)" % args[0])
        return 77
    if mutation:
        return mutation_test(*args)
    return report(check(*args), "resize_core: no MPI, HDF5, ScaLAPACK or BLACS in its includes, "
                  "objects or link interface")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
