// SPDX-License-Identifier: BSD-3-Clause
// C API of the resize session (malleable/resize/resize.h): a thin wrapper that turns exceptions
// into status codes and a message.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "malleable/resize/report.hpp"
#include "common/config.hpp"
#include "malleable/resize/resize.h"
#include "malleable/resize/session.hpp"
#include "policy/policy_setting.hpp"
#include "session/session_impl.hpp"
#include "session/shared_alloc.hpp"

struct resize_session {
  std::unique_ptr<resize::Session> s;
  std::string app;
};

namespace {
// The last failure of this thread in the one form (malleable/error.hpp), as it was raised,
// whichever part raised it: resize_last_error, _code and _part read it.
thread_local std::optional<malleable::Error> g_error;

// The status a failure returns: the C API's own where it names the code, else
// RESIZE_ERR_ARG (the code itself in resize_last_error_code).
int status_of(malleable::Errc code) {
  switch (code) {
    case malleable::Errc::State: return RESIZE_ERR_STATE;
    case malleable::Errc::ResizeFailed: return RESIZE_ERR_RESIZE;
    case malleable::Errc::Checkpoint: return RESIZE_ERR_CHECKPOINT;
    default: return RESIZE_ERR_ARG;
  }
}
int fail(const malleable::Error& e) {
  g_error.emplace(e);
  return status_of(e.errc());
}
int fail(malleable::Errc code, const std::string& what) { return fail(resize::Error(what, code)); }

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const malleable::Error& e) {
    return fail(e);
  } catch (const std::exception& e) {  // not one of the parts' (out of memory, the JSON reader)
    return fail(malleable::Errc::Internal, e.what());
  }
}
int action_code(resize::Action a) {
  return a == resize::Action::Expand   ? RESIZE_EXPAND
         : a == resize::Action::Shrink ? RESIZE_SHRINK
         : a == resize::Action::Regrid ? RESIZE_REGRID
                                       : RESIZE_NONE;
}
// A resize refused or failed: RESIZE_ERR_RESIZE whatever refused it; the error kept is
// the result's code and part (ResizeFailed of resize where it names none).
int refused(const resize::RemapResult& r) {
  const bool coded = r.code != malleable::Errc::Ok;
  g_error.emplace(coded ? r.part : malleable::Part::Resize, coded ? r.code : malleable::Errc::ResizeFailed, r.message);
  return RESIZE_ERR_RESIZE;
}
int bad_state(const char* what) {
  return fail(malleable::Errc::State, std::string(what) + ": session is NULL");
}
}  // namespace

extern "C" {

int resize_create(int argc, char** argv, const char* app, const char* policy,
                       const char* schedule, resize_session** out) {
  if (!out) return fail(malleable::Errc::InvalidArgument, "resize_create: out is NULL");
  return guarded([&] {
    resize::SessionOptions o;
    o.app = app ? app : "app";
    const std::string pol = policy ? policy : "fixed";
    const std::string sch = schedule ? schedule : "";
    o.policy_text = pol + (sch.empty() ? "" : " " + sch);
    // The C API's entry: RESIZE_MOVER, RESIZE_MOVE_BUDGET and RESIZE_POLICY read once, here,
    // as the session below reads the rest of its configuration (config.hpp).
    const resize::config::Config cfg = resize::config::read();
    // A policy RESIZE_POLICY replaces is not made (a program that asks for slurm runs
    // outside Slurm with RESIZE_POLICY=fixed): the session makes the setting's.
    const std::optional<std::string> chosen = resize::policy_setting(cfg.policy.choice);
    if (!chosen || *chosen == pol)
      o.policy = resize::make_policy(pol, pol == "sweetspot" ? std::string() : sch,
                                     pol == "sweetspot" ? sch : std::string());
    const resize::config::Session& env = cfg.session;
    if (env.mover) o.mover = resize::parse_mover(*env.mover);
    if (env.move_budget) o.move_budget_bytes = resize::parse_move_budget(*env.move_budget);
    auto s = std::make_unique<resize_session>();
    s->app = o.app;
    s->s = std::make_unique<resize::Session>(argc, argv, std::move(o));
    *out = s.release();
    return RESIZE_OK;
  });
}

void resize_destroy(resize_session* s) { delete s; }

}  // extern "C"

