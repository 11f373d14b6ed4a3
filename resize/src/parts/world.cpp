// SPDX-License-Identifier: BSD-3-Clause
#include "parts/world.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/resize/types.hpp"

namespace resize::detail {

std::string World::backend() { return "blacs-dyn"; }
MPI_Comm World::comm() { return blacs_dyn_world(); }
bool World::is_new() { return blacs_dyn_is_new() != 0; }
void World::clear_new() { blacs_dyn_clear_new(); }

bool World::spawn_supported(std::string& why) {
  if (blacs_dyn_spawn_supported()) return true;
  why = blacs_dyn_spawn_unsupported_reason();
  return false;
}

namespace {
std::atomic<int> spawned_here{0};
std::string spawn_env;  // World::set_spawn_env: Open MPI's "env" key of the next spawns

// The MPI_Info of a spawn: the "env" key when set_spawn_env gave one (freed by the caller).
MPI_Info spawn_info() {
  if (spawn_env.empty()) return MPI_INFO_NULL;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "env", spawn_env.c_str());
  return info;
}
void free_info(MPI_Info& info) {
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

int size_of(MPI_Comm c) {
  int n = 0;
  if (c != MPI_COMM_NULL) MPI_Comm_size(c, &n);
  return n;
}

// Counts what a successful expansion added to the (calling thread's) world.
int counted(int rc, int before) {
  if (rc == BLACS_DYN_OK) spawned_here += std::max(0, size_of(blacs_dyn_world()) - before);
  return rc;
}

int fail(int rc, std::string& err) {
  // "spawn not supported by this MPI (...)" names itself; the others get the status first.
  if (rc == BLACS_DYN_ERR_UNSUPPORTED) err = blacs_dyn_last_error();
  else if (rc != BLACS_DYN_OK) err = std::string(blacs_dyn_status_string(rc)) + ": " + blacs_dyn_last_error();
  return rc;
}
}  // namespace

int World::expand(int nnew, const std::string& command, const std::vector<std::string>& args,
                  std::string& err) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int before = size_of(blacs_dyn_world());
  MPI_Info info = spawn_info();
  const int rc = counted(blacs_dyn_expand(nnew, command.c_str(), argv.data(), nullptr, info), before);
  free_info(info);
  return fail(rc, err);
}

void World::set_spawn_env(const std::string& env) { spawn_env = env; }

int World::spawned() { return spawned_here.load(); }

int World::expand_schema(const std::string& path, std::string& err) {
  const int before = size_of(blacs_dyn_world());
  return fail(counted(blacs_dyn_expand_schema(path.c_str()), before), err);
}

int World::expand_hosts(const std::vector<std::pair<std::string, int>>& hosts,
                        const std::string& command, const std::vector<std::string>& args,
                        std::string& err) {
  std::vector<const char*> names;
  std::vector<int> counts;
  for (const auto& [h, c] : hosts) {
    names.push_back(h.c_str());
    counts.push_back(c);
  }
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int before = size_of(blacs_dyn_world());
  MPI_Info info = spawn_info();
  const int rc = counted(blacs_dyn_expand_hosts(static_cast<int>(names.size()), names.data(), counts.data(),
                                                command.c_str(), argv.data(), info),
                         before);
  free_info(info);
  return fail(rc, err);
}

bool World::join_orders() { return blacs_dyn_join_can_order() != 0; }

std::vector<World::Waiting> World::join_waiting() {
  int n = 0, procs = 0;
  std::vector<Waiting> out;
  if (blacs_dyn_join_waiting(&n, &procs) != BLACS_DYN_OK) return out;
  for (int i = 0; i < n; ++i) {
    char id[80] = "", host[MPI_MAX_PROCESSOR_NAME] = "";
    int p = 0;
    if (blacs_dyn_join_waiting_launch(i, id, sizeof id, host, sizeof host, &p) == BLACS_DYN_OK) out.push_back({id, host, p});
  }
  return out;
}

int World::expand_join(const std::vector<std::pair<std::string, int>>& hosts, std::string& err) {
  std::vector<const char*> names;
  std::vector<int> counts;
  for (const auto& [h, c] : hosts) {
    names.push_back(h.c_str());
    counts.push_back(c);
  }
  const int before = size_of(blacs_dyn_world());
  return fail(counted(blacs_dyn_expand_join_hosts(static_cast<int>(names.size()), names.data(), counts.data(), 0), before),
              err);
}

int World::expand_join_launches(const std::vector<std::string>& launches, std::string& err) {
  std::vector<const char*> ids;
  for (const auto& l : launches) ids.push_back(l.c_str());
  const int before = size_of(blacs_dyn_world());
  return fail(counted(blacs_dyn_expand_join(static_cast<int>(ids.size()), ids.data(), 0), before), err);
}

namespace {
// The last World::hosts() answer and every rank's pid with it (for the watchdog's
// message). Written by the main thread, copied by it into the watchdog.
std::vector<std::string> g_hosts;
std::vector<int> g_pids;
}  // namespace

