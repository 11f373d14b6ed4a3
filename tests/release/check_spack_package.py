#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks packaging/spack/package.py without Spack (not installable here): it parses,
declares a CMakePackage with the expected variants, every depends_on names a package
or virtual that exists in Spack's builtin repository (list below, taken from Spack's
packages and virtuals), every `when=` refers to a declared variant, and the required
dependencies are there. Usage: check_spack_package.py <package.py>"""
import ast
import re
import sys

# Names in Spack's builtin repository (packages) and its virtual packages that the
# recipe may depend on.
KNOWN = {
    # virtuals
    "mpi", "scalapack", "blas", "lapack", "pkgconfig", "c", "cxx", "fortran",
    # packages
    "cmake", "hdf5", "nlohmann-json", "cli11", "googletest", "openmpi", "mpich",
    "netlib-scalapack", "openblas", "netlib-lapack", "python", "gnuplot", "pkgconf",
}
REQUIRED = {"mpi", "scalapack", "blas", "lapack", "cmake", "nlohmann-json", "cli11", "googletest", "hdf5"}
VARIANTS = {"fortran", "hdf5"}
SPEC = re.compile(r"^([a-z0-9][a-z0-9-]*)(@[0-9a-z.:,]*)?([+~][a-z0-9_-]+)*$")

path = sys.argv[1]
source = open(path).read()
tree = ast.parse(source, path)  # raises SyntaxError with the line
errors = []
classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
if len(classes) != 1:
    errors.append(f"expected one class, found {len(classes)}")
cls = classes[0]
if [b.id for b in cls.bases if isinstance(b, ast.Name)] != ["CMakePackage"]:
    errors.append("the class must derive from CMakePackage")
if not ast.get_docstring(cls):
    errors.append("the class needs a docstring (Spack shows it as the description)")

calls = [n.value for n in cls.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
def name_of(call):
    return call.func.id if isinstance(call.func, ast.Name) else None
def const_args(call):
    return [a.value for a in call.args if isinstance(a, ast.Constant)]
def kw(call, key):
    for k in call.keywords:
        if k.arg == key and isinstance(k.value, ast.Constant):
            return k.value.value
    return None

variants = {const_args(c)[0] for c in calls if name_of(c) == "variant"}
if variants != VARIANTS:
    errors.append(f"variants {sorted(variants)}, expected {sorted(VARIANTS)}")
versions = [const_args(c)[0] for c in calls if name_of(c) == "version"]
if not versions:
    errors.append("no version() directive")
deps = {}
for c in calls:
    if name_of(c) != "depends_on":
        continue
    spec = const_args(c)[0]
    m = SPEC.match(spec)
    if not m:
        errors.append(f"depends_on('{spec}'): not a spec Spack parses (name[@range][+variant])")
        continue
    name = m.group(1)
    if name not in KNOWN:
        errors.append(f"depends_on('{spec}'): '{name}' is not a Spack package or virtual")
    when = kw(c, "when")
    if when:
        for v in re.findall(r"[+~]([a-z0-9_-]+)", when):
            if v not in variants:
                errors.append(f"depends_on('{spec}', when='{when}'): no variant '{v}'")
    dtype = kw(c, "type")
    if dtype not in (None, "build", "link", "run", "test"):
        errors.append(f"depends_on('{spec}'): type '{dtype}'")
    deps[name] = (spec, when, dtype)
missing = REQUIRED - deps.keys()
if missing:
    errors.append(f"missing dependencies: {sorted(missing)}")
if "hdf5" in deps and (deps["hdf5"][1] != "+hdf5" or "+mpi" not in deps["hdf5"][0]):
    errors.append("hdf5 must be depends_on('hdf5+mpi', when='+hdf5')")
if "cmake" in deps and not deps["cmake"][0].startswith("cmake@3.20:"):
    errors.append("cmake must be @3.20: (CMakeLists.txt's minimum)")
if "googletest" in deps and deps["googletest"][2] != "test":
    errors.append("googletest is a test dependency")
methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
if "cmake_args" not in methods:
    errors.append("no cmake_args()")

if errors:
    for e in errors:
        print(f"FAILED: {path}: {e}")
    sys.exit(1)
print(f"spack package: {path} parses; class {cls.name}(CMakePackage), versions {versions}, "
      f"variants {sorted(variants)}, {len(deps)} dependencies all known to Spack: "
      + ", ".join(sorted(deps)))
