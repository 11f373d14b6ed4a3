# SPDX-License-Identifier: BSD-3-Clause
"""The matrix descriptions' rule of tests/structure/check-structure.py (--matrix-types,
--matrix-types-mutation): one in-memory description of a distributed matrix.

  A struct or class of the sources (the src/, include/ and cli/ folders of the parts,
  apps/ and sim/src/; tests are not looked at) describes a matrix when its data members,
  read by their roles, hold a global shape and, of their own, its blocks or its process
  grid. The roles come from a member's type first and its name second: a member whose type
  is one of the listed descriptions (a Layout, a MatrixSpec, a MatrixInfo ...; also in a
  std::optional) holds a global shape; a BlockSizes holds blocks (an Axis, one side of a
  Layout as an index map, holds no role); of the other members, two
  named as a pair of the rows and the columns say the rest (a trailing underscore
  ignored): m and n, or rows and cols with any common prefix (nrows, global_rows ...) a
  shape; mb and nb, or row_block(s) and col_block(s) with any common prefix, blocks;
  nprow and npcol (any prow and pcol: grid_prows ...), or rsrc and csrc (row_src ...), a grid. A type that holds a listed description and
  adds its own blocks or grid re-spells what the description (a Layout) already says, as
  one that spells a shape and blocks of its own does. Every such type is
  listed in tests/structure/matrix-types.txt, which holds at most MAX_TYPES lines
  `Name path  role` (the role one line of its own words), each naming a type that is
  at that path. A type that repeats a description instead of holding one of the listed
  (a Layout, the session's MatrixSpec) fails, as does a list that grows past MAX_TYPES.

  The matrix forms (a matrix on its grid: a shape, blocks and a grid or a context, by what
  a type holds) are counted by structure_matrix_forms.py, run with this rule.

Usage (through check-structure.py): --matrix-types [source-dir],
--matrix-types-mutation [source-dir].
"""
import os
import re
import shutil
import tempfile

import structure_matrix_forms

from structure_walk import source_files

PARTS = ["common", "redist", "gridmap", "blacs-dyn", "cluster", "resize"]
# The folders looked at: the parts' libraries and tools, the applications and the simulator.
FOLDERS = [os.path.join(p, t) for p in PARTS for t in ("src", "include", "cli")] + ["apps", os.path.join("sim", "src")]
EXTS = (".cpp", ".hpp", ".h", ".c")
LIST = os.path.join("tests", "structure", "matrix-types.txt")
MAX_TYPES = 4
PASS_MESSAGE = (f"every type describing a matrix is one of the {MAX_TYPES} or fewer of "
                "tests/structure/matrix-types.txt; " + structure_matrix_forms.PASS_MESSAGE)
# The roles of a pair of data members (row, column), as their names say them: a global
# shape, blocks, a process grid. A pair matches when both names fit and share the prefix.
PAIRS = {
    "shape": [(re.compile(r"^m$"), re.compile(r"^n$")), (re.compile(r"^(\w*?)rows$"), re.compile(r"^(\w*?)cols$"))],
    "blocks": [(re.compile(r"^mb$"), re.compile(r"^nb$")),
               (re.compile(r"^(\w*?)row_blocks?$"), re.compile(r"^(\w*?)col_blocks?$"))],
    "grid": [(re.compile(r"^(\w*?)prows?$"), re.compile(r"^(\w*?)pcols?$")),
             (re.compile(r"^(\w*?)(?:r|row_?)src$"), re.compile(r"^(\w*?)(?:c|col_?)src$"))],
}
# The roles of one member by its type (the last name of the type, std::optional unwrapped).
BLOCK_TYPES = {"BlockSizes"}
# Types whose members are not read by name: one-dimensional index maps (an Axis views a
# Layout's row or column side; holding two is an index map, not a second description).
VIEW_TYPES = {"Axis"}
HEAD = re.compile(r"(?:^|[;{}]|\b(?:public|private|protected)\s*:)\s*(?:typedef\s+)?(?:template\s*<[^{};]*>\s*)?(struct|class)\s+"
                  r"(?:\[\[[^\]]*\]\]\s*)?(?:alignas\s*\([^)]*\)\s*)?(\w+)\s*(?:final\s*)?(?::[^{;]*)?\{")
