# SPDX-License-Identifier: BSD-3-Clause
"""The matrix forms' count of tests/structure/check-structure.py, run with the matrix types'
rule (--matrix-types, --matrix-types-mutation; structure_matrix_types.py).

  A matrix form is a struct or class of the sources (the folders the matrix types' rule
  reads) that holds a matrix on its grid: by what its data members hold, a global shape,
  blocks and a grid or a BLACS context. The roles are the matrix types' rule's (pairs of
  names: m and n, mb and nb, nprow and npcol, rsrc and csrc ...; a BlockSizes holds
  blocks), and besides: a ScaLAPACK descriptor (an int[9] or a std::array<int, 9>) or a
  redist_desc holds all three, a MatrixSpec or a MatrixInfo a shape and blocks, an int
  named context or ctxt (with any prefix or suffix: to_context, ctxt_a) a grid. A held
  Layout adds nothing: it is the one form, which a holder names instead of spelling the
  matrix again (a Layout's own members make it a form). A pointer holds nothing.

  Every form is listed in tests/structure/matrix-forms.txt (`Name path  role`), and the
  list holds exactly MAX_FORMS entries: a form more fails (unlisted, or the list over the
  ceiling), and so does a form fewer until MAX_FORMS is lowered to the count. The ceiling
  only goes down: MAX_FORMS_BEFORE holds the earlier ceilings, each lower than the one
  before it, and MAX_FORMS must be lower than the last.
"""
import os
import re

import structure_matrix_types as types
from structure_walk import source_files

FORMS = os.path.join("tests", "structure", "matrix-forms.txt")
# Today's count exactly, and the ceilings before it (5: the grid switch's MovePart also held
# the two descriptors of a move; 4: the pdgemm driver kept a copy of B's descriptor for C).
MAX_FORMS = 3
MAX_FORMS_BEFORE = [5, 4]
PASS_MESSAGE = f"the {MAX_FORMS} matrix forms (a matrix on its grid) are those of {FORMS}"
ALL = frozenset({"shape", "blocks", "grid"})
SPELLED = {"redist_desc"}                # a type that spells a matrix on its grid
DESCRIBED = {"MatrixSpec", "MatrixInfo"}  # a shape and blocks, no grid
NAMED = {"Layout"}                       # the one form: holding it names it
# A member that is a ScaLAPACK descriptor: std::array<int, 9> or int name[9] (no pointer).
DESCRIPTOR = re.compile(r"^(?:(?:const|mutable|static)\s+)*(?:std::)?array\s*<\s*int\s*,\s*9\s*>\s*\w"
                        r"|^(?:(?:const|mutable)\s+)*int\s+\w+\s*\[\s*9\s*\]")
CONTEXT = re.compile(r"^(?:\w+_)?(?:context|ctxt|ictxt)(?:_\w+)?$")


def held_roles(body):
    """The roles a class body's data members hold: 'shape', 'blocks', 'grid'."""
    fields = types.member_fields(body)
    out = set()
    if any(DESCRIPTOR.match(st) for st in types.statements(body)):
        out |= ALL
    for name, typ in fields.items():
        if typ in SPELLED:
            out |= ALL
        elif typ in DESCRIBED:
            out |= {"shape", "blocks"}
        elif typ in types.BLOCK_TYPES:
            out.add("blocks")
        elif typ == "int" and CONTEXT.match(name):
            out.add("grid")
    named = {n: t for n, t in fields.items() if t not in SPELLED | DESCRIBED | NAMED | types.BLOCK_TYPES | types.VIEW_TYPES}
    return out | (types.roles(named, frozenset()) - {"held"})


def forms(root):
    """(path, line, name) of every struct/class of the sources that is a matrix form."""
    found = []
    for folder in types.FOLDERS:
        for path in source_files(os.path.join(root, folder), types.EXTS):
            code = types._blank(open(path, encoding="utf-8", errors="replace").read())
            for m in types.HEAD.finditer(code):
                body, _ = types._body(code, m.end() - 1)
                if ALL <= held_roles(body):
                    found.append((os.path.relpath(path, root), code.count("\n", 0, m.start(2)) + 1, m.group(2)))
    return found


def read_forms(root):
    """[(name, path, role, line)] of the list, and the problems of its own form."""
    return types.read_roles(root, FORMS, f"the matrix forms, exactly {MAX_FORMS}")


