# SPDX-License-Identifier: BSD-3-Clause
"""The components' rules of tests/structure/check-structure.py (--components, --components-mutation):

  includes  a component's sources include the public headers of the components it depends
            on (COMPONENTS) and no other: dependencies run one way, so no two components
            include each other, directly or round a cycle (the map itself is checked to be
            acyclic). `#include "malleable/<part>/..."` names a component's public header,
            `malleable_internal/...` common's; the generated malleable/version.h is anyone's.
  daemon    the arbiter daemon's code (cluster/src/daemon/) is linked into no library: no
            library target of a part's CMakeLists.txt lists a source under daemon/, and only
            the daemon's program links cluster_daemon (tests aside).
  tests     each part's tests sit under tests/<part>/ and reach into no other part's
            internals: a CMakeLists.txt under tests/<dir>/ names no <part>/src/ but <dir>'s
            own as an include directory (tests/resize/ does not include cluster/src/).

Usage (through check-structure.py): --components [source-dir], --components-mutation [source-dir].
"""
import os
import re
import shutil
import tempfile

from structure_walk import source_files

# What each component may include besides itself. apps and the simulator sit on top.
PASS_MESSAGE = ("every component includes only the components it depends on (an acyclic map); the daemon's "
                "code in no library; tests/<dir>/ names no other part's src/")
COMPONENTS = {
    "common": set(),
    "redist": {"common"},
    "gridmap": {"redist", "common"},
    "blacs-dyn": {"common"},
    # cluster includes of common the one form of an error (malleable/error.hpp) and the job
    # directory's layout (header-only, shared with blacs-dyn's join and the launcher: the
    # expander jobs' command line is built from it); both plain C++.
    "cluster": {"common"},
    # malleable-run: the job directory's layout (common's header-only job_dir_layout.hpp)
    # and Slurm's commands and readers (cluster's); nothing includes the launcher.
    "launcher": {"common", "cluster"},
    "resize": {"common", "redist", "gridmap", "blacs-dyn", "cluster"},
    "sim": {"cluster", "resize"},
    "apps": {"common", "redist", "gridmap", "blacs-dyn", "cluster", "resize"},
}
# The folder under malleable/ (or malleable_internal) that names a component's headers;
# common's installed headers (the one form of an error) sit in malleable/ itself.
HEADER_OWNER = {"blacs_dyn": "blacs-dyn", "redist": "redist", "gridmap": "gridmap", "cluster": "cluster",
                "resize": "resize", "error.h": "common", "error.hpp": "common"}
EXTS = (".cpp", ".hpp", ".h", ".c")
INCLUDE = re.compile(r'(?m)^\s*#\s*include\s*"(malleable(?:_internal)?)/([^"/]+)')
# Where the daemon's code lives, the library it is built into, and the one program that links it.
DAEMON_DIR = "daemon/"
DAEMON_LIB = "cluster_daemon"
DAEMON_PROGRAM = "malleable-arbiterd"


def _blank_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def cycle_in(graph):
    """A cycle of the dependency map as a list of names, or None."""
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return path + [n, m]
            if m not in state:
                found = visit(m, path + [n])
                if found:
                    return found
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n, [])
            if found:
                return found[found.index(found[-1]):]
    return None


def include_problems(root):
    problems = []
    cycle = cycle_in(COMPONENTS)
    if cycle:
        problems.append("COMPONENTS: the dependency map has a cycle: " + " -> ".join(cycle))
    for comp, allowed in sorted(COMPONENTS.items()):
        base = os.path.join(root, comp)
        for path in source_files(base, EXTS):
            code = _blank_comments(open(path, encoding="utf-8", errors="replace").read())
            for m in INCLUDE.finditer(code):
                prefix, head = m.group(1), m.group(2)
                if prefix == "malleable_internal":
                    owner = "common"
                elif head.startswith("version.h"):
                    continue
                else:
                    owner = HEADER_OWNER.get(head)
                if owner is None or owner == comp or owner in allowed:
                    continue
                line = code.count("\n", 0, m.start()) + 1
                problems.append(f"{os.path.relpath(path, root)}:{line}: {comp}/ includes {prefix}/{head}/..., "
                                f"a header of {owner}/, which {comp}/ does not depend on "
                                f"(COMPONENTS: {comp} -> {', '.join(sorted(allowed)) or 'nothing'})")
    return problems


def _statements(text, command):
    """(target, body) of every `command(target ...)` statement of a CMake file."""
    out = []
    for m in re.finditer(r"(?is)\b" + re.escape(command) + r"\s*\(\s*([^\s)]+)([^)]*)\)", text):
        out.append((m.group(1), m.group(2)))
    return out


def daemon_problems(root):
    problems = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(("build", ".git", "tests")))
        if "CMakeLists.txt" not in filenames:
            continue
        path = os.path.join(dirpath, "CMakeLists.txt")
        rel = os.path.relpath(path, root)
        text = re.sub(r"#[^\n]*", "", open(path, encoding="utf-8", errors="replace").read())
        values = {name: body for name, body in _statements(text, "set")}

        def expanded(body):  # ${VAR} of a set() in the same file, once
            return re.sub(r"\$\{([A-Za-z0-9_]+)\}", lambda m: values.get(m.group(1), m.group(0)), body)

        for command in ("mall_add_library", "add_library"):
            for target, body in _statements(text, command):
                body = expanded(body)
                if target != DAEMON_LIB and DAEMON_DIR in body:
                    problems.append(f"{rel}: library {target} is built from the daemon's code ({DAEMON_DIR}): it "
                                    f"belongs to {DAEMON_PROGRAM} alone")
        for target, body in _statements(text, "target_link_libraries"):
            if re.search(r"\b" + DAEMON_LIB + r"\b", body) and target != DAEMON_PROGRAM:
                problems.append(f"{rel}: {target} links {DAEMON_LIB}: only {DAEMON_PROGRAM} (and the tests) may")
    return problems


