// SPDX-License-Identifier: BSD-3-Clause
// Shrinks (the communicator stack), releasing nodes, parking, leaving,
// the state hand-over and the end of the job.
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"


#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <csignal>
#include <sys/stat.h>

#include "malleable/blacs_dyn/error.hpp"
#include "malleable/blacs_dyn/mpi_flavour.hpp"
#include "protocol/schema.hpp"
#include "shell/blacs_glue.hpp"
#include "malleable_internal/collective.hpp"
#include "protocol/messages.hpp"
#include "protocol/pmix_link.hpp"

#include <filesystem>


namespace blacs_dyn {

using namespace detail;

namespace {

std::string file_text(const char* path) {
  std::ifstream f(path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<pmix_link::TcpRow> tcp_rows() {
  std::vector<pmix_link::TcpRow> rows = pmix_link::parse_tcp_table(file_text("/proc/net/tcp"));
  const std::vector<pmix_link::TcpRow> v6 = pmix_link::parse_tcp_table(file_text("/proc/net/tcp6"));
  rows.insert(rows.end(), v6.begin(), v6.end());
  return rows;
}

std::vector<unsigned long> own_socket_inodes() {
  std::vector<unsigned long> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    std::error_code lec;
    const auto target = std::filesystem::read_symlink(e.path(), lec);
    if (lec) continue;
    if (const auto inode = pmix_link::socket_inode(target.native())) out.push_back(*inode);
  }
  return out;
}

// This process's connection to the launcher's PMIx server, looked up before MPI_Finalize
// closes it (pmix_link.hpp says why); nullopt when there is none to wait for (no PMIx over
// TCP, the wait switched off, the tables not readable).
std::optional<pmix_link::TcpRow> pmix_connection(const Config& env) {
  if (pmix_link::wait_seconds(env.leave_wait) <= 0 || !env.pmix_server_uri) return std::nullopt;
  const auto port = pmix_link::server_port(*env.pmix_server_uri);
  if (!port) return std::nullopt;
  return pmix_link::client_link(tcp_rows(), own_socket_inodes(), *port);
}

// After MPI_Finalize: stay until the server has closed its end of `link` (its progress
// thread has handled our departure), at most `seconds`. Returns whether it did.
bool await_server_close(const pmix_link::TcpRow& link, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (pmix_link::server_end_open(tcp_rows(), link)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    sleep_for(2000000L);
  }
  return true;
}

}  // namespace

// The application's shrink hook (the data move), if one is set: it must succeed on every
// rank, or the shrink fails everywhere with the world unchanged.
void Runtime::run_shrink_hook(const ShrinkPlan& plan, const std::vector<int>& new_rank, MPI_Comm w) {
  if (!shrink_hook_.fn) return;
  std::optional<Error> err;
  const int rc = shrink_hook_.fn(world(), new_rank.data(), static_cast<int>(new_rank.size()),
                                 static_cast<int>(plan.new_members.size()), shrink_hook_.user);
  if (rc != 0)
    err = Error(BLACS_DYN_ERR_STATE, "the shrink hook returned " + std::to_string(rc) + " on rank " +
                                    std::to_string(rank()) + "; the world is unchanged");
  agree(w, err);
}

// Groups that leave as a whole disconnect from rank 0, the only process their spawn
// link joins them to; members parked earlier are woken to do the same (§3.3.5: the
// processes no longer part of the application are terminated).
void Runtime::release_exiting(const ShrinkPlan& plan, Departure d) {
  if (me_ == 0) {
    if (!plan.groups_exiting.empty())
      dog_.phase("shrink: disconnecting the spawn group(s) that exit", join_timeout_seconds(),
                 "a process of an exiting group died or hangs");
    const std::vector<char> exit_msg = encode(Release::Exit);
    for (ProcId q : plan.wake_to_exit) {
      const int g = stack_->group_of(q);
      const auto members = stack_->group_members(g);
      const int idx = static_cast<int>(std::find(members.begin(), members.end(), q) - members.begin());
      check(MPI_Send(exit_msg.data(), static_cast<int>(exit_msg.size()), MPI_BYTE, idx, kTagRelease, group_links_.at(g)),
            "MPI_Send (release)");
    }
    for (int g : plan.groups_exiting) {
      check(MPI_Comm_disconnect(&group_links_.at(g)), "MPI_Comm_disconnect (spawn link)");
      group_links_.erase(g);
    }
  }
  if (d == Departure::Exit)
    check(MPI_Comm_disconnect(&link_), "MPI_Comm_disconnect (spawn link)");
}

// A level's communicators freed (MPI_COMM_WORLD itself is not).
void Runtime::free_level(LevelComms& c) {
  if (c.priv != MPI_COMM_NULL) MPI_Comm_free(&c.priv);
  if (c.owned && c.world != MPI_COMM_NULL) MPI_Comm_free(&c.world);
}

// A stayer after the shrink: a level one of whose processes exited is never used again,
// and its communicators still connect this process to the ones gone: Open MPI's
// MPI_Finalize disconnects every communicator spanning two jobs (a spawned group or a
// joined launch is its own job), waiting for processes that are gone. Freed here, on
// every stayer; then BLACS sees the new world.
void Runtime::settle_after_shrink() {
  for (int l : stack_->dead_levels()) {
    auto& c = comms_[static_cast<std::size_t>(l)];
    free_level(c);
    c.world = MPI_COMM_NULL;
  }
  exited_since_change_ = false;
  blacs_sync_world(world());
}

void Runtime::shrink(const ShrinkPlan& plan) {
  const MPI_Comm w = priv();
  const int old_n = size();
  const int top = stack_->depth() - 1;
  std::vector<int> new_rank(static_cast<std::size_t>(old_n), -1);
  for (std::size_t i = 0; i < plan.new_members.size(); ++i)
    new_rank[static_cast<std::size_t>(stack_->rank_at(plan.new_members[i], top))] = static_cast<int>(i);
  run_shrink_hook(plan, new_rank, w);
  const Departure d = LevelStack::departure(plan, me_);
  const int my_new = new_rank[static_cast<std::size_t>(rank())];
  // After the hook (the data move, watched by its caller): the communicator steps.
  WatchdogScope watch(dog_);
  dog_.arm(who(), "shrink to " + std::to_string(plan.new_members.size()) + " processes: new world", join_timeout_seconds(),
           "a process of the world died or hangs");

  LevelComms next;
  if (plan.pop_to < 0) {
    MPI_Comm nc = MPI_COMM_NULL;
    check(MPI_Comm_split(w, d == Departure::Stay ? 0 : MPI_UNDEFINED, my_new, &nc), "MPI_Comm_split");
    if (d == Departure::Stay) {
      next = LevelComms{nc, true, MPI_COMM_NULL};
      check(MPI_Comm_dup(nc, &next.priv), "MPI_Comm_dup");
      MPI_Comm_set_errhandler(next.priv, MPI_ERRORS_RETURN);
    }
  }
  release_exiting(plan, d);

  if (plan.pop_to >= 0) {
    for (int l = stack_->depth() - 1; l > plan.pop_to; --l) free_level(comms_[static_cast<std::size_t>(l)]);
    comms_.resize(static_cast<std::size_t>(plan.pop_to) + 1);
  } else {
    comms_.push_back(next);
  }
  stack_->apply(plan);
  dynamic_ = true;
  departure_ = d;
  if (d == Departure::Stay) settle_after_shrink();
}

namespace {
void agree_plan(MPI_Comm w, std::optional<Error>& err, const ShrinkPlan& plan) {
  // Parked processes wait for the release sent from our MPI_Finalize; if the program's
  // MPI_Finalize is not ours they would wait forever.
  if (!err && !plan.park_now.empty() && !finalize_interposed())
    err = Error(BLACS_DYN_ERR_STATE,
                "this shrink would park processes, but MPI_Finalize is not blacs-dyn's (link "
                "libmalleable_blacs_dyn ahead of MPI): they could never be released");
  // Every rank learns the lowest failing rank's error (and throws it); without one, the
  // ranks' plans must be one plan: the range of their fingerprints over the world.
  agree(w, err);
  const auto fp = malleable::collective::ranges<1>(w, {static_cast<long long>(fingerprint(plan))},
                                                   [](int rc, const char* what) { check(rc, what); });
  if (!fp[0].same()) throw Error(BLACS_DYN_ERR_ARG, "the shrink arguments differ across ranks");
}
}  // namespace

bool Runtime::shrink_to_level(int level) {
  ensure_init();
  require_active("blacs_dyn_shrink_to_level");
  std::optional<Error> err;
  ShrinkPlan plan;
  try {
    plan = stack_->plan_shrink_to_level(level);
  } catch (const Error& e) {
    err = e;
  }
  agree_plan(priv(), err, plan);
  shrink(plan);
  return departure_ != Departure::Stay;
}

void Runtime::record_hosts(const std::vector<std::string>& by_rank, BackgroundExpansion* bg) {
  std::lock_guard<std::mutex> lk(stack_mutex_);
  LevelStack& st = bg && bg->pending_ ? bg->pending_->stack : *stack_;
  const auto members = st.top().members;
  for (std::size_t r = 0; r < by_rank.size() && r < members.size(); ++r) st.set_host(members[r], by_rank[r]);
}

std::vector<std::string> Runtime::gather_hosts(BackgroundExpansion* bg) {
  ensure_init();
  require_active("blacs_dyn_hosts", bg);
  auto names = gather_processor_names(priv(bg));
  record_hosts(names, bg);
  return names;
}

bool Runtime::release_hosts(const std::vector<std::string>& hosts, const std::string& invalid) {
  ensure_init();
  require_active("blacs_dyn_release_hosts");
  gather_hosts();  // the stack knows every process's node
  std::optional<Error> err;
  ShrinkPlan plan;
  try {
    if (!invalid.empty()) throw Error(BLACS_DYN_ERR_ARG, invalid + " (on rank " + std::to_string(rank()) + ")");
    plan = stack_->plan_release_hosts(hosts);
  } catch (const Error& e) {
    err = e;
  }
  agree_plan(priv(), err, plan);
  shrink(plan);
  return departure_ != Departure::Stay;
}

bool Runtime::shrink_to_ranks(std::span<const int> keep) {
  ensure_init();
  require_active("blacs_dyn_shrink_to_ranks");
  std::optional<Error> err;
  ShrinkPlan plan;
  try {
    plan = stack_->plan_shrink_to_ranks(keep);
  } catch (const Error& e) {
    err = e;
  }
  agree_plan(priv(), err, plan);
  shrink(plan);
  return departure_ != Departure::Stay;
}

void Runtime::free_all_comms() {
  for (auto& c : comms_) {
    if (c.priv != MPI_COMM_NULL) MPI_Comm_free(&c.priv);
    if (c.owned && c.world != MPI_COMM_NULL) MPI_Comm_free(&c.world);
  }
  comms_.clear();
}

void Runtime::exit_process() {
  PhaseTrace trace(true);
  dog_.arm("process " + std::to_string(me_) + " (leaving)", "leaving: MPI_Finalize", join_timeout_seconds(),
           "another process of its spawn group died or hangs");
  free_all_comms();
  trace.mark("leaving: communicators freed");
  const Config env = read_config();
  const std::optional<pmix_link::TcpRow> pmix = pmix_connection(env);
  join_.ticker.stop();  // a joined launch's lifeline: it ends with its processes
  finalized_ = true;
  PMPI_Finalize();
  dog_.disarm();
  trace.mark("leaving: MPI_Finalize");
  // Exit only once the launcher's PMIx server has seen this process go (the spawn hang of
  // Open MPI 4.1 + PMIx 4.2, docs/reference/blacs-dyn.md): bounded, never an error.
  if (pmix) {
    const double limit = pmix_link::wait_seconds(env.leave_wait);
    if (await_server_close(*pmix, limit)) {
      trace.mark("leaving: PMIx server closed");
    } else {
      trace.mark("leaving: PMIx server still open");
      if (env.verbose)
        std::fprintf(stderr,
                     "blacs-dyn: process %d leaves before its PMIx server closed the connection (waited %g s, "
                     "BLACS_DYN_LEAVE_WAIT)\n",
                     me_, limit);
    }
  }
  std::fflush(nullptr);
  std::exit(0);
}

// A parked process waits for rank 0's release with a posted receive tested twenty
// times a second and nanosleep in between: Open MPI's blocking calls would busy-poll a
// core for the rest of the job.
void Runtime::park() {
  const bool original = stack_->group_of(me_) == 0;
  const MPI_Comm chan = original ? comms_[0].priv : link_;
  std::vector<char> cmd(release_bytes());
  MPI_Request req = MPI_REQUEST_NULL;
  check(MPI_Irecv(cmd.data(), static_cast<int>(cmd.size()), MPI_BYTE, 0, kTagRelease, chan, &req), "MPI_Irecv (park)");
  int flag = 0;
  while (true) {
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) break;
    sleep_for(50000000L);
  }
  if (link_ != MPI_COMM_NULL) MPI_Comm_disconnect(&link_);
  // Release::Exit and Release::Finalize end the same way here: the difference is on rank
  // 0's side (exit: now, alone; finalize: at the end, with all). A release of another
  // build is said, and ends the same way.
  try {
    decode_release(cmd);
  } catch (const malleable::wire::Error& e) {
    std::fprintf(stderr, "blacs-dyn: process %d, parked: %s; leaving\n", me_, e.what());
  }
  exit_process();
}

void Runtime::leave() {
  if (departure_ == Departure::Exit) exit_process();
  if (departure_ == Departure::Park) park();
  throw Error(BLACS_DYN_ERR_STATE, "blacs_dyn_leave: this process is still in the world (no shrink dropped it)");
}

void Runtime::note_grid(MPI_Comm comm, int nprow, int npcol) {
  if (!initialized_ || departure_ != Departure::Stay || comms_.empty()) return;
  if (comm != world()) return;
  std::lock_guard<std::mutex> lk(stack_mutex_);
  stack_->set_grid(stack_->depth() - 1, nprow, npcol);
}

// The job's end: parked processes wait in park() for rank 0; spawn links are
// disconnected pairwise (rank 0 with each live group, in level order) so every group
// finalizes its own MPI_COMM_WORLD together with the rest.
void Runtime::before_finalize() {
  run_finalize_hook();
  // The job's heartbeat and a joined launch's lifeline end with the job.
  if (departure_ == Departure::Stay) join_.ticker.stop();
  // A leaving process may end the thesis way (§3.3.5: blacs_exit(0) for the processes no
  // longer part of the application) instead of calling blacs_dyn_leave(): same effect, and,
  // like blacs_dyn_leave(), it does not return.
  if (initialized_ && !finalized_ && departure_ == Departure::Exit) exit_process();
  if (initialized_ && !finalized_ && departure_ == Departure::Park) park();
  if (!initialized_ || finalized_ || !dynamic_ || departure_ != Departure::Stay) return;
  // Armed until the process ends: PMPI_Finalize follows, which a dead peer can block.
  dog_.arm(who(), "end of the job: releasing parked processes, disconnecting spawn links, MPI_Finalize",
           join_timeout_seconds(), "a parked or spawned process died or hangs");
  finalized_ = true;
  if (me_ == 0) {
    const std::vector<char> finalize = encode(Release::Finalize);
    for (ProcId p = 0; p < stack_->nprocs_started(); ++p) {
      if (stack_->state(p) != ProcState::Parked) continue;
      const int g = stack_->group_of(p);
      if (g == 0) {
        MPI_Send(finalize.data(), static_cast<int>(finalize.size()), MPI_BYTE, p, kTagRelease, comms_[0].priv);
      } else {
        const auto members = stack_->group_members(g);
        const int idx = static_cast<int>(std::find(members.begin(), members.end(), p) - members.begin());
        MPI_Send(finalize.data(), static_cast<int>(finalize.size()), MPI_BYTE, idx, kTagRelease, group_links_.at(g));
      }
    }
    for (auto& [g, lk] : group_links_) MPI_Comm_disconnect(&lk);
    group_links_.clear();
  } else if (link_ != MPI_COMM_NULL) {
    MPI_Comm_disconnect(&link_);
  }
  free_all_comms();
}

}  // namespace blacs_dyn
