// The C API of blacs_dyn.h: codes and bdyn_last_error() over the Runtime's exceptions.
#include <cstdio>
#include <string>
#include <vector>

#include "blacs-dyn/blacs_dyn.h"
#include "blacs-dyn/error.hpp"
#include "blacs-dyn/schema.hpp"
#include "runtime.hpp"

namespace {

template <class F>
int guarded(F&& f) {
  try {
    f();
    return BDYN_OK;
  } catch (const bdyn::Error& e) {
    bdyn::set_last_error(e.what());
    return e.code();
  } catch (const std::exception& e) {
    bdyn::set_last_error(e.what());
    return BDYN_ERR_MPI;
  }
}

bdyn::Runtime& rt() {
  auto& r = bdyn::Runtime::get();
  r.ensure_init();
  return r;
}

}  // namespace

extern "C" {

MPI_Comm bdyn_world(void) {
  MPI_Comm w = MPI_COMM_NULL;
  guarded([&] { w = rt().world(); });
  return w;
}
int bdyn_rank(void) {
  int r = -1;
  guarded([&] { r = rt().rank(); });
  return r;
}
int bdyn_size(void) {
  int n = 0;
  guarded([&] { n = rt().size(); });
  return n;
}
MPI_Fint bdyn_world_f(void) { return MPI_Comm_c2f(bdyn_world()); }

int bdyn_expand(int nnew, const char* command, char* const argv[], const char* hosts,
                MPI_Info info) {
  return guarded([&] {
    bdyn::SpawnRequest req;
    req.nnew = nnew;
    req.command = command ? command : "";
    for (int i = 0; argv && argv[i]; ++i) req.args.emplace_back(argv[i]);
    req.hosts = hosts ? hosts : "";
    req.info = info;
    rt().expand(req);
  });
}

int bdyn_expand_args(int nnew, const char* command, const char* args, const char* hosts) {
  return guarded([&] {
    bdyn::SpawnRequest req;
    req.nnew = nnew;
    req.command = command ? command : "";
    if (args) req.args = bdyn::split_args(args);
    req.hosts = hosts ? hosts : "";
    rt().expand(req);
  });
}

int bdyn_expand_schema(const char* path) {
  return guarded([&] { rt().expand_schema(path, false); });
}

int bdyn_shrink_to_level(int level, int* leaving) {
  return guarded([&] {
    const bool l = rt().shrink_to_level(level);
    if (leaving) *leaving = l ? 1 : 0;
  });
}

int bdyn_shrink_to_ranks(const int* keep, int nkeep, int* leaving) {
  return guarded([&] {
    if (nkeep < 0) throw bdyn::Error(BDYN_ERR_ARG, "nkeep must be >= 1, got " + std::to_string(nkeep));
    if (nkeep > 0 && !keep) throw bdyn::Error(BDYN_ERR_ARG, "keep is NULL");
    const bool l = rt().shrink_to_ranks(std::span<const int>(keep, static_cast<std::size_t>(nkeep)));
    if (leaving) *leaving = l ? 1 : 0;
  });
}

void bdyn_leave(void) {
  const int rc = guarded([&] { rt().leave(); });
  std::fprintf(stderr, "blacs-dyn: bdyn_leave: %s (%s)\n", bdyn_last_error(), bdyn_status_string(rc));
}

int bdyn_leaving(void) { return static_cast<int>(bdyn::Runtime::get().departure()); }

void bdyn_set_shrink_hook(bdyn_shrink_hook hook, void* user) {
  bdyn::Runtime::get().set_shrink_hook(hook, user);
}

int bdyn_depth(void) {
  int d = 1;
  guarded([&] { d = rt().stack().depth(); });
  return d;
}

int bdyn_level_size(int level, int* size) {
  return guarded([&] {
    const auto& l = rt().stack().level(level);
    if (!size) throw bdyn::Error(BDYN_ERR_ARG, "size is NULL");
    *size = static_cast<int>(l.members.size());
  });
}

int bdyn_level_grid(int level, int* nprow, int* npcol) {
  return guarded([&] {
    const auto& l = rt().stack().level(level);
    if (!nprow || !npcol) throw bdyn::Error(BDYN_ERR_ARG, "nprow or npcol is NULL");
    *nprow = l.nprow;
    *npcol = l.npcol;
  });
}

int bdyn_joined_level(void) {
  int l = 0;
  guarded([&] { l = rt().stack().joined_level(rt().me()); });
  return l;
}

int bdyn_process_counts(int* active, int* parked, int* exited) {
  return guarded([&] {
    const auto& s = rt().stack();
    if (active) *active = s.world_size();
    if (parked) *parked = s.parked();
    if (exited) *exited = s.exited();
  });
}

int bdyn_is_new(void) {
  int n = 0;
  guarded([&] { n = rt().is_new() ? 1 : 0; });
  return n;
}

void bdyn_clear_new(void) { bdyn::Runtime::get().clear_new(); }

int bdyn_share_state(void* buf, size_t* len, size_t cap) {
  return guarded([&] { rt().share_state(buf, len, cap); });
}

const char* bdyn_last_error(void) { return bdyn::last_error().c_str(); }

const char* bdyn_status_string(int code) {
  switch (code) {
    case BDYN_OK: return "ok";
    case BDYN_ERR_ARG: return "bad argument";
    case BDYN_ERR_SCHEMA: return "schema file missing or malformed";
    case BDYN_ERR_SPAWN: return "spawn failed or refused";
    case BDYN_ERR_STATE: return "call out of order";
    case BDYN_ERR_MPI: return "MPI error";
    case BDYN_ERR_TIMEOUT: return "joining process did not answer in time";
    default: return "unknown blacs-dyn status";
  }
}

}  // extern "C"
