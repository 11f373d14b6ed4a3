// SPDX-License-Identifier: BSD-3-Clause
// Builders the tests of resize's pure core (and the session's MPI programs) share: a
// decision, an event of the resize history and a resize's record, each with the fields a
// test names first and the others at their defaults; and the message of a refusal.
#pragma once

#include <string>
#include <utility>

#include "malleable/resize/metrics.hpp"
#include "malleable/resize/predict.hpp"
#include "malleable/resize/types.hpp"
#include "../support/thrown.hpp"

namespace resize_test {

// A decision to resize to `procs` processes on an nprow x npcol grid (0 x 0: the policy
// or the session chooses it; a regrid with 0 processes keeps the world), placed `placement`.
inline resize::Decision decision(resize::Action a, int procs, int nprow = 0, int npcol = 0,
                                 resize::Placement placement = resize::Placement::Local2) {
  resize::Decision d;
  d.action = a;
  d.procs = procs;
  d.nprow = nprow;
  d.npcol = npcol;
  d.placement = placement;
  return d;
}

// A resize of the history from `from` to `to` processes and its phases' seconds.
inline resize::ResizeEvent resize_event(resize::Action a, int from, int to, double spawn, double other = 0,
                                        double redist = 0) {
  resize::ResizeEvent e;
  e.action = a;
  e.from_procs = from;
  e.to_procs = to;
  e.t_spawn = spawn;
  e.t_other = other;
  e.t_redist = redist;
  return e;
}

// The record of a resize after iteration `after` from grid `from` to grid `to` ("2x2"),
// its spawn and total seconds.
inline resize::ResizeRecord resize_record(int after, resize::Action a, std::string from, std::string to,
                                          double spawn = 0, double total = 0) {
  resize::ResizeRecord r;
  r.after_iteration = after;
  r.action = a;
  r.from_grid = std::move(from);
  r.to_grid = std::move(to);
  r.t_spawn = spawn;
  r.t_total = total;
  return r;
}

// The message of the resize::Error `f` throws ("" if it throws none).
template <class F>
std::string refusal(F&& f) {
  return test_support::thrown<resize::Error>(std::forward<F>(f));
}

}  // namespace resize_test
