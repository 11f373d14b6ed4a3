// SPDX-License-Identifier: BSD-3-Clause
// MPI execution of expansions, shrinks (§3.3.5), parking and the
// final release. Protocol overview: docs/reference/blacs-dyn.md, "How it works".
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"
#include "runtime/join.hpp"
#include "runtime/joiner.hpp"
#include "runtime/leave.hpp"

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
#include "platform/blacs_glue.hpp"
#include "protocol/messages.hpp"


namespace blacs_dyn {

using namespace detail;

namespace {

thread_local std::optional<malleable::Error> g_last_error;  // the one form, kept as thrown

}  // namespace

namespace detail {
// An MPI error (the library's communicators return errors: MPI_ERRORS_RETURN) names the
// call, the process, its host and the phase under way. Here, not in
// runtime_detail.cpp, because it asks the Runtime where it is (runtime_detail knows no Runtime).
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS)
    throw Error(BLACS_DYN_ERR_MPI, std::string(what) + " failed on " + Runtime::get().where() + ": " + mpi_error_text(rc));
}
}  // namespace detail

BackgroundExpansion Runtime::begin_background() {
  if (background_running_.exchange(true))
    throw Error(BLACS_DYN_ERR_STATE, "a background thread is already running an expansion");
  return BackgroundExpansion();
}

void Runtime::end_background(BackgroundExpansion bg) {
  if (bg.pending_) pending_ = std::move(bg.pending_);
  background_running_ = false;
}

bool Runtime::publish_background() {
  if (background_running_)
    throw Error(BLACS_DYN_ERR_STATE, "blacs_dyn_publish_background: call it on the main thread once the background "
                                     "thread ended");
  if (!pending_) return false;
  PendingLevel p = std::move(*pending_);
  pending_.reset();
  comms_.push_back(p.lc);
  {
    std::lock_guard<std::mutex> lk(stack_mutex_);
    stack_ = std::move(p.stack);
  }
  for (auto& [g, l] : p.links) group_links_[g] = l;
  dynamic_ = true;
  is_new_ = false;
  exited_since_change_ = false;
  blacs_sync_world(p.lc.world);
  return true;
}


void set_last_error(const malleable::Error& e) { g_last_error.emplace(e); }

// Open MPI 4.1.4 over Debian 12's PMIx 4.2 hangs intermittently inside MPI_Comm_spawn (a
// newcomer's first request to the PMIx server in mpiexec is never read). With the
// clients' shared-memory store (gds/ds21) 2.7% of expansions hung, with gds=hash, which
// takes the same data by messages, 0.15%: rarer, not gone (scripts/bench/spawn.sh hang,
// docs/reference/blacs-dyn.md "The spawn hang"; a spawn that still hangs is bounded by the join
// timeout and by the session's spawn deadline). Selecting it on the client side is
// enough, so every process linked with blacs-dyn does, unless the user set PMIX_MCA_gds
// or BLACS_DYN_PMIX_GDS=keep.
//
// Open MPI's MPI-IO (OMPIO) picks a shared-file-pointer component for every file it opens,
// each process for itself: sharedfp/sm (priority 30) when the process sees every process
// of the file's communicator on its own node, else lockedfile (10, when fcntl locks work)
// or individual. Which processes a process sees on its node comes from the launcher's
// locality data of its own job: after an expansion by spawn the processes of the original
// job and the spawned ones see each other differently, so on a merged world some choose
// sm and the others lockedfile, whose opens are different collectives, and the first
// MPI_File_open (a global HDF5 checkpoint's H5Fcreate) hangs for ever. The
// choice is made per file and cannot be steered by an MPI_Info hint; excluding sm makes
// it the same on every process of any world (lockedfile where locks work, on every
// process alike). HDF5 never uses shared file pointers, so nothing is slower; a file open
// costs one lock probe per process. Unless the user chose (OMPI_MCA_sharedfp set) or
// BLACS_DYN_SHAREDFP=keep. Open MPI only (MPICH's ROMIO has no such components).
//
// BLACS_DYN_PML=ucx: old and new processes on one node talk through shared memory. With
// Open MPI's default ob1 they cannot: its shared-memory transport (btl/vader) serves only
// processes of one job, so a spawned process and an original on the same node talk over
// TCP, and a job grown onto a node's idle cores computes slower than one started there.
// UCX (pml/ucx; Debian's Open MPI has it, its openmpi-mca-params.conf leaves it off) reaches
// a process of another job through shared memory too, but only when the peers read each
// other's full UCX address: with PMIx's gds=hash a process gets another job's
// network-only address (Open MPI publishes the full one for local peers, and hash answers
// for another job with the remote one), so `ucx` keeps PMIx's ds21 store, at its spawn-hang
// rate ("The spawn hang" in docs/reference/blacs-dyn.md). Every variable the user set
// stays as set.
void prepare_mpi_init() {
  const Config env = read_config();
  const bool ucx = env.pml == Text("ucx");
  if (env.pml && !ucx)
    std::fprintf(stderr, "blacs-dyn: BLACS_DYN_PML='%s' ignored: the one value is 'ucx' (unset: Open MPI's choice)\n",
                 env.pml->c_str());
  if (!env.keep_pmix_gds && !ucx) ::setenv("PMIX_MCA_gds", "hash", 0);
#if defined(OPEN_MPI)
  if (!env.keep_sharedfp) ::setenv("OMPI_MCA_sharedfp", "^sm", 0);
  if (ucx) {
    ::setenv("OMPI_MCA_pml", "ucx", 0);
    // Open MPI 4.1 selects UCX only over InfiniBand devices unless told otherwise.
    ::setenv("OMPI_MCA_pml_ucx_tls", "any", 0);
    ::setenv("OMPI_MCA_pml_ucx_devices", "any", 0);
  }
#endif
}