NOT_DATA = re.compile(r"^(using|typedef|friend|static|enum|struct|class|union|template|static_assert|"
                      r"public|private|protected|namespace|return)\b")


def _blank(text):
    """Comments, string and character literals and preprocessor lines as spaces."""
    text = re.sub(r'//[^\n]*|/\*.*?\*/|R"\((?:.|\n)*?\)"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), text)


def strip_nested(text, open_c, close_c):
    """`text` without what stands between open_c and close_c (nested), the brackets too."""
    out, depth = [], 0
    for c in text:
        if c == open_c:
            depth += 1
        elif c == close_c and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    return "".join(out)


def _body(code, start):
    """The text of the braces opened at code[start] ('{'), and where they close."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return code[start + 1:i], i
    return code[start + 1:], len(code)


def member_names(body):
    """The names of the data members declared directly in a class body."""
    return set(member_fields(body))


def statements(body):
    """The statements declared directly in a class body: nested braces (functions, nested
    types, initialisers) cut out, access labels blanked."""
    flat = []
    depth = 0
    for c in body:
        if c == "{":
            depth += 1
            if depth == 1:
                flat.append(";")
        elif c == "}":
            depth -= 1
        elif depth == 0:
            flat.append(c)
    return [re.sub(r"\b(public|private|protected)\s*:(?!:)", " ", st).strip() for st in "".join(flat).split(";")]


def member_fields(body):
    """{name: type text} of the data members declared directly in a class body."""
    fields = {}
    for st in statements(body):
        if not st or NOT_DATA.match(st) or st.startswith("~"):
            continue
        decl = strip_nested(re.split(r"=(?!=)", st, maxsplit=1)[0], "<", ">")
        if "(" in decl or "operator" in decl:
            continue
        opt = re.match(r"\s*(?:const\s+|mutable\s+)*(?:std::)?optional\s*<\s*([\w:]+)\s*>", st)
        first = None
        for piece in strip_nested(strip_nested(strip_nested(st, "<", ">"), "(", ")"), "[", "]").split(","):
            m = re.match(r"\s*([^={]*?)\s*(?:[={].*)?$", piece, re.S)
            ident = re.findall(r"\w+", m.group(1)) if m else []
            if ident:
                if first is None:  # the type: what stands before the first declarator's name
                    first = opt.group(1).split("::")[-1] if opt else (ident[-2] if len(ident) > 1 else "")
                fields[ident[-1].rstrip("_")] = first
    return fields


def roles(fields, descriptions):
    """The roles the members hold: 'held' (a description's type), 'shape', 'blocks', 'grid'."""
    out = set()
    for name, typ in fields.items():
        if typ in descriptions:
            out.add("held")
        elif typ in BLOCK_TYPES:
            out.add("blocks")
    names = [n for n, typ in fields.items() if typ not in descriptions | BLOCK_TYPES | VIEW_TYPES]
    for role, pairs in PAIRS.items():
        for row, col in pairs:
            for a in names:
                ra = row.match(a)
                if ra and any((rc := col.match(b)) and rc.groups() == ra.groups() for b in names):
                    out.add(role)
    return out


def describes(fields, descriptions=frozenset()):
    """Whether members {name: type} describe a matrix (a shape with blocks or a grid of its own)."""
    r = roles(fields, descriptions) if isinstance(fields, dict) else roles(dict.fromkeys(fields, ""), descriptions)
    own = r & {"blocks", "grid"}
    return bool(("held" in r and own) or ("shape" in r and "blocks" in r))


def describing_types(root, descriptions=frozenset()):
    """(path, line, name) of every struct/class of the sources (FOLDERS) that describes a matrix;
    `descriptions`: the names of the listed types (a member of one holds a global shape)."""
    found = []
    for folder in FOLDERS:
        for path in source_files(os.path.join(root, folder), EXTS):
            code = _blank(open(path, encoding="utf-8", errors="replace").read())
            for m in HEAD.finditer(code):
                body, _ = _body(code, m.end() - 1)
                if describes(member_fields(body), descriptions - {m.group(2)}):
                    found.append((os.path.relpath(path, root), code.count("\n", 0, m.start(2)) + 1,
                                  m.group(2)))
    return found


def read_roles(root, rel, missing):
    """[(name, path, role, line)] of a committed list of `Name path  role` lines (comments and
    blank lines skipped), and the problems of its own form; `missing` says what it lists."""
    entries, problems = [], []
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return entries, [f"{rel}: missing ({missing})"]
    for k, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or len(parts[2].split()) < 3:
            problems.append(f"{rel}:{k}: expected `Name path  role` (a one-line role of a few words), got '{line}'")
            continue
        entries.append((parts[0], parts[1], parts[2].strip(), k))
    return entries, problems


def read_list(root):
    """[(name, path, role, line)] of the list, and the problems of its own form."""
    entries, problems = read_roles(root, LIST, f"the matrix-describing types, at most {MAX_TYPES}")
    if len(entries) > MAX_TYPES:
        problems.append(f"{LIST}: {len(entries)} matrix-describing types listed, at most {MAX_TYPES}: one "
                        "description of a matrix (a Layout, the session's record, the C ABI, the file record)")
    return entries, problems


def problems(root):
    entries, out = read_list(root)
    listed = {(name, path) for name, path, _, _ in entries}
    found = describing_types(root, frozenset(name for name, _, _, _ in entries))
    for path, line, name in found:
        if (name, path) not in listed:
            out.append(f"{path}:{line}: {name} describes a matrix (a global shape and its blocks among its data "
                       f"members) and is not in {LIST}: hold a redist::Layout or the session's MatrixSpec instead")
    present = {(name, path) for path, _, name in found}
    for name, path, _, k in entries:
        if (name, path) not in present:
            out.append(f"{LIST}:{k}: {name} is not a matrix-describing type of {path} (gone or moved: update the list)")
    return out + structure_matrix_forms.problems(root)


def mutation(root):
    """On a copy of the parts: the rule passes as the tree is, and fails on each planted breach."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for part in PARTS + ["apps", "sim"]:
            src = os.path.join(root, part)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(tmp, part), ignore=shutil.ignore_patterns("build*"))
        os.makedirs(os.path.join(tmp, "tests", "structure"))
        shutil.copy(os.path.join(root, LIST), os.path.join(tmp, LIST))
        shutil.copy(os.path.join(root, structure_matrix_forms.FORMS), os.path.join(tmp, structure_matrix_forms.FORMS))
        clean = problems(tmp)
        if clean:
            print("matrix-types mutation: the copied tree fails already:", clean)
            return False

        def planted(rel, change, want, label, caught=True):
            nonlocal ok
            path = os.path.join(tmp, rel)
            before = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            with open(path, "w", encoding="utf-8") as f:
                f.write(change(before or ""))
            hit = any(want in p for p in problems(tmp))
            print(f"matrix-types mutation: {label}: " + ("caught" if hit else "passed") +
                  ("" if hit == caught else " (WRONG)"))
            ok = ok and hit == caught
            if before is None:
                os.remove(path)
            else:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(before)
            return hit == caught

        # A fifth description, as the gridmap and checkpoint ones were: m, n, mb, nb...
        shape = ("\nnamespace gridmap {\nstruct PlannedMatrix {\n  std::int64_t m = 0, n = 0;\n"
                 "  std::int64_t mb = 64, nb = 64;  // the blocks\n  bool block = false;\n"
                 "  void validate() const;\n};\n}  // namespace gridmap\n")
        planted(os.path.join("gridmap", "include", "malleable", "gridmap", "placement.hpp"), lambda t: t + shape,
                "PlannedMatrix describes a matrix", "gridmap's placement.hpp declares a struct of m, n, mb, nb")
        # ... or rows, cols and the lists of block sizes, nested in a class, in a source file.
        nested = ("\nnamespace resize::detail {\nclass Holder {\n public:\n  int size() const { return 0; }\n"
                  "  struct Piece {\n    long rows = 0;\n    long cols{0};\n"
                  "    std::vector<long> row_blocks, col_blocks;\n  };\n};\n}\n")
        planted(os.path.join("resize", "src", "move", "mover.cpp"), lambda t: t + nested,
                "Piece describes a matrix", "resize/src/move/mover.cpp nests a struct of rows, cols and block lists")
        # ... or, in an application, nrows, ncols and a block.
        app = ("\nstruct Tile {\n  long nrows = 0, ncols = 0;\n  long row_block = 1, col_block = 1;\n};\n")
        planted(os.path.join("apps", "reproduce", "repro_plan.cpp"), lambda t: t + app, "Tile describes a matrix",
                "apps/reproduce/repro_plan.cpp declares a struct of nrows, ncols and blocks")
        # Not a description: a struct that holds the record and a layout (its own fields a
        # shape without blocks) passes.
        holder = ("\nnamespace resize::detail {\nstruct Held {\n  redist::MatrixSpec spec;\n  redist::Layout layout;\n"
                  "  long m = 0, n = 0;  // a shape alone\n};\n}\n")
        planted(os.path.join("resize", "src", "move", "mover.cpp"), lambda t: t + holder, "Held describes",
                "a struct holding a MatrixSpec, a Layout and m, n", caught=False)
        # A description extended by fields of its own: LevelMatrix as it was (the file record
        # and the grid re-spelled beside it), and the same with the grid named otherwise.
        level = ("\nnamespace resize::levels {\nstruct LevelRecord {\n  checkpoint::MatrixInfo global;\n"
                 "  int nprow = 1, npcol = 1, rsrc = 0, csrc = 0;\n  int pr = -1, pc = -1;\n"
                 "  std::int64_t rows = 0, cols = 0;\n  std::uint64_t offset = 0, bytes = 0;\n};\n}\n")
        planted(os.path.join("resize", "src", "checkpoint", "levels", "levels.hpp"), lambda t: t + level,
                "LevelRecord describes a matrix", "levels.hpp: a MatrixInfo with nprow, npcol, rsrc, csrc beside it")
        renamed = ("\nnamespace resize::levels {\nstruct Saved {\n  std::optional<redist::MatrixSpec> spec;\n"
                   "  int grid_prows = 1, grid_pcols = 1;\n  int row_src = 0, col_src = 0;\n};\n}\n")
        planted(os.path.join("resize", "src", "checkpoint", "levels", "write.cpp"), lambda t: t + renamed,
                "Saved describes a matrix", "write.cpp: an optional MatrixSpec with grid_prows, grid_pcols, row_src, col_src")
        # A listed type taken off the list.
        planted(LIST, lambda t: "\n".join(l for l in t.splitlines() if not l.startswith("MatrixInfo ")) + "\n",
                "MatrixInfo describes a matrix", "checkpoint::MatrixInfo taken off the list")
        # A fifth entry on the list (even of a type that exists).
        planted(LIST, lambda t: t + "DescriptorMove resize/src/move/mover.hpp  a fifth way to say it\n",
                f"at most {MAX_TYPES}", "a fifth entry on the list")
        # An entry without its role.
        planted(LIST, lambda t: t + "Layout\n", "expected `Name path  role`", "an entry without its role")
        # The matrix forms' breaches (structure_matrix_forms.py), on the same copy.
        ok = structure_matrix_forms.mutation(planted) and ok
    print("check-structure --matrix-types-mutation:", "PASS" if ok else "FAILED")
    return ok
