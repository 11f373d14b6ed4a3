#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs check_figures.py on a scratch tree with planted faults (a figure its data file does
not hold, one from the wrong CSV column, an untied figure in README.md, a source that does
not exist, a figure a named script does not compute, a range whose lower end is not there, a figure an archive member does not hold) beside good ones (rounded, converted
from seconds, found in a column, computed by a script, listed as no measurement, untied in
the guide: skipped, found in an archive's member); it must report exactly the faults. Then on the project's README.md
and docs/guide/*.md. Usage: check_figures_test.py <source dir>"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_figures  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


with tempfile.TemporaryDirectory() as t:
    write(os.path.join(t, "docs", "data", "t.csv"), "run,minutes,load\n1,27,9\n2,3.14,12\n")
    write(os.path.join(t, "docs", "data", "r.txt"), "recover 0.1534 s ratio 1.77\n")
    import io
    import tarfile
    os.makedirs(os.path.join(t, "docs", "data", "s"))
    with tarfile.open(os.path.join(t, "docs", "data", "s", "runs.tar.xz"), "w:xz") as tf:
        body = b"run 1 took 41.5 ms\n"
        info = tarfile.TarInfo("raw/run1.txt")
        info.size = len(body)
        tf.addfile(info, io.BytesIO(body))
    write(os.path.join(t, "scripts", "twice.py"), "import sys\nprint(2 * float(open(sys.argv[1]).read().split()[1]))\n")
    write(os.path.join(t, "README.md"),
          "# R\n\n"
          "It took 27 minutes, then 3.1 minutes; progress every 10%.\n"             # 3: good
          "<!-- figure: docs/data/t.csv column minutes --> <!-- not measured: 10% -->\n\n"
          "It took 12 minutes.\n<!-- figure: docs/data/t.csv column minutes -->\n\n"  # 6: 12 is a load
          "Recovery took 153 ms and 1.77x (`docs/data/r.txt`), not 1.78x (`docs/data/r.txt`).\n\n"  # 9: 1.78 planted
          "It took 5 s.\n\n"                                                         # 11: untied in README
          "Twice: 0.31 s and 0.32 s. <!-- figure: docs/data/r.txt via python3 scripts/twice.py -->\n\n"  # 13: 0.32 planted
          "Gone: 4 s (`docs/data/gone.csv`).\n\n"                                   # 15: no such source
          "Ranges 9-12 minutes, 2-27 minutes.\n<!-- figure: docs/data/t.csv column load -->\n"  # 17: 27 planted
          "<!-- figure: docs/data/t.csv column minutes -->\n\n"
          "Packed: 41.5 ms. <!-- figure: docs/data/s/runs.tar.xz:raw/run1.txt -->\n\n"  # 21: good, a member
          "Packed too: 41.5 ms (`docs/data/s/raw/run1.txt`).\n\n"                  # 23: good, inside the study
          "Packed wrong: 42.5 ms. <!-- figure: docs/data/s/runs.tar.xz:raw/run1.txt -->\n")  # 25: planted
    write(os.path.join(t, "docs", "guide", "g.md"), "# G\n\nUntied here: 8 ms.\n")
    covered, skipped, bad = check_figures.check(t)
    got = sorted(int(b.split(":")[1]) for b in bad)
    want = [6, 9, 11, 13, 15, 15, 17, 25]
    if got != want or len(skipped) != 2 or len(covered) != 14 \
            or not any("figure 1.78 x" in b for b in bad) or not any("figure 12 minutes" in b for b in bad) or not any("lower end 2 " in b for b in bad):
        print("\n".join(bad))
        print(f"FAILED: on the planted tree the checker reported lines {got} ({len(covered)} covered, "
              f"{len(skipped)} skipped), expected {want} (14 covered, 2 skipped)")
        sys.exit(1)

covered, skipped, bad = check_figures.check(sys.argv[1])
for b in bad:
    print(b)
if bad:
    print(f"FAILED: {len(bad)} figures of README.md and docs/guide/*.md are not in the data they name")
    sys.exit(1)
print(f"PASS: {len(covered)} figures of README.md and docs/guide/*.md found in the data files they name, "
      f"{len(skipped)} skipped (untied: their sentence names no docs/data file); the checker caught 8 of 8 planted faults")
