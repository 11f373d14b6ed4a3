#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The SPDX licence line of every source file (LICENSE: BSD-3-Clause).
#   license_headers.sh --check [DIR]   list files without the line in their first 3 lines
#                                      (exit 1 if any)
#   license_headers.sh --add [DIR]     insert it as the first line (after a shebang), as a
#                                      comment of the file's language; idempotent
# Files: the git-tracked (else all) *.cpp *.hpp *.h *.c *.f90 *.sh *.py *.cmake and
# CMakeLists.txt under DIR (default: the repository holding this script), except
# docs/data (recorded output).
set -euo pipefail
# The whole script is one function called from its last line, so that bash has read all
# of it before --add rewrites this very file (bash reads a script as it runs it).
main() {
  spdx="SPDX-License-Identifier: BSD-3-Clause"
  mode=${1:-}
  root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
  case $mode in
    --check|--add) ;;
    *) echo "usage: $0 --check|--add [DIR]" >&2; exit 2 ;;
  esac

  list_files() {
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
      git -C "$root" ls-files -z --cached --others --exclude-standard
    else
      (cd "$root" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print0 | sed -z 's|^\./||')
    fi | while IFS= read -r -d '' f; do
      [[ $f == docs/data/* ]] && continue
      [[ -f $root/$f ]] || continue
      case $f in
        *.cpp|*.hpp|*.h|*.c|*.f90|*.sh|*.py|*.cmake|CMakeLists.txt|*/CMakeLists.txt) printf '%s\n' "$f" ;;
      esac
    done
  }

  comment_for() {
    case $1 in
      *.cpp|*.hpp) echo "// $spdx" ;;
      *.c|*.h) echo "/* $spdx */" ;;
      *.f90) echo "! $spdx" ;;
      *) echo "# $spdx" ;;
    esac
  }

  # Which files lack the line: one `head` over all of them (its "==> f <==" banners name
  # each file, empty ones too) read by one awk, not two processes per file.
  files=()
  while IFS= read -r f; do files+=("$f"); done < <(list_files)
  lacking=()
  if [[ ${#files[@]} -gt 0 ]]; then
    while IFS= read -r f; do lacking+=("$f"); done < <(
      cd "$root" && head -v -n 3 -- "${files[@]}" | awk -v spdx="$spdx" '
        /^==> .* <==$/ { if (name != "" && !seen) print name
                         name = substr($0, 5, length($0) - 8); seen = 0; next }
        index($0, spdx) { seen = 1 }
        END { if (name != "" && !seen) print name }')
  fi

  missing=0
  for f in "${lacking[@]}"; do
    if [[ $mode == --check ]]; then
      echo "$f"
      missing=$((missing + 1))
      continue
    fi
    line=$(comment_for "$f")
    tmp=$(mktemp)
    if grep -q '^#!' <<<"$(head -n 1 "$root/$f")"; then
      { head -n 1 "$root/$f"; echo "$line"; tail -n +2 "$root/$f"; } >"$tmp"
    else
      { echo "$line"; cat "$root/$f"; } >"$tmp"
    fi
    cat "$tmp" >"$root/$f"  # keeps the file's mode (executable scripts stay executable)
    rm -f "$tmp"
    echo "added: $f"
  done

  if [[ $mode == --check ]]; then
    if [[ $missing -gt 0 ]]; then
      echo "license_headers: $missing file(s) above lack '$spdx' in their first 3 lines (run $0 --add)" >&2
      exit 1
    fi
    echo "license_headers: every source file carries '$spdx'"
  fi
}
main "$@"; exit $?
