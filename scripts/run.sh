#!/usr/bin/env bash
# Set-up (packages + build), then the main job.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$here/build"
echo "== PDGEMM on a 2x2 grid, checked against serial OpenBLAS"
mpiexec --oversubscribe --bind-to none -n 4 apps/pdgemm_smoke 600 64 2 2
