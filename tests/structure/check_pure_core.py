#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A pure library is built and linked without MPI, HDF5, ScaLAPACK or the BLACS: resize's
pure core (the static library resize_core, resize/CMakeLists.txt) and redist's planning
library (the shared library redist_plan, redist/CMakeLists.txt). Read from a Makefile build
tree:

  includes   no include folder in the library's flags.make (-I, -isystem, -idirafter) holds
             mpi.h, mpif.h, hdf5.h or H5public.h, or is named for MPI, HDF5, ScaLAPACK
             or the BLACS (openmpi, mpich, hdf5, scalapack, blacs); and no object's
             dependency file (*.o.d, the headers the compiler read) names such a header
             or a file in such a folder
  symbols    no object of the library (the archive's members; the shared library as one)
             leaves undefined (nm -u) an MPI or PMPI call, an Open MPI global, an HDF5
             call, a BLACS call, p?gemr2d or blacs-dyn's C++ API
  link       the link line of a program that links the library alone (CMake puts its
             whole link interface on it: tests/structure/pure_core_probe.cpp,
             redist_plan_probe.cpp) names no such library, nor libmalleable_resize,
             _redist or _blacs_dyn, and ldd of that program lists none

Usage: check_pure_core.py <library dir> <library> <probe link.txt> <probe program>
         <library dir>: build/resize/CMakeFiles/resize_core.dir (its flags.make, *.o.d)
         <library>: build/resize/libresize_core.a (or a shared library)
       check_pure_core.py --mutation <library dir> <library> <probe link.txt>
                          <probe program> <C++ compiler> <a library that links MPI>
         first the real inputs must pass; then, on copies, an include folder holding
         mpi.h, one named openmpi, a dependency file naming MPI's mpi.h, a source that
         includes <mpi.h> compiled with the library's own flags (it must not compile, or
         its dependency file must be caught), an object calling each of MPI_Barrier,
         PMPI_Barrier, H5Fopen, Cblacs_gridinit, pdgemr2d_ and Cpdgemr2d, -lmpi, libhdf5
         and libmalleable_redist on the link line, and ldd of the MPI library each must fail.
Prints PASS or FAILED with what was found; exits 1 on FAILED, 77 when the build tree is
not a Makefile one (no flags.make: nothing to read).
"""
import os
import re
import shlex
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
PROJECT_MPI_LIBS = re.compile(r"libmalleable_(resize|redist|blacs_dyn)\.(so|a)\b")
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
    return problems + check_depfiles(core_dir)


def depfile_headers(path):
    """The files a compiler's dependency file (make syntax: "target: dep dep \\") names."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    return [t for line in text.splitlines() for t in line.split(":", 1)[-1].split() if t != "\\"]


def check_depfiles(core_dir):
    """Each object's dependency file names no MPI, HDF5, ScaLAPACK or BLACS header."""
    problems = []
    for root, _, files in os.walk(core_dir):
        for name in sorted(f for f in files if f.endswith(".o.d")):
            for h in depfile_headers(os.path.join(root, name)):
                if os.path.basename(h) in HEADERS or named_for_mpi(os.path.dirname(h)):
                    problems.append("%s read %s" % (name[:-len(".o.d")], h))
                    break
    return problems


def undefined_symbols(archive):
    """{member: [undefined symbol]} of a static library (nm -u prints "member.o:" first)."""
    out = subprocess.run(["nm", "-u", archive], capture_output=True, text=True, check=True).stdout
    members, current = {}, None
    if not archive.endswith(".a"):  # a shared library: one object, no member lines
        current = members.setdefault(os.path.basename(archive), [])
    for line in out.splitlines():
        if line.endswith(":") and " " not in line.strip():
            current = members.setdefault(line[:-1], [])
        elif line.strip() and current is not None:
            current.append(line.split()[-1])
    return {m: s for m, s in members.items() if s or archive.endswith(".a")}


def check_symbols(archive):
    members = undefined_symbols(archive)
    if not members:
        return ["no objects in %s (build the library first)" % archive]
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
            problems.append("the library's link line names %s" % t)
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
    """The library's flags.make, copied to scratch/core."""
    dst = os.path.join(scratch, "core")
    os.makedirs(dst)
    shutil.copy(os.path.join(core_dir, "flags.make"), dst)
    return dst


