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

std::vector<int> ranks_in_world(const std::vector<int>& world_rank_of) {
  std::vector<int> out;
  for (std::size_t k = 0; k < world_rank_of.size(); ++k)
    if (world_rank_of[k] >= 0) out.push_back(static_cast<int>(k));
  return out;
}

namespace {

// A new attribute key for a list of ranks cached on communicators (each list its own key,
// made once: the node's ranks, the job's ranks).
int list_keyval() {
  int k = MPI_KEYVAL_INVALID;
  auto del = [](MPI_Comm, int, void* v, void*) -> int {
    delete static_cast<std::vector<int>*>(v);
    return MPI_SUCCESS;
  };
  detail::check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr), "MPI_Comm_create_keyval");
  return k;
}

const std::vector<int>* cached(MPI_Comm comm, int key) {
  void* v = nullptr;
  int found = 0;
  detail::check_mpi(MPI_Comm_get_attr(comm, key, &v, &found), "MPI_Comm_get_attr");
  return found && v ? static_cast<std::vector<int>*>(v) : nullptr;
}

}  // namespace

const std::vector<int>& node_ranks(MPI_Comm comm) {
  static const int key = list_keyval();
  if (const std::vector<int>* c = cached(comm, key)) return *c;
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

const std::vector<int>& job_ranks(MPI_Comm comm) {
  static const int key = list_keyval();
  if (const std::vector<int>* c = cached(comm, key)) return *c;
  int n = 0;
  detail::check_mpi(MPI_Comm_size(comm, &n), "MPI_Comm_size");
  MPI_Group mine = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  detail::check_mpi(MPI_Comm_group(comm, &mine), "MPI_Comm_group");
  detail::check_mpi(MPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group (MPI_COMM_WORLD)");
  std::vector<int> all(static_cast<std::size_t>(n)), in_world(static_cast<std::size_t>(n), MPI_UNDEFINED);
  for (int r = 0; r < n; ++r) all[static_cast<std::size_t>(r)] = r;
  const int rc = MPI_Group_translate_ranks(mine, n, all.data(), world, in_world.data());
  MPI_Group_free(&mine);
  MPI_Group_free(&world);
  detail::check_mpi(rc, "MPI_Group_translate_ranks");
  for (int& w : in_world)
    if (w == MPI_UNDEFINED) w = -1;
  auto* ranks = new std::vector<int>(ranks_in_world(in_world));
  detail::check_mpi(MPI_Comm_set_attr(comm, key, ranks), "MPI_Comm_set_attr");
  return *ranks;
}

}  // namespace redist
