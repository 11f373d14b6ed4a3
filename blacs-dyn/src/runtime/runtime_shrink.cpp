// SPDX-License-Identifier: BSD-3-Clause
// A shrink (Shrink, shrink.hpp): the plan agreed, the application's hook, the new world,
// the spawn groups that exit released, the stayers settled (§3.3.5).
#include "runtime/shrink.hpp"

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

#include <algorithm>

#include "platform/blacs_glue.hpp"
#include "malleable_internal/collective.hpp"
#include "protocol/messages.hpp"

namespace blacs_dyn {

using namespace detail;

// The application's shrink hook (the data move), if one is set: it must succeed on every
// rank, or the shrink fails everywhere with the world unchanged.
void Shrink::run_hook(MPI_Comm w) {
  const auto& hook = rt_.shrink_hook_;
  if (!hook.fn) return;
  std::optional<Error> err;
  const int rc = hook.fn(rt_.world(), new_rank_.data(), static_cast<int>(new_rank_.size()),
                         static_cast<int>(plan_.new_members.size()), hook.user);
  if (rc != 0)
    err = Error(BLACS_DYN_ERR_STATE, "the shrink hook returned " + std::to_string(rc) + " on rank " +
                                    std::to_string(rt_.rank()) + "; the world is unchanged");
  agree(w, err);
}

// Groups that leave as a whole disconnect from rank 0, the only process their spawn
// link joins them to; members parked earlier are woken to do the same (§3.3.5: the
// processes no longer part of the application are terminated).
void Shrink::release_exiting() {
  Runtime& rt = rt_;
  if (rt.me_ == 0) {
    if (!plan_.groups_exiting.empty())
      rt.dog_.phase("shrink: disconnecting the spawn group(s) that exit", join_timeout_seconds(),
                    "a process of an exiting group died or hangs");
    const std::vector<char> exit_msg = encode(Release::Exit);
    for (ProcId q : plan_.wake_to_exit) {
      const int g = rt.stack_->group_of(q);
      const auto members = rt.stack_->group_members(g);
      const int idx = static_cast<int>(std::find(members.begin(), members.end(), q) - members.begin());
      check(MPI_Send(exit_msg.data(), static_cast<int>(exit_msg.size()), MPI_BYTE, idx, kTagRelease,
                     rt.group_links_.at(g)),
            "MPI_Send (release)");
    }
    for (int g : plan_.groups_exiting) {
      check(MPI_Comm_disconnect(&rt.group_links_.at(g)), "MPI_Comm_disconnect (spawn link)");
      rt.group_links_.erase(g);
    }
  }
  if (departure_ == Departure::Exit)
    check(MPI_Comm_disconnect(&rt.link_), "MPI_Comm_disconnect (spawn link)");
}

// A stayer after the shrink: a level one of whose processes exited is never used again,
// and its communicators still connect this process to the ones gone: Open MPI's
// MPI_Finalize disconnects every communicator spanning two jobs (a spawned group or a
// joined launch is its own job), waiting for processes that are gone. Freed here, on
// every stayer; then BLACS sees the new world.
void Shrink::settle() {
  Runtime& rt = rt_;
  for (int l : rt.stack_->dead_levels()) {
    auto& c = rt.comms_[static_cast<std::size_t>(l)];
    Runtime::free_level(c);
    c.world = MPI_COMM_NULL;
  }
  rt.exited_since_change_ = false;
  blacs_sync_world(rt.world());
}

void Shrink::run() {
  Runtime& rt = rt_;
  const MPI_Comm w = rt.priv();
  const int old_n = rt.size();
  const int top = rt.stack_->depth() - 1;
  new_rank_.assign(static_cast<std::size_t>(old_n), -1);
  for (std::size_t i = 0; i < plan_.new_members.size(); ++i)
    new_rank_[static_cast<std::size_t>(rt.stack_->rank_at(plan_.new_members[i], top))] = static_cast<int>(i);
  run_hook(w);
  departure_ = LevelStack::departure(plan_, rt.me_);
  const int my_new = new_rank_[static_cast<std::size_t>(rt.rank())];
  // After the hook (the data move, watched by its caller): the communicator steps.
  WatchdogScope watch(rt.dog_);
  rt.dog_.arm(rt.who(), "shrink to " + std::to_string(plan_.new_members.size()) + " processes: new world",
              join_timeout_seconds(), "a process of the world died or hangs");

  LevelComms next;
  if (plan_.pop_to < 0) {
    MPI_Comm nc = MPI_COMM_NULL;
    check(MPI_Comm_split(w, departure_ == Departure::Stay ? 0 : MPI_UNDEFINED, my_new, &nc), "MPI_Comm_split");
    if (departure_ == Departure::Stay) {
      next = LevelComms{nc, true, MPI_COMM_NULL};
      check(MPI_Comm_dup(nc, &next.priv), "MPI_Comm_dup");
      MPI_Comm_set_errhandler(next.priv, MPI_ERRORS_RETURN);
    }
  }
  release_exiting();

  if (plan_.pop_to >= 0) {
    for (int l = rt.stack_->depth() - 1; l > plan_.pop_to; --l)
      Runtime::free_level(rt.comms_[static_cast<std::size_t>(l)]);
    rt.comms_.resize(static_cast<std::size_t>(plan_.pop_to) + 1);
  } else {
    rt.comms_.push_back(next);
  }
  rt.stack_->apply(plan_);
  rt.dynamic_ = true;
  rt.departure_ = departure_;
  if (departure_ == Departure::Stay) settle();
}

bool Shrink::carry_out(std::optional<Error>& err) {
  const MPI_Comm w = rt_.priv();
  // Parked processes wait for the release sent from our MPI_Finalize; if the program's
  // MPI_Finalize is not ours they would wait forever.
  if (!err && !plan_.park_now.empty() && !finalize_interposed())
    err = Error(BLACS_DYN_ERR_STATE,
                "this shrink would park processes, but MPI_Finalize is not blacs-dyn's (link "
                "libmalleable_blacs_dyn ahead of MPI): they could never be released");
  // Every rank learns the lowest failing rank's error (and throws it); without one, the
  // ranks' plans must be one plan: the range of their fingerprints over the world.
  agree(w, err);
  const auto fp = malleable::collective::ranges<1>(w, {static_cast<long long>(fingerprint(plan_))},
                                                   [](int rc, const char* what) { check(rc, what); });
  if (!fp[0].same()) throw Error(BLACS_DYN_ERR_ARG, "the shrink arguments differ across ranks");
  run();
  return rt_.departure_ != Departure::Stay;
}

bool Shrink::to_level(int level) {
  rt_.ensure_init();
  rt_.require_active("blacs_dyn_shrink_to_level");
  std::optional<Error> err;
  try {
    plan_ = rt_.stack_->plan_shrink_to_level(level);
  } catch (const Error& e) {
    err = e;
  }
  return carry_out(err);
}

bool Shrink::release_hosts(const std::vector<std::string>& hosts, const std::string& invalid) {
  rt_.ensure_init();
  rt_.require_active("blacs_dyn_release_hosts");
  rt_.gather_hosts();  // the stack knows every process's node
  std::optional<Error> err;
  try {
    if (!invalid.empty()) throw Error(BLACS_DYN_ERR_ARG, invalid + " (on rank " + std::to_string(rt_.rank()) + ")");
    plan_ = rt_.stack_->plan_release_hosts(hosts);
  } catch (const Error& e) {
    err = e;
  }
  return carry_out(err);
}

bool Shrink::to_ranks(std::span<const int> keep) {
  rt_.ensure_init();
  rt_.require_active("blacs_dyn_shrink_to_ranks");
  std::optional<Error> err;
  try {
    plan_ = rt_.stack_->plan_shrink_to_ranks(keep);
  } catch (const Error& e) {
    err = e;
  }
  return carry_out(err);
}

}  // namespace blacs_dyn