const malleable::Error* last_error() { return g_last_error ? &*g_last_error : nullptr; }

double join_timeout_seconds() {
  if (const Text t = read_config().join_timeout; t && !t->empty()) {
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (*end == '\0' && v > 0) return v;
  }
  // As the session's resize watchdog: since the deadline covers the spawn too, it must
  // exceed the slowest spawn (40 s seen on this shared 2-core host).
  return 180.0;
}

double join_proof_timeout_seconds() {
  const Text t = read_join_config().proof_timeout;
  if (!t) return 5.0;
  char* end = nullptr;
  const double v = t->empty() ? 0 : std::strtod(t->c_str(), &end);
  if (t->empty() || *end != '\0' || !(v >= 0.1 && v <= 3600))
    throw Error(BLACS_DYN_ERR_ARG, "BLACS_DYN_JOIN_PROOF_TIMEOUT must be seconds from 0.1 to 3600, got '" +
                                       t->substr(0, 40) + "'");
  return v;
}

std::string watchdog_report(const PhaseWatchdog::Status& s) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", s.seconds);
  return "blacs-dyn: FAILED - " + s.who + " (pid " + std::to_string(::getpid()) + " on host " + host_name() +
         "): phase '" + s.phase + "' did not finish within " + seconds + " s (BLACS_DYN_JOIN_TIMEOUT)" +
         (s.hint.empty() ? std::string() : ": " + s.hint) + ". Ending the job.";
}

Runtime& Runtime::get() {
  static Runtime rt;
  return rt;
}

namespace {
// The rank a launcher gives a process before MPI_Init (Open MPI, then MPICH/PMI).
std::string launcher_rank() { return read_config().launcher_rank.value_or("?"); }
}  // namespace

std::string Runtime::who() const {
  if (initialized_ && !comms_.empty() && departure_ == Departure::Stay && world() != MPI_COMM_NULL)
    return "world rank " + std::to_string(rank()) + " (process " + std::to_string(me_) + ")";
  if (me_ >= 0) return "process " + std::to_string(me_);
  if (!join_.launch.empty()) return "a process of joining launch " + join_.launch;
  return "newcomer " + launcher_rank() + " of the expansion to level " +
         read_config().join.value_or("?");
}

std::string Runtime::where() const {
  const std::string phase = dog_.current_phase();
  return who() + " on host " + host_name() + (phase.empty() ? std::string() : ", in phase '" + phase + "'");
}

