// SPDX-License-Identifier: BSD-3-Clause
// The C API of blacs_dyn.h: codes and blacs_dyn_last_error() over the Runtime's exceptions.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/blacs_dyn/error.hpp"
#include "entry/background_seat.hpp"
#include "platform/blacs_glue.hpp"
#include "platform/mpi_probe.hpp"
#include "protocol/schema.hpp"
#include "runtime/expand.hpp"
#include "runtime/handover.hpp"
#include "runtime/join.hpp"
#include "runtime/leave.hpp"
#include "runtime/retire.hpp"
#include "runtime/shrink.hpp"
#include "runtime/runtime.hpp"

namespace {

// The status of the one form's code (blacs_dyn::status_of); the error kept as it was raised
// for blacs_dyn_last_error() and the C++ interface, which throws it again. Any other
// exception is an MPI error of blacs-dyn's, as before.
template <class F>
int guarded(F&& f) {
  try {
    f();
    return BLACS_DYN_OK;
  } catch (const malleable::Error& e) {
    blacs_dyn::set_last_error(e);
    return blacs_dyn::status_of(e.errc());
  } catch (const std::exception& e) {
    blacs_dyn::set_last_error(blacs_dyn::Error(BLACS_DYN_ERR_MPI, e.what()));
    return BLACS_DYN_ERR_MPI;
  }
}

blacs_dyn::Runtime& rt() {
  auto& r = blacs_dyn::Runtime::get();
  r.ensure_init();
  return r;
}

// The background expansion the calling thread runs (blacs_dyn_background_thread), or null.
blacs_dyn::BackgroundExpansion* bg() { return blacs_dyn::calling_thread_background(); }

}  // namespace

extern "C" {

MPI_Comm blacs_dyn_world(void) {
  MPI_Comm w = MPI_COMM_NULL;
  guarded([&] { w = rt().world(bg()); });
  return w;
}
int blacs_dyn_rank(void) {
  int r = -1;
  guarded([&] { r = rt().rank(bg()); });
  return r;
}
int blacs_dyn_size(void) {
  int n = 0;
  guarded([&] { n = rt().size(bg()); });
  return n;
}
MPI_Fint blacs_dyn_world_f(void) { return MPI_Comm_c2f(blacs_dyn_world()); }

int blacs_dyn_expand(int nnew, const char* command, char* const argv[], const char* hosts,
                MPI_Info info) {
  return guarded([&] {
    blacs_dyn::SpawnRequest req;
    req.nnew = nnew;
    req.command = command ? command : "";
    for (int i = 0; argv && argv[i]; ++i) req.args.emplace_back(argv[i]);
    req.hosts = hosts ? hosts : "";
    req.info = info;
    blacs_dyn::Expand(rt(), bg()).run(req);
  });
}

int blacs_dyn_expand_args(int nnew, const char* command, const char* args, const char* hosts) {
  return guarded([&] {
    blacs_dyn::SpawnRequest req;
    req.nnew = nnew;
    req.command = command ? command : "";
    if (args) req.args = blacs_dyn::split_args(args);
    req.hosts = hosts ? hosts : "";
    blacs_dyn::Expand(rt(), bg()).run(req);
  });
}

int blacs_dyn_expand_hosts(int nhosts, const char* const hosts[], const int counts[],
                           const char* command, char* const argv[], MPI_Info info) {
  return guarded([&] {
    // An argument error found here is not thrown: the other ranks are already on their
    // way into the collective, so it is reported there, on every rank.
    blacs_dyn::SpawnRequest req;
    const bool root = blacs_dyn::Runtime::get().rank(bg()) == 0;
    if (nhosts < 1) req.invalid = "nhosts must be >= 1, got " + std::to_string(nhosts);
    else if (!counts) req.invalid = "counts is NULL";
    else if (root && !hosts) req.invalid = "hosts is NULL";
    for (int i = 0; req.invalid.empty() && i < nhosts; ++i) {
      blacs_dyn::GroupRequest g;
      g.count = counts[i];
      if (root) {
        if (!hosts[i]) req.invalid = "hosts[" + std::to_string(i) + "] is NULL";
        else g.host = hosts[i];
      }
      req.groups.push_back(g);
    }
    req.command = command ? command : "";
    for (int i = 0; argv && argv[i]; ++i) req.args.emplace_back(argv[i]);
    req.info = info;
    blacs_dyn::Expand(rt(), bg()).run(req);
  });
}

int blacs_dyn_release_hosts(int nhosts, const char* const hosts[], int* leaving) {
  return guarded([&] {
    std::string invalid;  // reported collectively, as above
    std::vector<std::string> h;
    if (nhosts < 1) invalid = "nhosts must be >= 1, got " + std::to_string(nhosts);
    else if (!hosts) invalid = "hosts is NULL";
    for (int i = 0; invalid.empty() && i < nhosts; ++i) {
      if (!hosts[i]) invalid = "hosts[" + std::to_string(i) + "] is NULL";
      else h.emplace_back(hosts[i]);
    }
    const bool l = blacs_dyn::Shrink(rt()).release_hosts(h, invalid);
    if (leaving) *leaving = l ? 1 : 0;
  });
}

int blacs_dyn_hosts(char* names, int stride) {
  return guarded([&] {
    const auto all = rt().gather_hosts(bg());
    if (!names || stride < 1)
      throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "names is NULL or stride < 1");
    for (std::size_t r = 0; r < all.size(); ++r) {
      const std::size_t n = std::min(all[r].size(), static_cast<std::size_t>(stride - 1));
      std::memcpy(names + r * static_cast<std::size_t>(stride), all[r].data(), n);
      names[r * static_cast<std::size_t>(stride) + n] = '\0';
    }
  });
}