namespace resize::detail {
// The C and Fortran registration: a matrix in a malloc()'ed buffer that the session
// frees and reallocates (*buf is set to NULL here and to the session's buffer at start).
struct SessionAccess {
  template <class T>
  static void register_malloc(Session& s, const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                              int* desc, T** buf) {
    if (!buf) throw Error("register_matrix " + name + ": buf must not be null");
    Registered r = uniform_registration(name, m, n, mb, nb, dist, desc);
    r.store = std::make_unique<MallocStorage<T>>(buf, shared_alloc(s.impl_->cfg.session));
    r.mat().type = scalar_of<T>();
    s.impl_->registry.mats.push_back(std::move(r));
    *buf = nullptr;
  }
};
}  // namespace resize::detail

namespace {
template <class T>
int register_c(resize_session* s, const char* fn, const char* name, int m, int n, int mb, int nb, int dist,
               int* desc, T** buf) {
  if (!s) return bad_state(fn);
  if (!desc || !buf) {
    return fail(malleable::Errc::InvalidArgument, std::string(fn) + ": desc and buf must not be NULL");
  }
  if (dist != 0 && dist != 1) {
    return fail(malleable::Errc::InvalidArgument,
                std::string(fn) + ": dist must be 0 (block-cyclic) or 1 (block), got " + std::to_string(dist));
  }
  return guarded([&] {
    resize::detail::SessionAccess::register_malloc(
        *s->s, name ? name : "?", m, n, mb, nb, dist ? resize::Distribution::Block : resize::Distribution::BlockCyclic,
        desc, buf);
    return RESIZE_OK;
  });
}
}  // namespace