def ceiling_problems(count, ceiling=None, before=None):
    """The ratchet: `count` forms against the ceiling, which only goes down."""
    ceiling = MAX_FORMS if ceiling is None else ceiling
    before = MAX_FORMS_BEFORE if before is None else before
    out = []
    history = before + [ceiling]
    if any(b >= a for a, b in zip(history, history[1:])):
        out.append(f"structure_matrix_forms.py: the ceilings {history} do not go down at each step "
                   "(MAX_FORMS_BEFORE, then MAX_FORMS): the count of matrix forms is only lowered")
    if count > ceiling:
        out.append(f"{FORMS}: {count} matrix forms, at most {ceiling}: hold a redist::Layout, with the grid's "
                   "context and the leading dimension beside it, instead of a descriptor or a form of its own")
    elif count < ceiling:
        out.append(f"{FORMS}: {count} matrix forms, the ceiling is {ceiling}: lower MAX_FORMS to {count} "
                   f"(and add {ceiling} to MAX_FORMS_BEFORE) in tests/structure/structure_matrix_forms.py")
    return out


def problems(root):
    entries, out = read_forms(root)
    listed = {(name, path) for name, path, _, _ in entries}
    found = forms(root)
    for path, line, name in found:
        if (name, path) not in listed:
            out.append(f"{path}:{line}: {name} is a matrix form (it holds a global shape, blocks and a grid or a "
                       f"context) and is not in {FORMS}: hold a redist::Layout, the context and the leading "
                       "dimension instead, and derive a descriptor where ScaLAPACK is called")
    present = {(name, path) for path, _, name in found}
    for name, path, _, k in entries:
        if (name, path) not in present:
            out.append(f"{FORMS}:{k}: {name} is not a matrix form of {path} (gone or moved: update the list)")
    return out + ceiling_problems(len(entries))


def mutation(planted):
    """The breaches planted on the matrix types' rule's copy of the tree (planted(rel, change,
    want, label, caught=True) writes a change, checks and restores); True when all answer."""
    ok = True
    add = "\nnamespace resize::detail {\n%s\n}\n"
    mover = os.path.join("resize", "src", "move", "mover.cpp")
    # A stored descriptor beside a layout, as the grid switch's MovePart held two.
    part = ("struct Part {\n  redist::Layout la;\n  std::array<int, 9> da{}, db{};\n  int to_context = -1;\n};")
    ok &= planted(mover, lambda t: t + add % part, "Part is a matrix form", "a struct holding a Layout and two descriptors")
    # ... or a C array of 9, in a private part of a class.
    arr = "class Keep {\n public:\n  int f() const;\n private:\n  struct Held {\n    int desc[9];\n  };\n};"
    ok &= planted(mover, lambda t: t + add % arr, "Held is a matrix form", "a descriptor int[9] nested after private:")
    # A record (shape and blocks) with a context beside it.
    rec = "struct OnGrid {\n  redist::MatrixSpec spec;\n  int ctxt_a = -1;\n};"
    ok &= planted(mover, lambda t: t + add % rec, "OnGrid is a matrix form", "a MatrixSpec with a context beside it")
    # Not a form: a Layout with the context and the leading dimension (it names the form), and
    # a pointer to a descriptor.
    named = "struct Named {\n  redist::Layout layout;\n  int context = -1, lld = 1;\n  const int* desca = nullptr;\n};"
    ok &= planted(mover, lambda t: t + add % named, "Named is a matrix form", "a Layout, a context, an lld and a "
                  "descriptor pointer", caught=False)
    # A listed form taken off the list; a line more than the ceiling (a form listed twice).
    ok &= planted(FORMS, lambda t: "\n".join(l for l in t.splitlines() if not l.startswith("redist_desc ")) + "\n",
                  "redist_desc is a matrix form", "redist_desc taken off the list")
    ok &= planted(FORMS, lambda t: t + [l for l in t.splitlines() if l.startswith("Layout ")][0] + "\n",
                  f"at most {MAX_FORMS}", "a line over the ceiling (Layout listed twice)")
    # The ceiling raised, or left above the count.
    for label, problems_of, want in (
            ("the ceiling raised (MAX_FORMS 6 after 5)", ceiling_problems(6, 6, [5]), "do not go down"),
            ("a form fewer than the ceiling", ceiling_problems(MAX_FORMS - 1), "lower MAX_FORMS")):
        hit = any(want in p for p in problems_of)
        print(f"matrix-forms mutation: {label}: " + ("caught" if hit else "passed (WRONG)"))
        ok &= hit
    return ok
