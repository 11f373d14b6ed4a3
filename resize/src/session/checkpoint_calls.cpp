// SPDX-License-Identifier: BSD-3-Clause
// The Session's checkpoint, restart and level calls: each checks its call and hands the
// work to the checkpoint room's functions of the parts (checkpoint/session_checkpoint.hpp),
// given a CheckpointView of the parts they read and change.
#include "session/session_impl.hpp"

namespace resize {

// A restart's start on grid g, its arrays for a recovery when `recovery` (move/pages.hpp):
// start() is public API without that parameter, so the restart says it on the session.
detail::StartOn Session::Impl::start_on(Session& s) {
  return [&s](const Grid& g, bool recovery) {
    Impl& impl = *s.impl_;
    impl.start_arrays = recovery ? detail::ArrayFor::Recovery : detail::ArrayFor::Start;
    try {
      s.start(g);
    } catch (...) {
      impl.start_arrays = detail::ArrayFor::Start;
      throw;
    }
    impl.start_arrays = detail::ArrayFor::Start;
  };
}

double Session::checkpoint(const std::string& path) {
  if (!impl_->life.started) throw Error("checkpoint " + path + ": the session has not started (call start, restart or join first)");
  return detail::write_checkpoint(impl_->checkpoint_view(), path);
}

std::string Session::checkpoint_in(const std::string& dir, int keep, double* seconds) {
  if (!impl_->life.started) throw Error("checkpoint into " + dir + ": the session has not started (call start, restart or join first)");
  return detail::checkpoint_into(impl_->checkpoint_view(), dir, keep, seconds);
}

int Session::restart(const std::string& file, const Grid& g) {
  return detail::restart_from_file(impl_->checkpoint_view(), file, g, Impl::start_on(*this));
}

void Session::set_checkpointing(const CheckpointCadence& c) {
  detail::check_checkpointing(c);
  impl_->ckpts.adopt_global(c);
}

std::string Session::checkpoint_if_due(bool last) {
  if (!impl_->ckpts.checkpointing) throw Error("checkpoint_if_due: no checkpoint cadence (call set_checkpointing first)");
  return detail::checkpoint_when_due(impl_->checkpoint_view(), last);
}

const std::vector<CheckpointRecord>& Session::checkpoint_records() const { return impl_->ckpts.checkpoints; }

std::vector<std::pair<std::string, std::uint64_t>> Session::checksums() const {
  if (!impl_->life.started) throw Error("checksums: the session has not started");
  return detail::registry_checksums(impl_->job, impl_->registry);
}

void Session::set_level_checkpointing(const LevelCadence& c) { detail::set_levels(impl_->checkpoint_view(), c); }

double Session::checkpoint_levels(bool partner) {
  if (!impl_->life.started) throw Error("checkpoint_levels: the session has not started");
  return detail::write_levels_now(impl_->checkpoint_view(), partner);
}

std::string Session::level_checkpoint_if_due(bool last) {
  if (!impl_->ckpts.levels) throw Error("level_checkpoint_if_due: no level cadence (call set_level_checkpointing first)");
  return detail::levels_when_due(impl_->checkpoint_view(), last);
}

const std::vector<LevelRecord>& Session::level_records() const { return impl_->ckpts.level_records; }

int Session::restart_from_levels(const std::string& dir, const Grid& g, const std::string& global_dir) {
  return detail::restart_from_level_copies(impl_->checkpoint_view(), dir, g, global_dir, Impl::start_on(*this));
}

void Session::Impl::release_levels() { detail::release_levels(ckpts); }

}  // namespace resize
