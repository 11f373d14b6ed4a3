# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2154  # here, build and out: set by the sourcing script
# Sourced by the simulated workload studies (workload.sh seeds, workload.sh settings): their
# options, their set-up, and the emulated runner's compression of a generated workload.
# The sourcing script sets `here` (the checkout) and the defaults of its options first.

# wl_args "OPTIONS" FIRST,LAST ARGS...: --NAME VALUE sets the variable NAME for each NAME in
# OPTIONS (e.g. "seeds share out"); -h/--help prints lines FIRST-LAST of the script's header;
# any other word is the build directory (`build`).
wl_args() {
  local allowed=$1 help=$2 opt
  shift 2
  while (($#)); do
    case $1 in
      -h | --help) sed -n "${help}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
      --*)
        opt=${1#--}
        [[ " $allowed " == *" $opt "* ]] || { echo "$(basename "$0"): unknown option $1" >&2; exit 2; }
        (($# >= 2)) || { echo "$(basename "$0"): $1 needs a value" >&2; exit 2; }
        printf -v "$opt" '%s' "$2"
        shift 2 ;;
      *) build=$1; shift ;;
    esac
  done
}

# wl_setup NAME: the simulator (bin), the workload scripts (wl), the resize costs fitted on
# the emulated runs (emu_costs), a temporary directory (tmp, removed at exit), out's folder.
wl_setup() {
  bin=$build/sim/malleable-clustersim
  [[ -x $bin ]] || { echo "$1: $bin not built (needs libsimgrid-dev)" >&2; exit 1; }
  wl=$here/scripts/bench/workload
  emu_costs=$here/docs/data/workload/emulated/costs_validation.json
  [[ -r $emu_costs ]] || emu_costs=$here/sim/costs/emulated.json
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$(dirname "$out")"
}

# wl_compress GENERATED LO HI OUT: the workload compressed into [LO, HI] s as the emulated
# runner does (cluster_stream.py prepare) with the runner's time limits
# (cluster_stream.time_limit_min), which Slurm's backfilling plans with.
wl_compress() {
  python3 "$wl/cluster_stream.py" prepare --workload "$1" --lo "$2" --hi "$3" -o "$tmp/prepared.json"
  python3 - "$wl" "$tmp/prepared.json" "$4" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import cluster_stream
w = json.load(open(sys.argv[2]))
for j in w["jobs"]:
    j["limit_s"] = 60.0 * cluster_stream.time_limit_min(j)
json.dump(w, open(sys.argv[3], "w"))
PY
}
