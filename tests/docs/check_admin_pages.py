#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The admin's pages stay readable: docs/guide/arbiter.md (install), arbiter-operation.md
(operation) and threat-model.md each at most 350 lines, each linking the other two (a
reader who lands on one finds the rest). The checker first proves it catches a page one
line too long and a page without its links.
Usage: check_admin_pages.py <source dir>"""
import os
import sys
import tempfile

PAGES = ("arbiter.md", "arbiter-operation.md", "threat-model.md")
MOST = 350


def problems(guide):
    for page in PAGES:
        path = os.path.join(guide, page)
        if not os.path.isfile(path):
            yield f"{page}: missing"
            continue
        text = open(path, encoding="utf-8").read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MOST:
            yield f"{page}: {lines} lines, more than {MOST}: split it"
        for other in PAGES:
            if other != page and f"]({other}" not in text:
                yield f"{page}: no link to {other}"


def main():
    guide = os.path.join(sys.argv[1], "docs", "guide")
    caught = 0
    with tempfile.TemporaryDirectory() as tmp:
        for page in PAGES:
            with open(os.path.join(tmp, page), "w") as f:
                links = "".join(f"[x]({o})\n" for o in PAGES if o != page)
                f.write(links + "line\n" * (MOST - 2 + (page == "arbiter.md")))
        planted = list(problems(tmp))
        caught += planted == [f"arbiter.md: {MOST + 1} lines, more than {MOST}: split it"]
        with open(os.path.join(tmp, "threat-model.md"), "w") as f:
            f.write("[x](arbiter.md)\n")
        caught += "threat-model.md: no link to arbiter-operation.md" in problems(tmp)
    if caught != 2:
        print(f"FAILED: the checker caught {caught} of 2 planted faults")
        return 1
    found = list(problems(guide))
    for p in found:
        print("docs/guide/" + p)
    if found:
        print(f"FAILED: {len(found)} problem(s) in the admin's pages")
        return 1
    sizes = ", ".join(f"{p} {sum(1 for _ in open(os.path.join(guide, p), encoding='utf-8'))}" for p in PAGES)
    print(f"PASS: the admin's pages at most {MOST} lines ({sizes}), each linking the others; the checker caught 2 of 2 planted faults")
    return 0


if __name__ == "__main__":
    sys.exit(main())
