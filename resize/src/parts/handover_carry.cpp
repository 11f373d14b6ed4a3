// SPDX-License-Identifier: BSD-3-Clause
// The typed hand-over's rank-0 carry (handover.hpp, RankZeroCarry): what the old world
// rank 0 accumulated, handed to the new one by a respawn, over the job's one codec
// (malleable_internal/wire.hpp). Pure: no MPI.
#include "parts/handover.hpp"

#include "malleable_internal/wire.hpp"

namespace resize::detail {

namespace {

using malleable::wire::Kind;

constexpr Kind kCarry{0x3052584du, RankZeroCarry::kVersion, "rank-0 carry"};  // "MXR0"

// A record's prediction, every field in declaration order (part of record_fields).
template <class V, class P> void prediction_fields(V& v, P& p) {
  v(p.t_spawn);
  v(p.t_redist);
  v(p.t_other);
  v.enumeration(p.redist_by, PredictedBy::None, PredictedBy::History, "prediction source");
  v(p.t_iteration_before);
  v(p.t_iteration_after);
  v(p.t_resize_policy);
  v.enumeration(p.clock, Clock::Wall, Clock::Compute, "clock");
  v(p.reasoning);
}

// A record's optional background report: a presence flag, then its fields in declaration
// order (part of record_fields).
template <class V, class B> void background_fields(V& v, B& background_report) {
  bool background = background_report.has_value();
  v(background);
  if constexpr (V::reading) {
    if (background) background_report.emplace();
  }
  if (background) {
    auto& b = *background_report;
    v.enumeration(b.mode, Background::Off, Background::Continue, "background mode");
    v.enumeration(b.progress, BackgroundProgress::HelperThread, BackgroundProgress::ProgressCalls, "progress");
    v(b.cancelled);
    v(b.began_after);
    v(b.t_begin);
    v(b.t_complete);
    v(b.t_wait);
    v(b.t_overlapped);
    v(b.iterations_overlapped);
    v(b.completion_deferred);
    v(b.iteration_slowdown);
    v(b.bytes);
  }
}

// One resize record, every field in declaration order.
template <class V, class R> void record_fields(V& v, R& r) {
  v(r.after_iteration);
  v.enumeration(r.action, Action::None, Action::Regrid, "action");
  v(r.from_grid);
  v(r.to_grid);
  v(r.from_procs);
  v(r.to_procs);
  v.enumeration(r.placement, Placement::Global, Placement::Given, "placement");
  v(r.ok);
  v(r.message);
  v(r.mechanism);
  v(r.t_spawn);
  v(r.t_redist);
  v(r.t_other);
  v(r.t_total);
  prediction_fields(v, r.predicted);
  v(r.bytes_moved);
  v(r.move.bytes_total);
  v(r.move.bytes_intra_node);
  v(r.move.bytes_inter_node);
  v(r.move.batches);
  v(r.move.peak_bytes);
  v(r.move.phases);  // plain doubles
  v(r.other);        // plain doubles
  v.list(r.hosts, sizeof(std::uint64_t) + sizeof(int), [&](auto& h) {
    v(h.host);
    v(h.count);
  });
  v(r.rank_hosts.hosts);
  v.list(r.rank_hosts.runs, 2 * sizeof(int), [&](auto& run) {
    v(run.first);
    v(run.second);
  });
  background_fields(v, r.background);
  v(r.reconfigure);
  v(r.reconfigure_why);
}

constexpr auto carry_fields = [](auto& v, auto& c) {
  v.list(c.iterations, 2 * sizeof(int) + sizeof(std::uint64_t) + 3 * sizeof(double), [&](auto& s) {
    v(s.iteration);
    v(s.procs);
    v(s.grid);
    v(s.wall);
    v(s.dedicated);
    v(s.compute);
  });
  v.list(c.rank_samples, sizeof(int) + 3 * sizeof(std::uint64_t), [&](auto& s) {
    v(s.iteration);
    v(s.work);
    v(s.compute);
    v(s.powers);
  });
  v.list(c.resizes, 64, [&](auto& r) { record_fields(v, r); });
  v(c.history_json);
  v(c.history_path);
  v(c.history_program);
  v(c.cost_model);
  v(c.cost_params);
  v.list(c.checkpoints, sizeof(int) + 2 * sizeof(double) + 2 * sizeof(std::uint64_t), [&](auto& k) {
    v(k.after_iteration);
    v(k.seconds);
    v(k.reason);
    v(k.interval_s);
    v(k.file);
  });
  v.list(c.levels, sizeof(int) + 1 + sizeof(double) + 3 * sizeof(std::int64_t) + sizeof(std::uint64_t), [&](auto& l) {
    v(l.after_iteration);
    v(l.partner);
    v(l.seconds);
    v(l.node_bytes);
    v(l.total_bytes);
    v(l.reason);
    v(l.files);
  });
  v(c.clocks);  // plain doubles
  v(c.first_remap_iteration);
  v(c.app.problem);
  v(c.app.has_check);
  v(c.app.check_ok);
  v(c.app.check_message);
  v(c.has_policy_state);
  v(c.policy_state);
  v(c.decision);
  record_fields(v, c.record);
  v(c.elapsed_s);
};

}  // namespace

std::vector<char> pack(const RankZeroCarry& c) { return malleable::wire::encode(kCarry, c, carry_fields); }

RankZeroCarry unpack_carry(const std::vector<char>& bytes) {
  try {
    return malleable::wire::decode<RankZeroCarry>(bytes, kCarry, carry_fields);
  } catch (const malleable::wire::Error& e) {
    throw Error(e.what());
  }
}

RankZeroCarry::Clocks aged(RankZeroCarry::Clocks c, double held_s) {
  for (double* age : {&c.checkpoint_age_s, &c.level_local_age_s, &c.level_partner_age_s})
    if (*age >= 0) *age += held_s;
  return c;
}

}  // namespace resize::detail