std::vector<std::string> World::hosts() {
  constexpr int stride = MPI_MAX_PROCESSOR_NAME;
  std::vector<char> buf(static_cast<std::size_t>(blacs_dyn_size()) * stride);
  std::string err;
  if (fail(blacs_dyn_hosts(buf.data(), stride), err) != BLACS_DYN_OK) throw Error("hosts: " + err);
  std::vector<std::string> out;
  for (std::size_t r = 0; r * stride < buf.size(); ++r) out.emplace_back(buf.data() + r * stride);
  const int pid = static_cast<int>(getpid());
  std::vector<int> pids(out.size(), -1);
  if (MPI_Allgather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, comm()) != MPI_SUCCESS)
    throw Error("hosts: MPI_Allgather of the pids failed");
  g_hosts = out;
  g_pids = std::move(pids);
  return out;
}

const std::vector<std::string>& World::known_hosts() { return g_hosts; }
const std::vector<int>& World::known_pids() { return g_pids; }

namespace {
struct HookCall {
  const std::vector<int>* keep;
  const std::function<bool()>* move;
  std::string error;
};
// blacs-dyn calls this inside the shrink, after validating it: the plan it is about to
// carry out must keep exactly the ranks the session planned for, in that order.
int shrink_hook(MPI_Comm, const int* new_rank, int old_size, int new_size, void* user) {
  auto* h = static_cast<HookCall*>(user);
  bool same = new_size == static_cast<int>(h->keep->size());
  for (int i = 0; same && i < new_size; ++i) {
    const int r = (*h->keep)[static_cast<std::size_t>(i)];
    same = r >= 0 && r < old_size && new_rank[r] == i;
  }
  if (!same) {
    h->error = "the shrink would keep other processes than the session planned";
    return 1;
  }
  try {
    return (*h->move)() ? 0 : 1;
  } catch (const std::exception& e) {
    h->error = e.what();
    return 1;
  }
}
}  // namespace

int World::shrink(const std::vector<int>& keep, const std::vector<std::string>& release,
                  const std::function<bool()>& move, bool& leaving, std::string& err) {
  const int k = static_cast<int>(keep.size());
  int leave = 0, rc = BLACS_DYN_OK;
  HookCall call{&keep, &move, {}};
  blacs_dyn_set_shrink_hook(&shrink_hook, &call);
  if (!release.empty()) {
    std::vector<const char*> names;
    for (const auto& h : release) names.push_back(h.c_str());
    rc = blacs_dyn_release_hosts(static_cast<int>(names.size()), names.data(), &leave);
  } else {
    // Any live processes: blacs-dyn pops back down the stack when `keep` is exactly a
    // lower level, else pushes a level of them (a level some of whose processes already
    // left cannot be popped to).
    rc = blacs_dyn_shrink_to_ranks(keep.data(), k, &leave);
  }
  blacs_dyn_set_shrink_hook(nullptr, nullptr);
  leaving = leave != 0;
  if (rc != BLACS_DYN_OK && !call.error.empty()) {
    err = call.error;
    return rc;
  }
  return fail(rc, err);
}

void World::leave() {
  blacs_dyn_leave();
  std::abort();  // blacs_dyn_leave does not return
}

int World::retire(bool& leaving, std::string& err) {
  int leave = 0;
  const int rc = blacs_dyn_retire(&leave);
  leaving = leave != 0;
  return fail(rc, err);
}

std::vector<int> World::rank_launches() {
  std::vector<int> g(static_cast<std::size_t>(std::max(1, blacs_dyn_size())), 0);
  std::string err;
  if (fail(blacs_dyn_rank_groups(g.data(), static_cast<int>(g.size())), err) != BLACS_DYN_OK)
    throw Error("the ranks' launches: " + err);
  return g;
}

void World::background_thread(bool on) {
  std::string err;
  if (fail(blacs_dyn_background_thread(on ? 1 : 0), err) != BLACS_DYN_OK) throw Error("background expansion: " + err);
}

bool World::publish_background() {
  int published = 0;
  std::string err;
  if (fail(blacs_dyn_publish_background(&published), err) != BLACS_DYN_OK) throw Error("background expansion: " + err);
  return published != 0;
}

void World::at_finalize(void (*fn)(void*), void* user) { blacs_dyn_set_finalize_hook(fn, user); }

int World::share_state(std::vector<char>& bytes, std::string& err) {
  // Two hand-overs: the length, then the bytes (blacs_dyn_share_state needs a capacity).
  std::uint64_t n = bytes.size();
  std::size_t len = sizeof n;
  int rc = blacs_dyn_share_state(&n, &len, sizeof n);
  if (rc != BLACS_DYN_OK) return fail(rc, err);
  bytes.resize(n);
  len = n;
  return fail(blacs_dyn_share_state(bytes.data(), &len, n), err);
}


}  // namespace resize::detail
