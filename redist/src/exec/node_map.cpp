// SPDX-License-Identifier: BSD-3-Clause
// The node map of the redistribution (malleable/redist/node_map.hpp): ranks grouped by
// host name, cached on the communicator.
#include "malleable/redist/node_map.hpp"

#include <cstring>

#include "../mpi_guard.hpp"

namespace redist {

std::vector<int> ranks_named_alike(const std::vector<std::string>& names, int me) {
  std::vector<int> out;
  if (me < 0 || static_cast<std::size_t>(me) >= names.size()) return out;
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == names[static_cast<std::size_t>(me)]) out.push_back(static_cast<int>(k));
  return out;
}

namespace {

int node_keyval() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    auto del = [](MPI_Comm, int, void* v, void*) -> int {
      delete static_cast<std::vector<int>*>(v);
      return MPI_SUCCESS;
    };
    detail::check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr), "MPI_Comm_create_keyval");
    return k;
  }();
  return key;
}

}  // namespace

const std::vector<int>& node_ranks(MPI_Comm comm) {
  const int key = node_keyval();
  void* v = nullptr;
  int found = 0;
  detail::check_mpi(MPI_Comm_get_attr(comm, key, &v, &found), "MPI_Comm_get_attr");
  if (found && v) return *static_cast<std::vector<int>*>(v);
  int me = 0, n = 0;
  detail::check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  detail::check_mpi(MPI_Comm_size(comm, &n), "MPI_Comm_size");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  detail::check_mpi(MPI_Get_processor_name(host, &len), "MPI_Get_processor_name");
  std::vector<char> all(static_cast<std::size_t>(n) * MPI_MAX_PROCESSOR_NAME);
  detail::check_mpi(MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm),
                    "MPI_Allgather (host names)");
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    const char* h = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    names.emplace_back(h, strnlen(h, MPI_MAX_PROCESSOR_NAME));
  }
  auto* ranks = new std::vector<int>(ranks_named_alike(names, me));
  detail::check_mpi(MPI_Comm_set_attr(comm, key, ranks), "MPI_Comm_set_attr");
  return *ranks;
}

}  // namespace redist