# ${PROJECT_SOURCE_DIR}/<part>/src (or CMAKE_SOURCE_DIR's) in a tests' CMakeLists.txt.
SRC_DIR = re.compile(r"\$\{(?:PROJECT|CMAKE)_SOURCE_DIR\}/([A-Za-z0-9_.-]+)/src\b")


def tests_problems(root):
    problems = []
    tests = os.path.join(root, "tests")
    for dirpath, dirnames, filenames in os.walk(tests):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
        if "CMakeLists.txt" not in filenames or dirpath == tests:
            continue
        path = os.path.join(dirpath, "CMakeLists.txt")
        rel = os.path.relpath(path, root)
        own = rel.split(os.sep)[1]
        text = re.sub(r"#[^\n]*", "", open(path, encoding="utf-8", errors="replace").read())
        for m in SRC_DIR.finditer(text):
            if m.group(1) != own:
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{line}: tests/{own}/ includes {m.group(1)}/src/ (another part's internals): "
                                f"that part's tests belong under tests/{m.group(1)}/")
    return problems


def problems(root):
    return include_problems(root) + daemon_problems(root) + tests_problems(root)


def mutation(root):
    """On a copy of the parts: the rules pass as the tree is, and fail on each planted breach."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for comp in list(COMPONENTS) + ["CMakeLists.txt"]:
            src = os.path.join(root, comp)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(tmp, comp), ignore=shutil.ignore_patterns("build*"))
        # tests/: its CMakeLists.txt files alone.
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, "tests")):
            dirnames[:] = [d for d in dirnames if not d.startswith("build")]
            if "CMakeLists.txt" in filenames:
                dest = os.path.join(tmp, os.path.relpath(dirpath, root))
                os.makedirs(dest, exist_ok=True)
                shutil.copy(os.path.join(dirpath, "CMakeLists.txt"), dest)
        clean = problems(tmp)
        if clean:
            print("components mutation: the copied tree fails already:", clean)
            return False

        def planted(rel, text_change, want, label):
            nonlocal ok
            path = os.path.join(tmp, rel)
            before = open(path, encoding="utf-8").read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(text_change(before))
            got = problems(tmp)
            hit = any(want in p for p in got)
            print(f"components mutation: {label}: " + ("caught" if hit else "MISSED"))
            ok = ok and hit
            with open(path, "w", encoding="utf-8") as f:
                f.write(before)

        def first_source(comp):
            for dirpath, dirnames, filenames in os.walk(os.path.join(tmp, comp, "src")):
                dirnames.sort()
                for f in sorted(filenames):
                    if f.endswith(".cpp"):
                        return os.path.relpath(os.path.join(dirpath, f), tmp)
            return None

        # cluster/ up into resize/, redist/ up into gridmap/, blacs-dyn/ into cluster/:
        # each an include against the one-way map (the first would close a cycle).
        for comp, header, owner in (("cluster", "malleable/resize/session.hpp", "resize"),
                                    ("redist", "malleable/gridmap/placement.hpp", "gridmap"),
                                    ("blacs-dyn", "malleable/cluster/cluster.hpp", "cluster")):
            rel = first_source(comp)
            planted(rel, lambda t, h=header: f'#include "{h}"\n' + t, f"a header of {owner}/",
                    f"{rel} includes {header}")
        # The map with a cycle.
        saved = dict(COMPONENTS)
        COMPONENTS["cluster"] = {"resize"}
        got = problems(tmp)
        COMPONENTS.clear()
        COMPONENTS.update(saved)
        hit = any("has a cycle" in p for p in got)
        print("components mutation: cluster -> resize -> cluster in the map: " + ("caught" if hit else "MISSED"))
        ok = ok and hit
        # The daemon's server in the cluster library; resize linking the daemon's library.
        planted(os.path.join("cluster", "CMakeLists.txt"),
                lambda t: t.replace("src/agent/job_agent.cpp", "src/agent/job_agent.cpp src/daemon/server.cpp", 1),
                "is built from the daemon's code", "cluster's library lists src/daemon/server.cpp")
        planted(os.path.join("resize", "CMakeLists.txt"),
                lambda t: t + "\ntarget_link_libraries(resize PRIVATE cluster_daemon)\n",
                "resize links cluster_daemon", "resize links cluster_daemon")
        # resize's unit tests reaching into cluster/src (cluster's tests belong under tests/cluster/).
        planted(os.path.join("tests", "resize", "CMakeLists.txt"),
                lambda t: t + "\ntarget_include_directories(resize_unit PRIVATE ${PROJECT_SOURCE_DIR}/cluster/src)\n",
                "tests/resize/ includes cluster/src/", "tests/resize/ includes cluster/src/")
    print("check-structure --components-mutation:", "PASS" if ok else "FAILED")
    return ok
