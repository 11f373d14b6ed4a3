// SPDX-License-Identifier: BSD-3-Clause
// What the MPI library in this process selected, found by looking at the loaded library
// itself (dlsym, dladdr) rather than asked through MPI: the platform side of the MPI
// flavour (protocol/mpi_flavour.cpp reads the names; malleable/blacs_dyn/mpi_flavour.hpp).
#ifndef BLACS_DYN_MPI_PROBE_HPP
#define BLACS_DYN_MPI_PROBE_HPP

#include <string>

namespace blacs_dyn {

// The PML Open MPI selected ("ucx", "ob1", "cm"), from the file its module's functions
// live in (dladdr on Open MPI's `mca_pml` table, whose first entry is a function of the
// selected component's own file, mca_pml_ucx.so); "" where that cannot be found (another
// MPI, a static build). Local; after MPI_Init (the table is filled at the selection).
std::string selected_pml();

}  // namespace blacs_dyn
#endif