void Runtime::watch_newcomer_init() {
  // Test hook (docs/reference/blacs-dyn.md, "Failures during a resize"): the last newcomer of a
  // spawn group of two or more is SIGKILLed before MPI_Init, as by a crash during the spawn.
  const Config env = read_config();
  if (env.fault == Text("kill-newcomer-in-init")) {
    const char* r = env.ompi_world_rank ? env.ompi_world_rank->c_str() : nullptr;
    const char* n = env.ompi_world_size ? env.ompi_world_size->c_str() : nullptr;
    if (r && n && std::atoi(n) > 1 && std::atoi(r) == std::atoi(n) - 1) {
      std::fprintf(stderr, "blacs-dyn: fault injection - newcomer %s (pid %d) kills itself in the spawn\n", r,
                   static_cast<int>(::getpid()));
      std::fflush(stderr);
      std::raise(SIGKILL);
    }
  }
  // Test hook: the last newcomer of the spawn stops before its MPI_Init and never goes on,
  // as a newcomer stuck in PMIx_Init: the spawning world hangs in MPI_Comm_spawn.
  if (env.fault == Text("stall-newcomer-in-init")) {
    const char* r = env.ompi_world_rank ? env.ompi_world_rank->c_str() : nullptr;
    const char* n = env.ompi_world_size ? env.ompi_world_size->c_str() : nullptr;
    if (r && n && std::atoi(r) == std::atoi(n) - 1) {
      std::fprintf(stderr, "blacs-dyn: fault injection - newcomer %s (pid %d) stalls before its MPI_Init\n", r,
                   static_cast<int>(::getpid()));
      std::fflush(stderr);
      for (;;) ::pause();
    }
  }
  dog_.arm(who(), "MPI_Init of a spawned process", join_timeout_seconds(),
           "another process of this spawn died, or the spawning world stopped, so the spawn "
           "cannot complete");
}

void Runtime::ensure_init() {
  if (initialized_) return;
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag) {
    // As the stock blacs_pinfo: initialise MPI without the program's arguments.
    int argc = 0;
    char** argv = nullptr;
    prepare_mpi_init();
    if (read_config().join) watch_newcomer_init();
    PMPI_Init(&argc, &argv);
  }
  initialized_ = true;
  blacs_interposed_ = blacs_entry_points_interposed();
  check_scalapack_version(read_config().allow_any_scalapack);

  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  const Text token = read_config().join;
  if (parent != MPI_COMM_NULL && token) {
    join_as_child(parent, token->c_str());
    return;
  }
  const JoinConfig jc = read_join_config();
  if (jc.launch && jc.job_dir) {  // a launch that joins a running job (runtime_joiner.cpp)
    JoiningLaunch(*this).run();
    return;
  }
  dog_.disarm();  // armed by watch_newcomer_init for a process that is no newcomer after all
  int n = 0, r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  stack_.emplace(n);
  me_ = r;
  if (r == 0 && read_config().verbose) {  // the user can see it is preloaded
    Dl_info self{};
    dladdr(reinterpret_cast<void*>(&prepare_mpi_init), &self);
    std::fprintf(stderr, "blacs-dyn: active (%s), world of %d processes\n",
                 self.dli_fname ? self.dli_fname : "libmalleable_blacs_dyn", n);
  }
  // Level 0 is MPI_COMM_WORLD itself, so a program that never expands sees exactly the
  // stock handles. Its private dup is made lazily, inside the first collective call:
  // dup'ing here would make the first BLACS call collective, which it is not.
  comms_.assign(1, LevelComms{MPI_COMM_WORLD, false, MPI_COMM_NULL});
  // A job that launches may join (its directory, heartbeat and start's launches).
  if (jc.job_dir) Join(*this).start_joinable();
}

namespace {

// A newcomer's check-in: its hello to the spawning root, then the go (or the abort) that
// answers it. A newcomer told to go away, or not answered in time, exits here.
Go await_go(MPI_Comm link, const char* token, double timeout) {
  const std::vector<char> hello = encode(Hello{static_cast<int>(::getpid()), std::atoi(token)});
  check(MPI_Send(hello.data(), static_cast<int>(hello.size()), MPI_BYTE, 0, kTagHello, link),
        "newcomer: MPI_Send (hello)");
  MPI_Status st;
  int flag = 0;
  const double deadline = now() + timeout;
  while (true) {
    check(MPI_Iprobe(0, kTagGo, link, &flag, &st), "newcomer: MPI_Iprobe");
    if (flag) break;
    if (now() > deadline) {
      std::fprintf(stderr,
                   "blacs-dyn: newcomer pid %d got no answer from the spawning world within "
                   "%.1f s; exiting\n",
                   static_cast<int>(::getpid()), timeout);
      std::fflush(nullptr);
      ::_exit(1);
    }
    sleep_for(200000);
  }
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  std::vector<char> bytes(static_cast<std::size_t>(std::max(count, 0)));
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, 0, kTagGo, link, MPI_STATUS_IGNORE), "newcomer: MPI_Recv (go)");
  Go go;
  try {
    go = decode_go(bytes);
  } catch (const malleable::wire::Error& e) {
    throw Error(BLACS_DYN_ERR_MPI, std::string("newcomer: ") + e.what());
  }
  if (!go.go) {
    std::fprintf(stderr,
                 "blacs-dyn: the expansion was cancelled by the spawning world (a sibling did "
                 "not check in); newcomer pid %d exits\n",
                 static_cast<int>(::getpid()));
    std::fflush(nullptr);
    ::_exit(1);
  }
  return go;
}

}  // namespace

