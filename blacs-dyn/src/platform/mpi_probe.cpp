// SPDX-License-Identifier: BSD-3-Clause
// The MPI library's own choices, probed in the loaded library (mpi_probe.hpp).
#include "platform/mpi_probe.hpp"

#include <dlfcn.h>

#include <cstring>

#include "malleable/blacs_dyn/mpi_flavour.hpp"

namespace blacs_dyn {

std::string selected_pml() {
  // Open MPI's selected PML module: a table of function pointers, the first one inside
  // the component's own file (mca_pml_ucx.so, mca_pml_ob1.so).
  void* const table = dlsym(RTLD_DEFAULT, "mca_pml");
  if (!table) return {};
  void* first = nullptr;
  std::memcpy(&first, table, sizeof first);
  Dl_info info{};
  if (!first || !dladdr(first, &info) || !info.dli_fname) return {};
  return pml_from_component_file(info.dli_fname);
}

}  // namespace blacs_dyn