int blacs_dyn_expand_schema(const char* path) {
  return guarded([&] { blacs_dyn::Expand(rt(), bg()).from_schema(path, false); });
}

int blacs_dyn_shrink_to_level(int level, int* leaving) {
  return guarded([&] {
    const bool l = blacs_dyn::Shrink(rt()).to_level(level);
    if (leaving) *leaving = l ? 1 : 0;
  });
}

int blacs_dyn_shrink_to_ranks(const int* keep, int nkeep, int* leaving) {
  return guarded([&] {
    if (nkeep < 0) throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "nkeep must be >= 1, got " + std::to_string(nkeep));
    if (nkeep > 0 && !keep) throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "keep is NULL");
    const bool l = blacs_dyn::Shrink(rt()).to_ranks(std::span<const int>(keep, static_cast<std::size_t>(nkeep)));
    if (leaving) *leaving = l ? 1 : 0;
  });
}

int blacs_dyn_retire(int* leaving) {
  return guarded([&] {
    const bool l = blacs_dyn::Retire(rt()).run();
    if (leaving) *leaving = l ? 1 : 0;
  });
}

int blacs_dyn_rank_groups(int* groups, int n) {
  return guarded([&] {
    const std::vector<int> g = rt().rank_groups(bg());
    if (!groups || n < static_cast<int>(g.size()))
      throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "groups needs room for " + std::to_string(g.size()) + " ranks");
    std::copy(g.begin(), g.end(), groups);
  });
}

void blacs_dyn_leave(void) {
  const int rc = guarded([&] { blacs_dyn::Leave(rt()).run(); });
  std::fprintf(stderr, "blacs-dyn: blacs_dyn_leave: %s (%s)\n", blacs_dyn_last_error(), blacs_dyn_status_string(rc));
}

int blacs_dyn_leaving(void) { return static_cast<int>(blacs_dyn::Runtime::get().departure()); }

void blacs_dyn_set_shrink_hook(blacs_dyn_shrink_hook hook, void* user) {
  blacs_dyn::Runtime::get().set_shrink_hook(hook, user);
}

int blacs_dyn_depth(void) {
  int d = 1;
  guarded([&] { d = rt().stack().depth(); });
  return d;
}

int blacs_dyn_level_size(int level, int* size) {
  return guarded([&] {
    const auto& l = rt().stack().level(level);
    if (!size) throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "size is NULL");
    *size = static_cast<int>(l.members.size());
  });
}

int blacs_dyn_level_grid(int level, int* nprow, int* npcol) {
  return guarded([&] {
    const auto& l = rt().stack().level(level);
    if (!nprow || !npcol) throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "nprow or npcol is NULL");
    *nprow = l.nprow;
    *npcol = l.npcol;
  });
}

int blacs_dyn_joined_level(void) {
  int l = 0;
  guarded([&] { l = rt().stack().joined_level(rt().me()); });
  return l;
}

int blacs_dyn_process_counts(int* active, int* parked, int* exited) {
  return guarded([&] {
    const auto& s = rt().stack();
    if (active) *active = s.world_size();
    if (parked) *parked = s.parked();
    if (exited) *exited = s.exited();
  });
}

int blacs_dyn_is_new(void) {
  int n = 0;
  guarded([&] { n = rt().is_new() ? 1 : 0; });
  return n;
}

void blacs_dyn_clear_new(void) { blacs_dyn::Runtime::get().clear_new(); }

int blacs_dyn_share_state(void* buf, size_t* len, size_t cap) {
  return guarded([&] { blacs_dyn::HandOver(rt(), bg()).share(buf, len, cap); });
}

int blacs_dyn_background_thread(int on) {
  return guarded([&] {
    rt();
    if (on) blacs_dyn::take_background();
    else blacs_dyn::give_back_background();
  });
}

int blacs_dyn_publish_background(int* published) {
  return guarded([&] {
    const bool p = rt().publish_background();
    if (published) *published = p ? 1 : 0;
  });
}

int blacs_dyn_set_finalize_hook(void (*fn)(void*), void* user) {
  blacs_dyn::Runtime::get().set_finalize_hook(fn, user);
  return BLACS_DYN_OK;
}