// A newcomer's first blacs-dyn call (or MPI_Init): check in with the spawning root,
// receive the stack, then take the children's side of both merges. This is the
// thesis's `newprocess` branch (§3.3.4), recognised by the BLACS_DYN_JOIN variable that the
// expansion put into the spawned environment, so children of a later expansion are
// told apart from earlier ones (whose MPI_Comm_get_parent is not null either).
void Runtime::join_as_child(MPI_Comm link, const char* token) {
  const double timeout = join_timeout_seconds();
  WatchdogScope watch(dog_);
  int grank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &grank);
  dog_.set_who("newcomer " + std::to_string(grank) + " of the expansion to level " + token);
  // The wait for the go has its own deadline (with its own message); the watchdog backs
  // it up.
  dog_.phase("check-in with the spawning world", timeout + 10,
             "the spawning world stopped answering (a process of it died or hangs)");
  MPI_Comm_set_errhandler(link, MPI_ERRORS_RETURN);
  const Go go = await_go(link, token, timeout);
  // This process is in group go.mine of the go.groups spawned by this level's expansion;
  // go.spawner[j] is the world rank that spawned group j (merge_groups).
  const int k = go.groups;
  const int mine = go.mine;
  stack_ = LevelStack::decode(go.stack);
  const int first_group = stack_->ngroups() - k;
  std::vector<int> first_rank;
  for (int j = 0; j < k; ++j)
    first_rank.push_back(stack_->rank_at(stack_->group(first_group + j).first, stack_->depth() - 1));
  int wr = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wr);
  me_ = stack_->group(first_group + mine).first + wr;
  dog_.set_who("newcomer " + std::to_string(grank) + " (process " + std::to_string(me_) +
               ") of the expansion to level " + token);

  std::vector<MPI_Comm> links(static_cast<std::size_t>(k), MPI_COMM_NULL);
  links[static_cast<std::size_t>(mine)] = link;
  dog_.phase("merge into the world", timeout, "a process of the world or of the newcomers died or hangs");
  const MPI_Comm merged = merge_groups(MPI_COMM_NULL, go.spawner, mine, links, first_rank);
  install_newcomer(merged, go.level, links[static_cast<std::size_t>(mine)]);  // now the link with rank 0
}

// The newcomer's world after the merges: level `level` of its stack, `link` its link
// with rank 0.
void Runtime::install_newcomer(MPI_Comm merged, int level, MPI_Comm link) {
  comms_.assign(static_cast<std::size_t>(level), LevelComms{});
  LevelComms lc{merged, true, MPI_COMM_NULL};
  check(MPI_Comm_dup(merged, &lc.priv), "newcomer: MPI_Comm_dup");
  MPI_Comm_set_errhandler(lc.priv, MPI_ERRORS_RETURN);
  comms_.push_back(lc);
  record_hosts(gather_processor_names(lc.priv));
  link_ = link;
  is_new_ = true;
  dynamic_ = true;
  ::unsetenv(kJoinEnv);
  blacs_sync_world(merged);
}

MPI_Comm Runtime::world(const BackgroundExpansion* bg) const {
  if (!initialized_ || departure_ != Departure::Stay || comms_.empty()) return MPI_COMM_NULL;
  return top(bg).world;
}

int Runtime::rank(const BackgroundExpansion* bg) const {
  int r = -1;
  if (world(bg) != MPI_COMM_NULL) MPI_Comm_rank(world(bg), &r);
  return r;
}

