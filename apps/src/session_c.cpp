// C API of the resize session (apps/resize.h): a thin wrapper that turns exceptions
// into status codes and a message.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "apps/report.hpp"
#include "apps/resize.h"
#include "apps/session.hpp"

struct mall_resize_session {
  std::unique_ptr<resize::Session> s;
  std::string policy;
  std::string app;
};

namespace {
thread_local std::string g_error;

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    g_error = e.what();
    return MALL_RESIZE_ERR_ARG;
  }
}
int bad_state(const char* what) {
  g_error = std::string(what) + ": session is NULL";
  return MALL_RESIZE_ERR_STATE;
}
}  // namespace

extern "C" {

int mall_resize_create(int argc, char** argv, const char* app, const char* policy,
                       const char* schedule, mall_resize_session** out) {
  if (!out) {
    g_error = "mall_resize_create: out is NULL";
    return MALL_RESIZE_ERR_ARG;
  }
  return guarded([&] {
    resize::SessionOptions o;
    o.app = app ? app : "app";
    const std::string pol = policy ? policy : "fixed";
    const std::string sch = schedule ? schedule : "";
    o.policy = resize::make_policy(pol, pol == "sweetspot" ? std::string() : sch,
                                   pol == "sweetspot" ? sch : std::string());
    if (const char* m = std::getenv("MALL_RESIZE_MOVER")) o.mover = resize::parse_mover(m);
    auto* s = new mall_resize_session;
    s->policy = pol + (sch.empty() ? "" : " " + sch);
    s->app = o.app;
    s->s = std::make_unique<resize::Session>(argc, argv, std::move(o));
    *out = s;
    return MALL_RESIZE_OK;
  });
}

void mall_resize_destroy(mall_resize_session* s) { delete s; }

int mall_resize_register(mall_resize_session* s, const char* name, int m, int n, int mb, int nb,
                         int dist, int* desc, double** buf) {
  if (!s) return bad_state("mall_resize_register");
  if (!desc || !buf) {
    g_error = "mall_resize_register: desc and buf must not be NULL";
    return MALL_RESIZE_ERR_ARG;
  }
  if (dist != 0 && dist != 1) {
    g_error = "mall_resize_register: dist must be 0 (block-cyclic) or 1 (block), got " + std::to_string(dist);
    return MALL_RESIZE_ERR_ARG;
  }
  return guarded([&] {
    s->s->register_matrix_c(name ? name : "?", m, n, mb, nb,
                            dist ? resize::Distribution::Block : resize::Distribution::BlockCyclic, desc, buf);
    return MALL_RESIZE_OK;
  });
}

int mall_resize_is_newcomer(const mall_resize_session* s) { return s && s->s->is_newcomer() ? 1 : 0; }

int mall_resize_start(mall_resize_session* s, int nprow, int npcol) {
  if (!s) return bad_state("mall_resize_start");
  return guarded([&] {
    s->s->start(resize::Grid{nprow, npcol, {}});
    return MALL_RESIZE_OK;
  });
}

int mall_resize_join(mall_resize_session* s, int* iteration) {
  if (!s) return bad_state("mall_resize_join");
  return guarded([&] {
    const int it = s->s->join();
    if (iteration) *iteration = it;
    return MALL_RESIZE_OK;
  });
}

void mall_resize_begin_iteration(mall_resize_session* s) {
  if (s) s->s->begin_iteration();
}
void mall_resize_end_iteration(mall_resize_session* s) {
  if (s) s->s->end_iteration();
}

int mall_resize_remap_point(mall_resize_session* s, int* action) {
  if (!s) return bad_state("mall_resize_remap_point");
  return guarded([&] {
    const auto r = s->s->remap_point();
    if (action)
      *action = r.action == resize::Action::Expand ? MALL_RESIZE_EXPAND
                : r.action == resize::Action::Shrink ? MALL_RESIZE_SHRINK
                                                     : MALL_RESIZE_NONE;
    if (!r.ok) {
      g_error = r.message;
      return MALL_RESIZE_ERR_RESIZE;
    }
    return MALL_RESIZE_OK;
  });
}

int mall_resize_grid(const mall_resize_session* s, int* ctxt, int* nprow, int* npcol, int* myrow,
                     int* mycol) {
  if (!s) return bad_state("mall_resize_grid");
  if (ctxt) *ctxt = s->s->context();
  if (nprow) *nprow = s->s->grid().nprow;
  if (npcol) *npcol = s->s->grid().npcol;
  if (myrow) *myrow = s->s->myrow();
  if (mycol) *mycol = s->s->mycol();
  return MALL_RESIZE_OK;
}

int mall_resize_iteration(const mall_resize_session* s) { return s ? s->s->iteration() : -1; }
MPI_Comm mall_resize_world(const mall_resize_session* s) { return s ? s->s->world() : MPI_COMM_NULL; }
MPI_Fint mall_resize_world_f(const mall_resize_session* s) { return MPI_Comm_c2f(mall_resize_world(s)); }
int mall_resize_world_rank(const mall_resize_session* s) { return s ? s->s->world_rank() : -1; }

int mall_resize_print_summary(const mall_resize_session* s, const char* problem, const char* check,
                              int check_ok) {
  if (!s) return bad_state("mall_resize_print_summary");
  if (s->s->world_rank() != 0) return MALL_RESIZE_OK;
  resize::RunInfo info{s->app, problem ? problem : "", s->policy, s->s->mover_name(), check ? check : "",
                       check_ok != 0, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))};
  std::printf("\n%s", resize::summary_table(s->s->metrics(), info).c_str());
  std::fflush(stdout);
  return MALL_RESIZE_OK;
}

const char* mall_resize_last_error(void) { return g_error.c_str(); }

}  // extern "C"
