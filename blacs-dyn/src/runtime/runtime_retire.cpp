// SPDX-License-Identifier: BSD-3-Clause
// The respawn's last step (Retire, retire.hpp): the processes the last expansion started
// replace the world, every other process of the job ends, and the ones that stay go on
// as a job started with them (docs/reference/blacs-dyn.md, "The respawn").
#include "runtime/retire.hpp"

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

#include <algorithm>

#include "platform/blacs_glue.hpp"
#include "malleable_internal/collective.hpp"
#include "protocol/messages.hpp"

namespace blacs_dyn {

using namespace detail;

namespace {
constexpr int kTagRetireLink = 0x6800;  // + group index: the new rank 0 takes group i's link
}  // namespace

// The links of the new world: with one group the world is its MPI_COMM_WORLD (no link);
// with more, the new rank 0 gets an intercommunicator with each other group, as an
// expansion's hand-over gives it (merge_groups), so parking, release and the end work as
// in any job.
void Retire::link_new_groups(const LevelStack& next, int my_group) {
  const MPI_Comm nw = new_world_;
  int r = 0;
  MPI_Comm_rank(nw, &r);
  for (int g = 1; g < next.ngroups(); ++g) {
    const int first = next.rank_at(next.group(g).first, next.depth() - 1);
    if (r == 0) {
      MPI_Comm l = MPI_COMM_NULL;
      check(MPI_Intercomm_create(MPI_COMM_SELF, 0, nw, first, kTagRetireLink + g, &l),
            "MPI_Intercomm_create (the new rank 0's link with a group)");
      MPI_Comm_set_errhandler(l, MPI_ERRORS_RETURN);
      rt_.group_links_[g] = l;
    } else if (my_group == g) {
      check(MPI_Intercomm_create(MPI_COMM_WORLD, 0, nw, 0, kTagRetireLink + g, &rt_.link_),
            "MPI_Intercomm_create (a group's link with the new rank 0)");
      MPI_Comm_set_errhandler(rt_.link_, MPI_ERRORS_RETURN);
    }
  }
}

// Every rank's respawn plan, the same on every rank, or every rank throws.
void Retire::agree_plan(MPI_Comm w) {
  std::optional<Error> err;
  RetirePlan& plan = plan_;
  try {
    if (rt_.join_.dir)
      throw Error(BLACS_DYN_ERR_STATE,
                  "a respawn cannot end this job's processes: it runs under a job directory (BLACS_DYN_JOB_DIR), "
                  "whose first launch holds the job (its launcher, ompi-server and record) until the job ends");
    plan = rt_.stack_->plan_retire();
  } catch (const Error& e) {
    err = e;
  }
  agree(w, err);
  // Every rank's plan must be one plan.
  const auto fp = malleable::collective::ranges<3>(
      w, {static_cast<long long>(plan.stay.front()), static_cast<long long>(plan.stay.size()),
          static_cast<long long>(plan.wake_to_exit.size())},
      [](int rc, const char* what) { check(rc, what); });
  if (!fp[0].same() || !fp[1].same() || !fp[2].same())
    throw Error(BLACS_DYN_ERR_STATE, "the processes' stacks differ: a respawn would keep different worlds");
}

// The old rank 0 wakes the parked processes to exit and disconnects every spawn link it
// holds; each spawned process disconnects its own (the newcomers' too): nothing of the
// job stays connected across the generations, so each ends or goes on by itself.
void Retire::end_spawn_links() {
  Runtime& rt = rt_;
  if (rt.me_ == 0) {
    const std::vector<char> exit_msg = encode(Release::Exit);
    for (ProcId q : plan_.wake_to_exit) {
      const int g = rt.stack_->group_of(q);
      if (g == 0) {
        check(MPI_Send(exit_msg.data(), static_cast<int>(exit_msg.size()), MPI_BYTE, q, kTagRelease,
                       rt.comms_[0].priv),
              "MPI_Send (release)");
        continue;
      }
      const auto members = rt.stack_->group_members(g);
      const int idx = static_cast<int>(std::find(members.begin(), members.end(), q) - members.begin());
      check(MPI_Send(exit_msg.data(), static_cast<int>(exit_msg.size()), MPI_BYTE, idx, kTagRelease,
                     rt.group_links_.at(g)),
            "MPI_Send (release)");
    }
    for (auto& [g, l] : rt.group_links_) check(MPI_Comm_disconnect(&l), "MPI_Comm_disconnect (spawn link)");
    rt.group_links_.clear();
  } else if (rt.link_ != MPI_COMM_NULL) {
    check(MPI_Comm_disconnect(&rt.link_), "MPI_Comm_disconnect (spawn link)");
  }
}

// The old world's communicators go (they span processes that end); the new world
// is level 0 of a stack as if the job had started with these processes, this one
// process `my_new` of it.
void Retire::install_respawned(int my_new) {
  Runtime& rt = rt_;
  LevelStack next = rt.stack_->after_retire(plan_);
  const int my_group = next.group_of(my_new);
  rt.free_all_comms();
  if (next.ngroups() == 1) {
    // One spawn: the new world is its MPI_COMM_WORLD, in the same order.
    MPI_Comm_free(&new_world_);
    rt.comms_.assign(1, LevelComms{MPI_COMM_WORLD, false, MPI_COMM_NULL});
  } else {
    rt.comms_.assign(1, my_group == 0 ? LevelComms{MPI_COMM_WORLD, false, MPI_COMM_NULL} : LevelComms{});
    LevelComms lc{new_world_, true, MPI_COMM_NULL};
    check(MPI_Comm_dup(new_world_, &lc.priv), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(lc.priv, MPI_ERRORS_RETURN);
    rt.comms_.push_back(lc);
    link_new_groups(next, my_group);
  }
  {
    std::lock_guard<std::mutex> lk(rt.stack_mutex_);
    rt.stack_ = std::move(next);
  }
  rt.me_ = my_new;
  rt.dynamic_ = rt.stack_->ngroups() > 1;
  rt.exited_since_change_ = false;
  rt.record_hosts(gather_processor_names(rt.priv()));
  blacs_sync_world(rt.world());
}

bool Retire::run() {
  Runtime& rt = rt_;
  rt.ensure_init();
  rt.require_active("blacs_dyn_retire");
  const MPI_Comm w = rt.priv();
  agree_plan(w);
  const auto at = std::find(plan_.stay.begin(), plan_.stay.end(), rt.me_);
  const bool stays = at != plan_.stay.end();
  WatchdogScope watch(rt.dog_);
  rt.dog_.arm(rt.who(), "respawn: the new world", join_timeout_seconds(), "a process of the world died or hangs");
  check(MPI_Comm_split(w, stays ? 0 : MPI_UNDEFINED, stays ? static_cast<int>(at - plan_.stay.begin()) : 0,
                       &new_world_),
        "MPI_Comm_split (respawn)");
  rt.dog_.phase("respawn: the spawn links disconnected", join_timeout_seconds(),
                "a process of the old world died or hangs");
  end_spawn_links();
  rt.dynamic_ = true;
  if (!stays) {
    rt.departure_ = Departure::Exit;  // the caller's blacs_dyn_leave() ends the process
    return true;
  }
  rt.dog_.phase("respawn: the new world's communicators", join_timeout_seconds(),
                "a process of the new world died or hangs");
  install_respawned(static_cast<int>(at - plan_.stay.begin()));
  return false;
}

}  // namespace blacs_dyn
