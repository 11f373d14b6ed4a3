# SPDX-License-Identifier: BSD-3-Clause
# Spack recipe for malleable (copy into a Spack repository as packages/malleable/package.py).
# Checked here by tests/release/check_spack_package.py (syntax, directives, dependency
# names); Spack itself is not installed on the build machine (not a Debian package).
from spack.package import *


class Malleable(CMakePackage):
    """Malleable ScaLAPACK: resizable MPI applications. A running job grows onto new
    processes (MPI_Comm_spawn) and shrinks back, and its block-cyclic matrices are
    redistributed onto the new process grid (dynamic BLACS, redistribution, process
    mapping and a resize session with C, C++ and Fortran interfaces)."""

    homepage = "https://github.com/malleable/malleable"
    git = "https://github.com/malleable/malleable.git"

    maintainers("malleable")
    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.3.0", tag="v0.3.0")
    version("0.2.0", tag="v0.2.0")

    variant("fortran", default=True, description="Fortran modules (malleable_<part>_fortran libraries)")
    variant("hdf5", default=True, description="HDF5 checkpoints of a session (parallel HDF5)")
    # 0.3 builds both always: checkpoint/restart is part of the session, and the Fortran
    # modules come with every part. The variants name what a later release may make optional.
    conflicts("~hdf5", msg="malleable 0.3 always builds checkpoint/restart, which needs parallel HDF5")
    conflicts("~fortran", msg="malleable 0.3 always builds its Fortran modules")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("fortran", type="build")  # ScaLAPACK's Fortran interface is always used

    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    # Open MPI or MPICH through the mpi virtual; MPI_Comm_spawn is required.
    depends_on("mpi@3:")
    depends_on("scalapack")
    depends_on("blas")
    depends_on("lapack")
    depends_on("nlohmann-json@3:", type="build")
    depends_on("cli11", type="build")
    depends_on("googletest", type="test")
    depends_on("hdf5+mpi", when="+hdf5")

    # C++20 (concepts, std::span)
    conflicts("%gcc@:9", msg="malleable needs C++20 (GCC 10 or newer)")

    def cmake_args(self):
        return [
            self.define("MALL_BUILD_TESTS", self.run_tests),
        ]
