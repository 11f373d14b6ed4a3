# SPDX-License-Identifier: BSD-3-Clause
# What every part's bench command shares (scripts/bench/<part>.sh <case> [arguments]), sourced
# by it: a case is a function case_<name> (a dash in the name given for each underscore) after
# a line "#@case <name>" and the notes that follow it. The part script sets bench_script (its
# own path) before sourcing this file, and runs `bench_main "$0" "$@"` when it is run, not
# sourced.

# _help CASE: the notes above the case's function.
_help() {
  awk -v c="$1" '$1 == "#@case" { on = ($2 == c); next } on && /^#/ { print; next } on { exit }' "$bench_script"
}

_cases() {  # the cases, each with the first line of its notes
  awk '$1 == "#@case" { c = $2; getline; sub(/^# ?/, ""); printf "  %-22s %s\n", c, $0 }' "$bench_script"
}

bench_main() {  # <the command as called> <case> [arguments]
  local self=$1 case=${2:-}
  shift
  case $case in
    -h | --help) echo "usage: $self <case> [arguments]   (<case> --help: its notes)"; _cases; return 0 ;;
    '') echo "usage: $self <case> [arguments]; cases:" >&2; _cases >&2; return 2 ;;
  esac
  if ! declare -F "case_${case//-/_}" >/dev/null || [[ $case == *_* ]]; then
    echo "$self: no case '$case' (cases: $(awk '$1 == "#@case" { printf "%s%s", s, $2; s = " " }' "$bench_script"))" >&2
    return 2
  fi
  shift
  if [[ ${1:-} == -h || ${1:-} == --help ]]; then _help "$case"; return 0; fi
  "case_${case//-/_}" "$@"
}