extern "C" {

int resize_register(resize_session* s, const char* name, int m, int n, int mb, int nb,
                         int dist, int* desc, double** buf) {
  return register_c(s, "resize_register", name, m, n, mb, nb, dist, desc, buf);
}
int resize_register_s(resize_session* s, const char* name, int m, int n, int mb, int nb, int dist, int* desc,
                      float** buf) {
  return register_c(s, "resize_register_s", name, m, n, mb, nb, dist, desc, buf);
}
int resize_register_d(resize_session* s, const char* name, int m, int n, int mb, int nb, int dist, int* desc,
                      double** buf) {
  return register_c(s, "resize_register_d", name, m, n, mb, nb, dist, desc, buf);
}
int resize_register_c(resize_session* s, const char* name, int m, int n, int mb, int nb, int dist, int* desc,
                      resize_complex_float** buf) {
  return register_c(s, "resize_register_c", name, m, n, mb, nb, dist, desc, buf);
}
int resize_register_z(resize_session* s, const char* name, int m, int n, int mb, int nb, int dist, int* desc,
                      resize_complex_double** buf) {
  return register_c(s, "resize_register_z", name, m, n, mb, nb, dist, desc, buf);
}

int resize_is_newcomer(const resize_session* s) { return s && s->s->is_newcomer() ? 1 : 0; }

int resize_start(resize_session* s, int nprow, int npcol) {
  if (!s) return bad_state("resize_start");
  return guarded([&] {
    s->s->start(resize::Grid{nprow, npcol, {}});
    return RESIZE_OK;
  });
}

int resize_checkpoint(resize_session* s, const char* path) {
  if (!s) return bad_state("resize_checkpoint");
  if (!path) return guarded([]() -> int { throw resize::Error("resize_checkpoint: path must not be NULL"); });
  return guarded([&] {
    s->s->checkpoint(path);
    return RESIZE_OK;
  });
}

int resize_restart(resize_session* s, const char* file, int nprow, int npcol, int* iteration) {
  if (!s) return bad_state("resize_restart");
  if (!file) return guarded([]() -> int { throw resize::Error("resize_restart: file must not be NULL"); });
  return guarded([&] {
    const int it = s->s->restart(file, resize::Grid{nprow, npcol, {}});
    if (iteration) *iteration = it;
    return RESIZE_OK;
  });
}

int resize_checkpoint_in(resize_session* s, const char* dir, int keep, char* file, int file_len) {
  if (!s) return bad_state("resize_checkpoint_in");
  return guarded([&] {
    if (!dir || !*dir) throw resize::Error("resize_checkpoint_in: dir is NULL or empty");
    if (keep < 0) throw resize::Error("resize_checkpoint_in: keep must be >= 0, got " + std::to_string(keep));
    const std::string f = s->s->checkpoint_in(dir, keep);
    if (file && file_len > 0) std::snprintf(file, static_cast<std::size_t>(file_len), "%s", f.c_str());
    return RESIZE_OK;
  });
}

int resize_set_checkpointing(resize_session* s, const char* dir, const char* every, double mtbf_seconds, int keep) {
  if (!s) return bad_state("resize_set_checkpointing");
  return guarded([&] {
    if (!dir || !*dir) throw resize::Error("resize_set_checkpointing: dir is NULL or empty");
    s->s->set_checkpointing({dir, every ? every : "", mtbf_seconds, keep});
    return RESIZE_OK;
  });
}

int resize_checkpoint_if_due(resize_session* s, int last, int* written) {
  if (!s) return bad_state("resize_checkpoint_if_due");
  if (written) *written = 0;
  return guarded([&] {
    const std::string f = s->s->checkpoint_if_due(last != 0);
    if (written) *written = f.empty() ? 0 : 1;
    return RESIZE_OK;
  });
}

int resize_set_level_checkpointing(resize_session* s, const char* dir, const char* local_every,
                                   const char* partner_every, double local_mtbf, double partner_mtbf, int keep) {
  if (!s) return bad_state("resize_set_level_checkpointing");
  return guarded([&] {
    resize::LevelCadence c;
    c.dir = dir ? dir : "";
    c.local_every = local_every ? local_every : "";
    c.partner_every = partner_every ? partner_every : "";
    c.local_mtbf = local_mtbf;
    c.partner_mtbf = partner_mtbf;
    c.keep = keep;
    s->s->set_level_checkpointing(c);
    return RESIZE_OK;
  });
}

int resize_level_checkpoint_if_due(resize_session* s, int last, int* written) {
  if (!s) return bad_state("resize_level_checkpoint_if_due");
  if (written) *written = 0;
  return guarded([&] {
    const std::string l = s->s->level_checkpoint_if_due(last != 0);
    if (written) *written = l.empty() ? 0 : l == "local" ? 1 : 2;
    return RESIZE_OK;
  });
}

int resize_restart_from_levels(resize_session* s, const char* dir, int nprow, int npcol, const char* global_dir,
                               int* iteration) {
  if (!s) return bad_state("resize_restart_from_levels");
  return guarded([&] {
    const int it = s->s->restart_from_levels(dir ? dir : "", resize::Grid{nprow, npcol, {}}, global_dir ? global_dir : "");
    if (iteration) *iteration = it;
    return RESIZE_OK;
  });
}

int resize_remap_or_restart(resize_session* s, int mechanism, int* step, int* action) {
  if (!s) return bad_state("resize_remap_or_restart");
  if (step) *step = RESIZE_STEP_CONTINUE;
  if (action) *action = RESIZE_NONE;
  return guarded([&]() -> int {
    if (mechanism != RESIZE_MECHANISM_SPAWN && mechanism != RESIZE_MECHANISM_RESTART)
      throw resize::Error("resize_remap_or_restart: mechanism must be RESIZE_MECHANISM_SPAWN or _RESTART (0-1), got " +
                          std::to_string(mechanism));
    const auto r = s->s->remap_or_restart(mechanism == RESIZE_MECHANISM_RESTART ? resize::Mechanism::Restart
                                                                                : resize::Mechanism::Spawn);
    if (step)
      *step = r.kind == resize::ResizeStep::Kind::Resized          ? RESIZE_STEP_RESIZED
              : r.kind == resize::ResizeStep::Kind::ExitForRestart ? RESIZE_STEP_EXIT_FOR_RESTART
                                                                   : RESIZE_STEP_CONTINUE;
    if (action) *action = action_code(r.action);
    if (!r.ok) return fail(malleable::Errc::ResizeFailed, r.message);
    return RESIZE_OK;
  });
}

int resize_next_decision(resize_session* s, int* action, int* nprow, int* npcol) {
  if (!s) return bad_state("resize_next_decision");
  return guarded([&] {
    const resize::Decision d = s->s->next_decision();
    if (action) *action = action_code(d.action);
    if (nprow) *nprow = d.action == resize::Action::None ? 0 : d.nprow;
    if (npcol) *npcol = d.action == resize::Action::None ? 0 : d.npcol;
    return RESIZE_OK;
  });
}

namespace {
// `text` into buf[0..len) (NULL: nothing), NUL-terminated; false when it did not fit.
bool copy_text(const std::string& text, char* buf, std::size_t len) {
  if (!buf) return true;
  if (len > 0) std::snprintf(buf, len, "%s", text.c_str());
  return text.size() < len;
}
}  // namespace

int resize_dry_run(resize_session* s, char* json, size_t json_len, char* table, size_t table_len) {
  if (!s) return bad_state("resize_dry_run");
  return guarded([&] {
    const resize::Session::DryRun r = s->s->dry_run();
    const bool json_fits = copy_text(r.json, json, json_len), table_fits = copy_text(r.table, table, table_len);
    if (!json_fits || !table_fits)
      throw resize::Error("resize_dry_run: the " + std::string(json_fits ? "table" : "JSON") + " needs a buffer of " +
                          std::to_string((json_fits ? r.table : r.json).size() + 1) + " bytes");
    return RESIZE_OK;
  });
}

int resize_join(resize_session* s, int* iteration) {
  if (!s) return bad_state("resize_join");
  return guarded([&] {
    const int it = s->s->join();
    if (iteration) *iteration = it;
    return RESIZE_OK;
  });
}

void resize_begin_iteration(resize_session* s) {
  if (s) s->s->begin_iteration();
}
void resize_end_iteration(resize_session* s) {
  if (s) s->s->end_iteration();
}

int resize_report_compute(resize_session* s, double work, double seconds) {
  if (!s) return bad_state("resize_report_compute");
  return guarded([&] {
    s->s->report_compute(work, seconds);
    return RESIZE_OK;
  });
}

int resize_remap_point(resize_session* s, int* action) {
  if (!s) return bad_state("resize_remap_point");
  return guarded([&]() -> int {
    const auto r = s->s->remap_point();
    if (action)
      *action = r.action == resize::Action::Expand ? RESIZE_EXPAND
                : r.action == resize::Action::Shrink ? RESIZE_SHRINK
                : r.action == resize::Action::Regrid ? RESIZE_REGRID
                                                     : RESIZE_NONE;
    if (!r.ok) return refused(r);
    return RESIZE_OK;
  });
}

int resize_mark_constant(resize_session* s, const char* name) {
  if (!s) return bad_state("resize_mark_constant");
  return guarded([&] {
    if (!name) throw resize::Error("resize_mark_constant: name is NULL");
    s->s->mark_constant(name);
    return RESIZE_OK;
  });
}

int resize_set_app_state(resize_session* s, void* state, size_t bytes) {
  if (!s) return bad_state("resize_set_app_state");
  return guarded([&] {
    if (!state && bytes > 0) throw resize::Error("resize_set_app_state: state is NULL");
    char* p = static_cast<char*>(state);
    s->s->set_app_state([p, bytes] { return std::vector<char>(p, p + bytes); },
                        [p, bytes](const std::vector<char>& v) {
                          if (v.size() != bytes)
                            throw resize::Error("resize_set_app_state: the hand-over carries " +
                                                std::to_string(v.size()) + " bytes of application state, this "
                                                "process registered " + std::to_string(bytes));
                          if (bytes > 0) std::memcpy(p, v.data(), bytes);
                        });
    return RESIZE_OK;
  });
}

int resize_set_background(resize_session* s, int mode, int min_iterations) {
  if (!s) return bad_state("resize_set_background");
  return guarded([&] {
    if (mode < RESIZE_BACKGROUND_OFF || mode > RESIZE_BACKGROUND_CONTINUE)
      throw resize::Error("resize_set_background: mode must be RESIZE_BACKGROUND_OFF, _WAIT or _CONTINUE (0-2), got " +
                          std::to_string(mode));
    s->s->set_background(mode == RESIZE_BACKGROUND_WAIT       ? resize::Background::Wait
                         : mode == RESIZE_BACKGROUND_CONTINUE ? resize::Background::Continue
                                                              : resize::Background::Off,
                         min_iterations);
    return RESIZE_OK;
  });
}

int resize_complete(resize_session* s, int* action) {
  if (!s) return bad_state("resize_complete");
  return guarded([&] {
    const auto r = s->s->complete_resize();
    if (action) *action = r.action == resize::Action::Expand ? RESIZE_EXPAND
                          : r.action == resize::Action::Shrink ? RESIZE_SHRINK
                                                               : RESIZE_NONE;
    return RESIZE_OK;
  });
}

int resize_cancel(resize_session* s, int* action) {
  if (!s) return bad_state("resize_cancel");
  return guarded([&] {
    const auto r = s->s->cancel_resize();
    if (action) *action = r.action == resize::Action::Expand ? RESIZE_EXPAND
                          : r.action == resize::Action::Shrink ? RESIZE_SHRINK
                                                               : RESIZE_NONE;
    return RESIZE_OK;
  });
}

int resize_grid(const resize_session* s, int* ctxt, int* nprow, int* npcol, int* myrow,
                     int* mycol) {
  if (!s) return bad_state("resize_grid");
  if (ctxt) *ctxt = s->s->context();
  if (nprow) *nprow = s->s->grid().nprow;
  if (npcol) *npcol = s->s->grid().npcol;
  if (myrow) *myrow = s->s->myrow();
  if (mycol) *mycol = s->s->mycol();
  return RESIZE_OK;
}

int resize_iteration(const resize_session* s) { return s ? s->s->iteration() : -1; }
MPI_Comm resize_world(const resize_session* s) { return s ? s->s->world() : MPI_COMM_NULL; }
MPI_Fint resize_world_f(const resize_session* s) { return MPI_Comm_c2f(resize_world(s)); }
int resize_world_rank(const resize_session* s) { return s ? s->s->world_rank() : -1; }

int resize_print_summary(resize_session* s, const char* problem, const char* check, int check_ok) {
  if (!s) return bad_state("resize_print_summary");
  return guarded([&] {
    if (problem && *problem) s->s->set_problem(problem);
    if (check) s->s->set_result_check(check_ok != 0, check);
    const std::string text = s->s->summary();
    if (!text.empty()) {
      std::printf("\n%s", text.c_str());
      std::fflush(stdout);
    }
    return RESIZE_OK;
  });
}

int resize_set_result_check(resize_session* s, int check_ok, const char* message) {
  if (!s) return bad_state("resize_set_result_check");
  s->s->set_result_check(check_ok != 0, message ? message : "");
  return RESIZE_OK;
}

int resize_write_json(const resize_session* s, const char* path) {
  if (!s) return bad_state("resize_write_json");
  if (!path || !*path) {
    return fail(malleable::Errc::InvalidArgument, "resize_write_json: path is NULL or empty");
  }
  return guarded([&] {
    s->s->write_json(path);
    return RESIZE_OK;
  });
}

const char* resize_last_error(void) { return g_error ? g_error->what() : ""; }
int resize_last_error_code(void) { return static_cast<int>(g_error ? g_error->errc() : malleable::Errc::Ok); }
int resize_last_error_part(void) { return static_cast<int>(g_error ? g_error->part() : malleable::Part::None); }

}  // extern "C"