int Runtime::size(const BackgroundExpansion* bg) const {
  int n = 0;
  if (world(bg) != MPI_COMM_NULL) MPI_Comm_size(world(bg), &n);
  return n;
}

MPI_Comm Runtime::priv(const BackgroundExpansion* bg) const {
  auto& lc = const_cast<LevelComms&>(top(bg));
  if (lc.priv == MPI_COMM_NULL) {
    check(MPI_Comm_dup(lc.world, &lc.priv), "MPI_Comm_dup (private world)");
    MPI_Comm_set_errhandler(lc.priv, MPI_ERRORS_RETURN);
  }
  return lc.priv;
}

void Runtime::require_active(const char* what, const BackgroundExpansion* bg) const {
  if (finalized_) throw Error(BLACS_DYN_ERR_STATE, std::string(what) + ": MPI is finalized");
  if (!bg && (background_running_ || pending_))
    throw Error(BLACS_DYN_ERR_STATE, std::string(what) +
                                    ": an expansion is under way in the background; the main thread may "
                                    "change the world only after publishing it (blacs_dyn_publish_background)");
  if (departure_ != Departure::Stay)
    throw Error(BLACS_DYN_ERR_STATE, std::string(what) +
                                    ": this process has left the world; it must call blacs_dyn_leave()");
}

// The spawn group of every rank of the world `bg` sees.
std::vector<int> Runtime::rank_groups(const BackgroundExpansion* bg) const {
  std::lock_guard<std::mutex> lk(stack_mutex_);
  const LevelStack& st = bg && bg->pending_ ? bg->pending_->stack : *stack_;
  std::vector<int> out;
  for (ProcId p : st.top().members) out.push_back(st.group_of(p));
  return out;
}

const std::string& Runtime::spawn_unsupported_reason() {
  const Text spawn = read_config().spawn;
  if (spawn_unsupported_.empty() && spawn_disabled_by_setting(spawn ? spawn->c_str() : nullptr))
    spawn_unsupported_ = "spawn not supported: disabled by BLACS_DYN_SPAWN=" + *spawn;
  return spawn_unsupported_;
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

// A level's communicators freed (MPI_COMM_WORLD itself is not).
void Runtime::free_level(LevelComms& c) {
  if (c.priv != MPI_COMM_NULL) MPI_Comm_free(&c.priv);
  if (c.owned && c.world != MPI_COMM_NULL) MPI_Comm_free(&c.world);
}

void Runtime::free_all_comms() {
  for (auto& c : comms_) {
    if (c.priv != MPI_COMM_NULL) MPI_Comm_free(&c.priv);
    if (c.owned && c.world != MPI_COMM_NULL) MPI_Comm_free(&c.world);
  }
  comms_.clear();
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
  if (initialized_ && !finalized_ && departure_ == Departure::Exit) Leave(*this).exit_process();
  if (initialized_ && !finalized_ && departure_ == Departure::Park) Leave(*this).park();
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

// The grown world installed (or left pending in `bg`): the last step of every expansion,
// spawned or joined.
void Runtime::commit_level(MPI_Comm merged, LevelStack next, std::map<int, MPI_Comm> new_links, PhaseTrace& trace,
                           BackgroundExpansion* bg) {
  LevelComms lc{merged, true, MPI_COMM_NULL};
  check(MPI_Comm_dup(merged, &lc.priv), "MPI_Comm_dup");
  trace.mark("dup");
  MPI_Comm_set_errhandler(lc.priv, MPI_ERRORS_RETURN);
  if (bg) {
    // Background resizes: the grown world stays the background expansion's until the main
    // thread publishes it.
    bg->pending_ = PendingLevel{lc, std::move(next), std::move(new_links)};
    record_hosts(gather_processor_names(lc.priv), bg);
    trace.mark("hosts");
    return;
  }
  comms_.push_back(lc);
  {
    std::lock_guard<std::mutex> lk(stack_mutex_);
    stack_ = std::move(next);
  }
  for (auto& [g, l] : new_links) group_links_[g] = l;
  dynamic_ = true;
  is_new_ = false;
  exited_since_change_ = false;
  record_hosts(gather_processor_names(lc.priv));
  trace.mark("hosts");
  blacs_sync_world(merged);
}

}  // namespace blacs_dyn
