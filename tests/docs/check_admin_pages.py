#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The admin's pages stay readable: docs/guide/arbiter.md (install), arbiter-operation.md
(operation) and threat-model.md each at most 350 lines, each linking the other two (a
reader who lands on one finds the rest). They are installed with the arbiter (the unit's
Documentation=, cluster/CMakeLists.txt), so they link only to pages installed beside them:
a page or file of the source tree alone is named in text, not linked (a link that leads
nowhere on a site's machine). The checker first proves it catches a page one line too
long, a page without its links and a link to a page not installed.
Usage: check_admin_pages.py <source dir>"""
import os
import re
import sys
import tempfile

PAGES = ("arbiter.md", "arbiter-operation.md", "threat-model.md")
MOST = 350


LINK = re.compile(r"\]\(([^)\s]+)\)")


def installed_pages(src):
    """The docs/guide pages cluster/CMakeLists.txt installs (the install(FILES ...) naming them)."""
    text = open(os.path.join(src, "cluster", "CMakeLists.txt"), encoding="utf-8").read()
    return set(re.findall(r"docs/guide/([A-Za-z0-9_.-]+\.md)", text))


def bad_links(text, installed):
    """Relative links of a page that lead outside the installed pages (anchors of a page are fine)."""
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        page = target.split("#", 1)[0]
        if page not in installed:
            yield target


def problems(guide, installed=PAGES):
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
        for target in bad_links(text, installed):
            yield f"{page}: links {target}, which is not installed with it: name it in text"


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
        with open(os.path.join(tmp, "threat-model.md"), "w") as f:
            f.write("[x](arbiter.md) [y](arbiter-operation.md#a) [z](slurm.md#b)\n")
        found = [x for x in problems(tmp) if x.startswith("threat-model.md")]
        caught += found == ["threat-model.md: links slurm.md#b, which is not installed with it: name it in text"]
    if caught != 3:
        print(f"FAILED: the checker caught {caught} of 3 planted faults")
        return 1
    installed = installed_pages(sys.argv[1])
    if set(PAGES) - installed:
        print(f"FAILED: cluster/CMakeLists.txt does not install {sorted(set(PAGES) - installed)}")
        return 1
    found = list(problems(guide, installed))
    for p in found:
        print("docs/guide/" + p)
    if found:
        print(f"FAILED: {len(found)} problem(s) in the admin's pages")
        return 1
    sizes = ", ".join(f"{p} {sum(1 for _ in open(os.path.join(guide, p), encoding='utf-8'))}" for p in PAGES)
    print(f"PASS: the admin's pages at most {MOST} lines ({sizes}), each linking the others and only installed pages; the checker caught 3 of 3 planted faults")
    return 0


if __name__ == "__main__":
    sys.exit(main())
