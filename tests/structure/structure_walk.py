# SPDX-License-Identifier: BSD-3-Clause
"""The walk of a source folder that the rules of tests/structure/check-structure.py share."""
import os


def source_files(base, exts):
    """The paths of the files under `base` whose names end in one of `exts`, folder by folder in
    sorted order, build folders (build*) left out."""
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
        for f in sorted(filenames):
            if f.endswith(exts):
                yield os.path.join(dirpath, f)
