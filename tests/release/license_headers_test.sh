#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/license_headers.sh on a scratch tree of every file kind it handles: --check
# lists exactly the files without the SPDX line; --add puts it in each language's
# comment syntax (after a shebang), the files still compile / parse, executables stay
# executable, and a second --add changes nothing.
set -uo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
cd "$work"
mkdir -p sub docs/data
printf '// a C++ file\nint f() { return 1; }\n' >a.cpp
printf '// a header\n#pragma once\nint g();\n' >a.hpp
printf '/* a C file */\nint h(void) { return 2; }\n' >b.c
printf '/* a C header */\nint h(void);\n' >b.h
printf '! a Fortran module\nmodule m\nend module m\n' >c.f90
printf '#!/usr/bin/env bash\n# a script\necho hi\n' >d.sh && chmod +x d.sh
printf '#!/usr/bin/env python3\n"""a script"""\nprint(1)\n' >e.py
printf '# a CMake module\nset(X 1)\n' >f.cmake
printf '# a project\ncmake_minimum_required(VERSION 3.20)\n' >sub/CMakeLists.txt
printf '# SPDX-License-Identifier: BSD-3-Clause\n# already has it\n' >g.sh
printf 'not a source file\n' >notes.txt
printf '// recorded output\n' >docs/data/x.cpp
want="a.cpp a.hpp b.c b.h c.f90 d.sh e.py f.cmake sub/CMakeLists.txt"
got=$("$script" --check "$work" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')
[[ $got == "$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ' | sed 's/ $//')" ]] || fail "--check listed '$got', expected '$want'"
"$script" --check "$work" >/dev/null 2>&1 && fail "--check passed with files missing the line"
"$script" --add "$work" >/dev/null || fail "--add failed"
"$script" --check "$work" >/dev/null || fail "--check fails after --add"
[[ $(head -1 a.cpp) == "// SPDX-License-Identifier: BSD-3-Clause" ]] || fail "a.cpp: $(head -1 a.cpp)"
[[ $(head -1 b.c) == "/* SPDX-License-Identifier: BSD-3-Clause */" ]] || fail "b.c: $(head -1 b.c)"
[[ $(head -1 c.f90) == "! SPDX-License-Identifier: BSD-3-Clause" ]] || fail "c.f90: $(head -1 c.f90)"
[[ $(head -1 d.sh) == "#!/usr/bin/env bash" && $(sed -n 2p d.sh) == "# SPDX-License-Identifier: BSD-3-Clause" ]] || fail "d.sh: shebang must stay first"
[[ $(head -1 e.py) == "#!/usr/bin/env python3" ]] || fail "e.py: shebang must stay first"
[[ $(head -1 sub/CMakeLists.txt) == "# SPDX-License-Identifier: BSD-3-Clause" ]] || fail "CMakeLists.txt"
[[ $(grep -c SPDX g.sh) -eq 1 ]] || fail "g.sh got a second line"
[[ -x d.sh ]] || fail "d.sh lost its executable bit"
grep -q SPDX docs/data/x.cpp && fail "docs/data is recorded output and must be left alone"
g++ -std=c++20 -fsyntax-only a.cpp || fail "a.cpp no longer compiles"
gcc -std=c99 -pedantic -Werror -fsyntax-only b.c || fail "b.c no longer compiles"
gfortran -fsyntax-only c.f90 -J "$work" || fail "c.f90 no longer compiles"
[[ $(./d.sh) == hi ]] || fail "d.sh no longer runs"
python3 e.py >/dev/null || fail "e.py no longer runs"
before=$(cat a.cpp b.c c.f90 d.sh e.py f.cmake | md5sum)
"$script" --add "$work" >/dev/null
[[ $(cat a.cpp b.c c.f90 d.sh e.py f.cmake | md5sum) == "$before" ]] || fail "a second --add changed files"
[[ $fails -eq 0 ]] && echo PASS