def plant_depfile(core_dir, scratch):
    """A copy of the library's flags.make and of one dependency file, which names MPI's mpi.h."""
    core = copy_core(core_dir, scratch)
    depfiles = [os.path.join(r, f) for r, _, fs in os.walk(core_dir) for f in fs if f.endswith(".o.d")]
    dst = os.path.join(core, os.path.basename(sorted(depfiles)[0]) if depfiles else "planted.cpp.o.d")
    text = open(sorted(depfiles)[0]).read().rstrip("\n") if depfiles else "planted.cpp.o: planted.cpp"
    with open(dst, "w") as f:
        f.write(text + " \\\n /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h\n")
    return core


def plant_mpi_include(core_dir, compiler, scratch):
    """A source that includes <mpi.h>, compiled with the library's own defines, include folders
    and flags: the problem if it does not compile (MPI is not on the library's include path),
    else what check_includes finds with its dependency file beside the flags."""
    with open(os.path.join(core_dir, "flags.make")) as f:
        flags = f.read()
    words = []
    for key in ("CXX_DEFINES", "CXX_INCLUDES", "CXX_FLAGS"):
        m = re.search(r"^%s\s*=(.*)$" % key, flags, flags=re.M)
        words += shlex.split(m.group(1)) if m else []
    core = copy_core(core_dir, scratch)
    src = os.path.join(scratch, "planted.cpp")
    with open(src, "w") as f:
        f.write("#include <mpi.h>\nint planted() { return 0; }\n")
    obj = os.path.join(core, "planted.cpp.o")
    run = subprocess.run([compiler] + words + ["-MD", "-MF", obj + ".d", "-c", src, "-o", obj],
                         capture_output=True, text=True)
    if run.returncode != 0:  # for want of mpi.h, or the planting is broken: not caught
        return ["a source including <mpi.h> does not compile with the library's flags"] if "mpi.h" in run.stderr else []
    return check_includes(core)


def plant_include(core, folder):
    path = os.path.join(core, "flags.make")
    with open(path) as f:
        text = f.read()
    text = re.sub(r"^(CXX_INCLUDES\s*=.*)$", lambda m: m.group(1) + " -isystem " + folder, text, count=1,
                  flags=re.M)
    with open(path, "w") as f:
        f.write(text)


def plant_call(archive, compiler, symbol, scratch):
    """A copy of the library with one more object, which calls `symbol` (a shared library:
    one linked of that object, the library's name kept)."""
    src, obj = os.path.join(scratch, "planted.cpp"), os.path.join(scratch, "planted.o")
    with open(src, "w") as f:
        f.write('extern "C" int %s(void*);\nint planted_call() { return %s(nullptr); }\n' % (symbol, symbol))
    subprocess.run([compiler, "-fPIC", "-c", src, "-o", obj], check=True)
    copy = os.path.join(scratch, os.path.basename(archive))
    if not archive.endswith(".a"):
        subprocess.run([compiler, "-shared", obj, "-o", copy], check=True)
        return copy
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
    with tempfile.TemporaryDirectory(dir=scratch) as s:
        results.append(("a dependency file naming openmpi/include/mpi.h", check_includes(plant_depfile(core_dir, s))))
    with tempfile.TemporaryDirectory(dir=scratch) as s:
        results.append(("a source including <mpi.h>", plant_mpi_include(core_dir, compiler, s)))
    for symbol in ("MPI_Barrier", "PMPI_Barrier", "H5Fopen", "Cblacs_gridinit", "pdgemr2d_", "Cpdgemr2d"):
        with tempfile.TemporaryDirectory(dir=scratch) as s:
            results.append(("an object calling " + symbol, check_symbols(plant_call(archive, compiler, symbol, s))))
    for extra in ("-lmpi", "/usr/lib/x86_64-linux-gnu/libhdf5_openmpi.so", "../../redist/libmalleable_redist.so.0"):
        results.append(("link line + " + extra, check_link(plant_link(link_txt, scratch, extra), program)))
    return results


def mutation_test(core_dir, archive, link_txt, program, compiler, mpi_library):
    base = check(core_dir, archive, link_txt, program)
    if base:
        return report(base, "the real library must pass before the mutations mean anything")
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
    name = os.path.basename(os.path.normpath(args[0])).replace(".dir", "")
    return report(check(*args), "%s: no MPI, HDF5, ScaLAPACK or BLACS in its includes, "
                  "objects or link interface" % name)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
