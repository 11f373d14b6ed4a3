# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Sourced by resize_phases.sh and spawn_addhost.sh (not run): the raw MPI_Comm_spawn + merge
# of spawn_pingpong.c's spawn mode, built and run the same way by both. Needs $here (the
# source tree) and, for the cluster's, CLUSTER (scripts/cluster.sh).
: "${here:?raw_spawn_lib.sh: set here to the source tree before sourcing it}"

# PMIX_MCA_gds=hash as the library sets it before MPI_Init (docs/reference/blacs-dyn.md): without
# it a spawn of the raw programs hung in PMIx_Init / PMIx_Lookup here.
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1

raw_spawn_build() {  # <output>: spawn_pingpong alone
  mpicc -O2 "$here/scripts/bench/spawn_pingpong.c" -o "$1"
}

# spawn_pingpong linked with a driver's libraries (its NEEDED entries and run path): its
# newcomers load and initialise what the driver's do.
raw_with_libs() {  # <driver executable> <output>
  local rp libs
  rp=$(readelf -d "$1" | sed -n 's/.*R[UN]*PATH.*\[\(.*\)\]/\1/p')
  libs=$(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/-l:\1/p' | grep -v -e libmpi.so -e libc.so -e libm.so -e libgcc_s)
  # shellcheck disable=SC2046,SC2086
  mpicc -O2 "$here/scripts/bench/spawn_pingpong.c" -o "$2" $(tr ':' '\n' <<<"$rp" | grep . | sed 's/^/-L/') \
    -Wl,--no-as-needed $libs -Wl,-rpath,"$rp"
}

# The emulated cluster brought up anew (2 nodes, links shaped to 1 Gbit/s) and its MPI
# environment exported; the caller holds the cluster lock on fd 9 and brings it down.
raw_cluster_up() {
  "$CLUSTER" down >/dev/null
  "$CLUSTER" up 2 --rate 1gbit 9>&- >/dev/null
  eval "export $("$CLUSTER" mpi-env | tr '\n' ' ')"
}

# One raw spawn run on the emulated cluster: 2 processes spawned onto node2, REPS times after
# a warm-up (it prints "raw_spawn_merge_ms 2 MEDIAN FIRST"), from a job started on node1
# either with the cluster's hostfile (pool: node2 in its allocation from the start) or on
# node1 alone reaching node2 with Open MPI's "add-host" (add-host: node2's daemon is started
# inside the first spawn, as in a resize's per-host spawn).
raw_spawn_cluster() {  # <pool|add-host> <program> <reps> <timeout seconds>
  local job=(-n 2) tail=()
  if [[ $1 == add-host ]]; then job=(--host node1:2 -n 2) tail=(add-host); fi
  timeout "$4" "$CLUSTER" exec node1 mpiexec --oversubscribe --bind-to none "${job[@]}" "$2" spawn 2 "$3" node2 "${tail[@]}"
}