int blacs_dyn_join_supported(void) {
  int ok = 0;
  const int rc = guarded([&] { ok = blacs_dyn::Join(rt()).join_supported() ? 1 : 0; });
  return rc == BLACS_DYN_OK ? ok : 0;
}
const char* blacs_dyn_join_unsupported_reason(void) {
  return blacs_dyn::Runtime::get().join_unsupported_reason().c_str();
}
int blacs_dyn_join_can_order(void) { return blacs_dyn::Join(blacs_dyn::Runtime::get()).join_can_order() ? 1 : 0; }

int blacs_dyn_join_waiting(int* nlaunches, int* nprocs) {
  return guarded([&] {
    const auto [l, p] = blacs_dyn::Join(rt()).join_waiting();
    if (nlaunches) *nlaunches = l;
    if (nprocs) *nprocs = p;
  });
}

int blacs_dyn_join_waiting_launch(int i, char* id, int idlen, char* host, int hostlen, int* procs) {
  return guarded([&] {
    const auto& w = blacs_dyn::Runtime::get().waiting();
    if (i < 0 || i >= static_cast<int>(w.size()))
      throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "launch " + std::to_string(i) + " of " + std::to_string(w.size()) +
                                                  " waiting");
    const auto put = [](const std::string& v, char* buf, int len) {
      if (!buf || len < 1) return;
      const std::size_t n = std::min(v.size(), static_cast<std::size_t>(len - 1));
      std::memcpy(buf, v.data(), n);
      buf[n] = '\0';
    };
    put(w[static_cast<std::size_t>(i)].launch, id, idlen);
    put(w[static_cast<std::size_t>(i)].host, host, hostlen);
    if (procs) *procs = w[static_cast<std::size_t>(i)].procs;
  });
}

int blacs_dyn_expand_join(int nlaunches, const char* const launches[], double wait_seconds) {
  return guarded([&] {
    blacs_dyn::join::JoinWant want;
    if (launches)
      for (int i = 0; i < nlaunches; ++i) want.launches.emplace_back(launches[i] ? launches[i] : "");
    else
      want.count = std::max(0, nlaunches);
    blacs_dyn::Join(rt()).expand_join(want, {}, wait_seconds);
  });
}

int blacs_dyn_expand_join_hosts(int nhosts, const char* const hosts[], const int counts[], double wait_seconds) {
  return guarded([&] {
    std::vector<blacs_dyn::JoinOrder> orders;
    for (int i = 0; i < nhosts; ++i)
      orders.push_back({hosts && hosts[i] ? hosts[i] : "", counts ? counts[i] : 0});
    if (nhosts < 1) throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "nhosts must be >= 1, got " + std::to_string(nhosts));
    blacs_dyn::Join(rt()).expand_join({}, orders, wait_seconds);
  });
}

int blacs_dyn_launch_id(char* id, int len) {
  return guarded([&] {
    if (!id || len < 1) throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "id buffer missing");
    const std::string& l = blacs_dyn::Runtime::get().launch();
    const std::size_t n = std::min(l.size(), static_cast<std::size_t>(len - 1));
    std::memcpy(id, l.data(), n);
    id[n] = '\0';
  });
}

int blacs_dyn_spawn_supported(void) { return blacs_dyn::Runtime::get().spawn_unsupported_reason().empty() ? 1 : 0; }

const char* blacs_dyn_spawn_unsupported_reason(void) {
  return blacs_dyn::Runtime::get().spawn_unsupported_reason().c_str();
}

int blacs_dyn_selected_pml(char* name, int len) {
  return guarded([&] {
    if (!name || len < 1) throw blacs_dyn::Error(BLACS_DYN_ERR_ARG, "name buffer missing");
    const std::string p = blacs_dyn::selected_pml();
    const std::size_t n = std::min(p.size(), static_cast<std::size_t>(len - 1));
    std::memcpy(name, p.data(), n);
    name[n] = '\0';
  });
}

int blacs_dyn_blacs_exits(void) { return blacs_dyn::blacs_exits(); }

int blacs_dyn_context_live(int ctxt) { return blacs_dyn::blacs_context_live(ctxt) ? 1 : 0; }

const char* blacs_dyn_last_error(void) {
  const malleable::Error* e = blacs_dyn::last_error();
  return e ? e->what() : "";
}

const char* blacs_dyn_status_string(int code) {
  switch (code) {
    case BLACS_DYN_OK: return "ok";
    case BLACS_DYN_ERR_ARG: return "bad argument";
    case BLACS_DYN_ERR_SCHEMA: return "schema file missing or malformed";
    case BLACS_DYN_ERR_SPAWN: return "spawn failed or refused";
    case BLACS_DYN_ERR_STATE: return "call out of order";
    case BLACS_DYN_ERR_MPI: return "MPI error";
    case BLACS_DYN_ERR_TIMEOUT: return "joining process did not answer in time";
    case BLACS_DYN_ERR_UNSUPPORTED: return "spawn not supported by this MPI";
    case BLACS_DYN_ERR_JOIN: return "expansion by joining refused or failed";
    default: return "unknown blacs-dyn status";
  }
}

}  // extern "C"
