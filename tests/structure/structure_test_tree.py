# SPDX-License-Identifier: BSD-3-Clause
"""The tests' tree rule of tests/structure/check-structure.py (--test-tree, --test-tree-mutation):

  mirror  a part whose sources sit in folders has its tests in the same folders: every file
          of tests/<part>/ sits in tests/<part>/<folder>/ with <folder> a folder of
          <part>/src/, except the CMakeLists.txt and the helpers several folders share
          (*_util.hpp) at tests/<part>/ itself. MIRRORED names the parts held to it.

Usage (through check-structure.py): --test-tree [source-dir], --test-tree-mutation [source-dir].
"""
import os
import shutil
import tempfile

PASS_MESSAGE = ("the tests of resize, blacs-dyn and cluster sit in the folders of <part>/src they test "
                "(tests/<part>/<folder>/; cluster's unit tests in tests/cluster/unit/<folder>/)")
# The parts whose tests mirror their source folders, and where those tests are (cluster's
# unit tests sit apart from its tests on the emulated cluster, tests/cluster/*.sh).
MIRRORED = ("resize", "blacs-dyn", "cluster")
TESTS_DIR = {"cluster": os.path.join("tests", "cluster", "unit")}


def tests_dir(part):
    return TESTS_DIR.get(part, os.path.join("tests", part))


def _is_shared(name):
    return name == "CMakeLists.txt" or name.endswith("_util.hpp")


def problems(root):
    out = []
    for part in MIRRORED:
        src = os.path.join(root, part, "src")
        tests = os.path.join(root, tests_dir(part))
        where = tests_dir(part)
        if not os.path.isdir(src) or not os.path.isdir(tests):
            out.append(f"{where}: no {part}/src/ or no {where}/ to mirror")
            continue
        folders = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}
        for name in sorted(os.listdir(tests)):
            path = os.path.join(tests, name)
            if os.path.isdir(path):
                if name not in folders:
                    out.append(f"{where}/{name}/: no folder {part}/src/{name}/ for it to mirror "
                               f"(the folders: {', '.join(sorted(folders))})")
                    continue
                for dirpath, _, files in os.walk(path):
                    if dirpath != path:
                        out.append(f"{os.path.relpath(dirpath, root)}/: one level of folders only")
            elif not _is_shared(name):
                out.append(f"{where}/{name}: a test file beside the folders; move it into the folder of "
                           f"{part}/src/ it tests")
    return out


def mutation(root):
    """Plants, for each mirrored part, a test file at tests/<part>/ itself and a folder that
    mirrors nothing, each in a copy of the tree; the rule must catch every one (and pass the
    copy before)."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "tree")
        for part in MIRRORED:
            shutil.copytree(os.path.join(root, part, "src"), os.path.join(copy, part, "src"))
            shutil.copytree(os.path.join(root, tests_dir(part)), os.path.join(copy, tests_dir(part)))
        if problems(copy):
            print("test-tree mutation: the copied tree fails already:", problems(copy))
            return False
        plants = [(f"a flat test of {part}", os.path.join(copy, tests_dir(part), "flat_test.cpp"))
                  for part in MIRRORED]
        plants += [(f"a folder of no source folder of {part}", os.path.join(copy, tests_dir(part), "nowhere", "x_test.cpp"))
                   for part in MIRRORED]
        for what, path in plants:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("// planted\n")
            rel = os.path.relpath(path, copy)
            hit = any(os.path.relpath(os.path.dirname(path), copy) in p and
                      (os.path.basename(path) in p or "nowhere" in p) for p in problems(copy))
            print(f"test-tree mutation: {what}: " + ("caught" if hit else "MISSED"))
            ok = ok and hit
            os.remove(path)
            if os.path.basename(os.path.dirname(path)) == "nowhere":
                os.rmdir(os.path.dirname(path))
    print("check-structure --test-tree-mutation:", "PASS" if ok else "FAILED")
    return ok
