// SPDX-License-Identifier: BSD-3-Clause
// MPI execution of expansions (seed 002 §3.3.3-3.3.4), shrinks (§3.3.5), parking and the
// final release. Protocol overview: docs/blacs-dyn.md, "How it works".
#include "runtime.hpp"

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
#include "malleable/blacs_dyn/schema.hpp"
#include "blacs_glue.hpp"

namespace blacs_dyn {
namespace {

// Tags of the library's own messages. They travel on private communicators (dups of
// the world) or on the spawn links, never on a communicator the application uses.
constexpr int kTagHello = 0x4b01;    // newcomer -> spawning root: "I am here" (pid)
constexpr int kTagGo = 0x4b02;       // spawning root -> newcomer: go/abort + stack
constexpr int kTagRelease = 0x4b03;  // rank 0 -> parked process: exit or finalize
constexpr int kTagIcc = 0x4b04;      // MPI_Intercomm_create between world and newcomers
constexpr int kTagMerge = 0x5000;    // + group index: bridging spawn group i into the world
constexpr int kTagHandover = 0x6000; // + group index: rank 0 takes over group i's link

constexpr int kReleaseFinalize = 1;  // the job ends: finalize with everybody
constexpr int kReleaseExit = 2;      // your spawn group leaves: disconnect and exit

constexpr const char* kJoinEnv = "BLACS_DYN_JOIN";

thread_local std::string g_last_error;

std::string mpi_error_text(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(buf, static_cast<std::size_t>(len));
}

// An MPI error (the library's communicators return errors: MPI_ERRORS_RETURN) names the
// call, the process, its host and the phase under way (issue 20 §5).
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS)
    throw Error(BLACS_DYN_ERR_MPI, std::string(what) + " failed on " + Runtime::get().where() + ": " + mpi_error_text(rc));
}

void sleep_for(long ns) {
  timespec ts{ns / 1000000000L, ns % 1000000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Every rank learns the first error any rank met, with the same code and message, so
// collective calls fail identically everywhere and the world stays unchanged.
void agree(MPI_Comm comm, const std::optional<Error>& local) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = local ? rank : INT_MAX;
  int first = INT_MAX;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce (agree)");
  if (first == INT_MAX) return;
  int hdr[2] = {local ? local->code() : 0, 0};
  std::string msg = local ? local->what() : "";
  hdr[1] = static_cast<int>(msg.size());
  check(MPI_Bcast(hdr, 2, MPI_INT, first, comm), "MPI_Bcast (agree)");
  msg.resize(static_cast<std::size_t>(hdr[1]));
  check(MPI_Bcast(msg.data(), hdr[1], MPI_CHAR, first, comm), "MPI_Bcast (agree)");
  throw Error(hdr[0], msg);
}

bool truthy(const char* v) {
  return v && (!std::strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
               !strcasecmp(v, "on"));
}

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Open MPI 4.1 aborts the whole job when asked to spawn a program it cannot execute,
// so rank 0 looks for it first, the way the launcher will (wdir, then PATH).
void check_executable(const std::string& cmd, const std::string& wdir) {
  if (cmd.empty()) throw Error(BLACS_DYN_ERR_ARG, "command is empty");
  if (cmd.find('/') != std::string::npos) {
    const std::string p = (cmd[0] != '/' && !wdir.empty()) ? wdir + "/" + cmd : cmd;
    if (!is_executable_file(p))
      throw Error(BLACS_DYN_ERR_SPAWN, "cannot spawn '" + cmd + "': " + p +
                                      " does not exist or is not an executable file");
    return;
  }
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && is_executable_file(dir + "/" + cmd)) return;
  throw Error(BLACS_DYN_ERR_SPAWN, "cannot spawn '" + cmd + "': not found in PATH");
}

// Checked before spawning because Open MPI 4.1.4 handles a refused spawn badly: in a
// collective spawn the other ranks stay blocked, and even after a refused spawn over
// MPI_COMM_SELF (which returns MPI_ERR_SPAWN cleanly and leaves the world usable)
// mpiexec never exits at the end of the job. BLACS_DYN_SLOT_CHECK=0 skips the check.
void check_capacity(int alive, int nnew) {
  long cap = LONG_MAX;
  std::string why;
  if (const char* m = env_setting("MAX_PROCS"); m && *m) {
    char* end = nullptr;
    const long v = std::strtol(m, &end, 10);
    if (*end != '\0' || v < 1)
      throw Error(BLACS_DYN_ERR_ARG, std::string("BLACS_DYN_MAX_PROCS must be a positive integer, got '") +
                                    m + "'");
    cap = v;
    why = "BLACS_DYN_MAX_PROCS=" + std::to_string(v);
  }
  const char* slot_check = env_setting("SLOT_CHECK");
  if (!(slot_check && !std::strcmp(slot_check, "0")) &&
      !truthy(std::getenv("OMPI_MCA_rmaps_base_oversubscribe"))) {
    int* usize = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    if (flag && usize && *usize > 0 && *usize < cap) {
      cap = *usize;
      why = "MPI_UNIVERSE_SIZE=" + std::to_string(*usize) +
            " slots and oversubscription is off (OMPI_MCA_rmaps_base_oversubscribe)";
    }
  }
  if (static_cast<long>(alive) + nnew > cap)
    throw Error(BLACS_DYN_ERR_SPAWN, "too many processes: " + std::to_string(alive) +
                                    " running + " + std::to_string(nnew) + " new exceeds " +
                                    std::to_string(cap) + " (" + why + ")");
}

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(buf, &len) != MPI_SUCCESS) return {};
  return std::string(buf, static_cast<std::size_t>(len));
}

std::string info_get(MPI_Info info, const char* key) {
  if (info == MPI_INFO_NULL) return {};
  int len = 0, flag = 0;
  MPI_Info_get_valuelen(info, key, &len, &flag);
  if (!flag) return {};
  std::string v(static_cast<std::size_t>(len) + 1, '\0');
  MPI_Info_get(info, key, len + 1, v.data(), &flag);
  v.resize(static_cast<std::size_t>(len));
  return v;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::uint64_t fingerprint(const ShrinkPlan& plan) {
  std::uint64_t h = 1469598103934665603ull ^ static_cast<std::uint64_t>(plan.pop_to + 7);
  for (ProcId p : plan.new_members) h = (h ^ static_cast<std::uint64_t>(p + 1)) * 1099511628211ull;
  return h & 0x7fffffffffffffffull;
}

// The processor name (node) of every rank of `comm`, in rank order.
std::vector<std::string> gather_processor_names(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  check(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<char> all(static_cast<std::size_t>(n) * MPI_MAX_PROCESSOR_NAME);
  check(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                      MPI_CHAR, comm),
        "MPI_Allgather (processor names)");
  std::vector<std::string> out;
  for (int r = 0; r < n; ++r) {
    const char* p = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    out.emplace_back(p, strnlen(p, MPI_MAX_PROCESSOR_NAME));
  }
  return out;
}

// BLACS_DYN_TRACE=1: rank 0 of an expansion prints the time of each phase on stderr.
class PhaseTrace {
 public:
  explicit PhaseTrace(bool on) : on_(on && env_setting("TRACE")), t_(now()) {}
  void mark(const char* phase) {
    if (!on_) return;
    const double t = now();
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    std::fprintf(stderr, "blacs-dyn trace: %-28s %8.2f ms (at %ld.%03ld)\n", phase, 1e3 * (t - t_),
                 static_cast<long>(ts.tv_sec), ts.tv_nsec / 1000000);
    t_ = t;
  }

 private:
  bool on_;
  double t_;
};

}  // namespace

void set_last_error(const std::string& msg) { g_last_error = msg; }

// Open MPI 4.1.4 over Debian 12's PMIx 4.2 hangs intermittently inside MPI_Comm_spawn,
// and spends seconds per spawn, when PMIx clients read job data from the shared-memory
// store (gds/ds21). Measured here (2 ranks, 25 spawn rounds per run): 6 of 8 runs hung
// with the default store, none of 14 runs (700 spawns, concurrent ones included) with
// gds=hash, which takes the same data by messages; a spawn round fell from 4.0 s to
// 0.38 s (docs/blacs-dyn.md). Selecting it on the client side is enough, so every
// process linked with blacs-dyn does, unless the user set PMIX_MCA_gds or
// BLACS_DYN_PMIX_GDS=keep.
void prepare_mpi_init() {
  const char* keep = env_setting("PMIX_GDS");
  if (keep && std::strcmp(keep, "keep") == 0) return;
  ::setenv("PMIX_MCA_gds", "hash", 0);
}

const char* env_setting(const char* suffix) {
  return std::getenv((std::string("BLACS_DYN_") + suffix).c_str());
}
const std::string& last_error() { return g_last_error; }

double join_timeout_seconds() {
  if (const char* t = env_setting("JOIN_TIMEOUT"); t && *t) {
    char* end = nullptr;
    const double v = std::strtod(t, &end);
    if (*end == '\0' && v > 0) return v;
  }
  // As the session's resize watchdog: since the deadline covers the spawn too (issue 20
  // §5), it must exceed the slowest spawn (40 s seen on this shared 2-core host).
  return 180.0;
}

Runtime& Runtime::get() {
  static Runtime rt;
  return rt;
}

namespace {
// The rank a launcher gives a process before MPI_Init (Open MPI, then MPICH/PMI).
std::string launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* r = std::getenv(v); r && *r) return r;
  return "?";
}
}  // namespace

std::string Runtime::who() const {
  if (initialized_ && !comms_.empty() && departure_ == Departure::Stay && world() != MPI_COMM_NULL)
    return "world rank " + std::to_string(rank()) + " (process " + std::to_string(me_) + ")";
  if (me_ >= 0) return "process " + std::to_string(me_);
  return "newcomer " + launcher_rank() + " of the expansion to level " +
         (std::getenv(kJoinEnv) ? std::getenv(kJoinEnv) : std::string("?"));
}

std::string Runtime::where() const {
  const std::string phase = dog_.current_phase();
  return who() + " on host " + host_name() + (phase.empty() ? std::string() : ", in phase '" + phase + "'");
}

void Runtime::watch_newcomer_init() {
  // Test hook (docs/blacs-dyn.md, "Failures during a resize"): the last newcomer of a
  // spawn group of two or more is SIGKILLed before MPI_Init, as by a crash during the spawn.
  if (const char* f = env_setting("FAULT"); f && !std::strcmp(f, "kill-newcomer-in-init")) {
    const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
    const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (r && n && std::atoi(n) > 1 && std::atoi(r) == std::atoi(n) - 1) {
      std::fprintf(stderr, "blacs-dyn: fault injection - newcomer %s (pid %d) kills itself in the spawn\n", r,
                   static_cast<int>(::getpid()));
      std::fflush(stderr);
      std::raise(SIGKILL);
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
    if (std::getenv(kJoinEnv)) watch_newcomer_init();
    PMPI_Init(&argc, &argv);
  }
  initialized_ = true;
  blacs_interposed_ = blacs_entry_points_interposed();
  check_scalapack_version();

  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  const char* token = std::getenv(kJoinEnv);
  if (parent != MPI_COMM_NULL && token) {
    join_as_child(parent, token);
    return;
  }
  dog_.disarm();  // armed by watch_newcomer_init for a process that is no newcomer after all
  int n = 0, r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  stack_.emplace(n);
  me_ = r;
  if (r == 0 && truthy(env_setting("VERBOSE"))) {  // the user can see it is preloaded
    Dl_info self{};
    dladdr(reinterpret_cast<void*>(&prepare_mpi_init), &self);
    std::fprintf(stderr, "blacs-dyn: active (%s), world of %d processes\n",
                 self.dli_fname ? self.dli_fname : "libmalleable_blacs_dyn", n);
  }
  // Level 0 is MPI_COMM_WORLD itself, so a program that never expands sees exactly the
  // stock handles. Its private dup is made lazily, inside the first collective call:
  // dup'ing here would make the first BLACS call collective, which it is not.
  comms_.assign(1, LevelComms{MPI_COMM_WORLD, false, MPI_COMM_NULL});
}

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
  // The wait for the go has its own deadline below (with its own message); the watchdog
  // backs it up.
  dog_.phase("check-in with the spawning world", timeout + 10,
             "the spawning world stopped answering (a process of it died or hangs)");
  MPI_Comm_set_errhandler(link, MPI_ERRORS_RETURN);
  int hello[2] = {static_cast<int>(::getpid()), std::atoi(token)};
  check(MPI_Send(hello, 2, MPI_INT, 0, kTagHello, link), "newcomer: MPI_Send (hello)");
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
  MPI_Get_count(&st, MPI_INT, &count);
  std::vector<int> go(static_cast<std::size_t>(std::max(count, 1)));
  check(MPI_Recv(go.data(), count, MPI_INT, 0, kTagGo, link, MPI_STATUS_IGNORE),
        "newcomer: MPI_Recv (go)");
  if (count < 4 || go[0] != 1) {
    std::fprintf(stderr,
                 "blacs-dyn: the expansion was cancelled by the spawning world (a sibling did "
                 "not check in); newcomer pid %d exits\n",
                 static_cast<int>(::getpid()));
    std::fflush(nullptr);
    ::_exit(1);
  }
  // go = {1, level, k, i, spawner[0..k-1], encoded stack}: this process is in group i
  // of the k spawned by this level's expansion; spawner[j] is the world rank that
  // spawned group j (merge_groups).
  const int level = go[1];
  const int k = go[2];
  const int mine = go[3];
  if (k < 1 || mine < 0 || mine >= k || count < 4 + k)
    throw Error(BLACS_DYN_ERR_MPI, "newcomer: corrupt go message");
  std::vector<int> spawner(go.begin() + 4, go.begin() + 4 + k);
  stack_ = LevelStack::decode(std::span<const int>(go).subspan(static_cast<std::size_t>(4 + k)));
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
  const MPI_Comm merged = merge_groups(MPI_COMM_NULL, spawner, mine, links, first_rank);
  link = links[static_cast<std::size_t>(mine)];  // now the link with rank 0
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

MPI_Comm Runtime::world() const {
  if (!initialized_ || departure_ != Departure::Stay || comms_.empty()) return MPI_COMM_NULL;
  return comms_.back().world;
}

int Runtime::rank() const {
  int r = -1;
  if (world() != MPI_COMM_NULL) MPI_Comm_rank(world(), &r);
  return r;
}

int Runtime::size() const {
  int n = 0;
  if (world() != MPI_COMM_NULL) MPI_Comm_size(world(), &n);
  return n;
}

MPI_Comm Runtime::priv() const {
  auto& top = const_cast<LevelComms&>(comms_.back());
  if (top.priv == MPI_COMM_NULL) {
    check(MPI_Comm_dup(top.world, &top.priv), "MPI_Comm_dup (private world)");
    MPI_Comm_set_errhandler(top.priv, MPI_ERRORS_RETURN);
  }
  return top.priv;
}

void Runtime::require_active(const char* what) const {
  if (finalized_) throw Error(BLACS_DYN_ERR_STATE, std::string(what) + ": MPI is finalized");
  if (departure_ != Departure::Stay)
    throw Error(BLACS_DYN_ERR_STATE, std::string(what) +
                                    ": this process has left the world; it must call blacs_dyn_leave()");
}

const std::string& Runtime::spawn_unsupported_reason() {
  if (spawn_unsupported_.empty() && spawn_disabled_by_setting(env_setting("SPAWN")))
    spawn_unsupported_ = "spawn not supported: disabled by BLACS_DYN_SPAWN=" + std::string(env_setting("SPAWN"));
  return spawn_unsupported_;
}

MPI_Comm Runtime::spawn_and_handshake(const SpawnRequest& req, int level, ProcId first_id) {
  MPI_Info info = MPI_INFO_NULL;
  if (req.info != MPI_INFO_NULL) check(MPI_Info_dup(req.info, &info), "MPI_Info_dup");
  else check(MPI_Info_create(&info), "MPI_Info_create");
  if (!req.hosts.empty()) MPI_Info_set(info, "host", req.hosts.c_str());
  // A per-host group's host joins the launcher's pool if it is not there yet (Open MPI's
  // "add-host"; harmless when it is): a job started on one node (mpiexec --host node1:4)
  // grows onto any node it is given, and the launcher starts a daemon there only then.
  if (req.per_host && info_get(info, "add-host").empty()) MPI_Info_set(info, "add-host", req.hosts.c_str());
  if (!req.wdir.empty()) MPI_Info_set(info, "wdir", req.wdir.c_str());
  // Open MPI's "env" key: newline-separated assignments added to the children's
  // environment. BLACS_DYN_JOIN marks them as newcomers of this expansion.
  std::string env = info_get(info, "env");
  if (!env.empty()) env += "\n";
  env += std::string(kJoinEnv) + "=" + std::to_string(level);
  MPI_Info_set(info, "env", env.c_str());

  std::vector<char*> argv;
  for (const auto& a : req.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<int> errcodes(static_cast<std::size_t>(req.nnew), MPI_SUCCESS);
  MPI_Comm link = MPI_COMM_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  // Open MPI's MPI_Comm_spawn returns only once every child is through MPI_Init: a child
  // that dies or exits first (a crash, or an executable that is no blacs-dyn program)
  // would block it for minutes or for ever. The join timeout covers the spawn too.
  dog_.phase("MPI_Comm_spawn of " + std::to_string(req.nnew) + " x '" + req.command + "'" +
                 (req.hosts.empty() ? std::string() : " on " + req.hosts),
             join_timeout_seconds(),
             "a spawned process died or exited before its MPI_Init completed (killed, crashed, or '" +
                 req.command + "' is no MPI program linked with blacs-dyn)");
  const int rc = MPI_Comm_spawn(req.command.c_str(), req.args.empty() ? MPI_ARGV_NULL : argv.data(),
                                req.nnew, info, 0, MPI_COMM_SELF, &link, errcodes.data());
  MPI_Info_free(&info);
  int failed = 0;
  for (int e : errcodes) failed += e != MPI_SUCCESS;
  if (rc != MPI_SUCCESS || failed) {
    // Not freed: after a failed spawn Open MPI 4.1 leaves an invalid handle in `link`
    // (MPI_Comm_free on it is fatal), and the standard does not define its value.
    // Ask the MPI what the failure means rather than assuming Open MPI's behaviour.
    int cls = MPI_ERR_SPAWN;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    const std::string text = mpi_error_text(rc != MPI_SUCCESS ? rc : MPI_ERR_SPAWN);
    const std::string library = library_version();
    if (classify_spawn_failure(flavour_from_library_version(library), cls == MPI_ERR_SPAWN, text) ==
        SpawnFailure::Unsupported) {
      std::string last = text.substr(text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1);
      throw Error(BLACS_DYN_ERR_UNSUPPORTED,
                  "spawn not supported by this MPI (" + short_library_name(library) +
                      "): MPI_Comm_spawn fails with \"" + last +
                      "\" (error class " + std::to_string(cls) +
                      "); nothing changed, and expansions are refused from now on "
                      "(docs/mpi-flavours.md)");
    }
    throw Error(BLACS_DYN_ERR_SPAWN,
                "MPI_Comm_spawn of " + std::to_string(req.nnew) + " x '" + req.command +
                    "' failed: " + mpi_error_text(rc != MPI_SUCCESS ? rc : MPI_ERR_SPAWN) + " (" +
                    std::to_string(failed) + " of " + std::to_string(req.nnew) +
                    " processes not started)");
  }
  MPI_Comm_set_errhandler(link, MPI_ERRORS_RETURN);
  dog_.phase("check-in of " + std::to_string(req.nnew) + " newcomers", join_timeout_seconds() + 10,
             "the check-in loop itself did not return");

  // Every newcomer checks in within the timeout, else the expansion is cancelled: a
  // newcomer that died (or is not a blacs-dyn program) must not hang the world in
  // MPI_Intercomm_merge.
  const double timeout = join_timeout_seconds();
  std::vector<int> hello(2 * static_cast<std::size_t>(req.nnew), -1);
  std::vector<MPI_Request> reqs(static_cast<std::size_t>(req.nnew), MPI_REQUEST_NULL);
  for (int i = 0; i < req.nnew; ++i)
    check(MPI_Irecv(&hello[2 * static_cast<std::size_t>(i)], 2, MPI_INT, i, kTagHello, link,
                    &reqs[static_cast<std::size_t>(i)]),
          "MPI_Irecv (hello)");
  const double deadline = now() + timeout;
  int all = 0;
  while (true) {
    // MPI_Testsome, not MPI_Testall: Testall leaves every request active unless all
    // completed, and the newcomers that did check in must be told apart on a timeout.
    int done = 0;
    std::vector<int> idx(static_cast<std::size_t>(req.nnew));
    check(MPI_Testsome(req.nnew, reqs.data(), &done, idx.data(), MPI_STATUSES_IGNORE),
          "MPI_Testsome (hello)");
    all = std::all_of(reqs.begin(), reqs.end(), [](MPI_Request q) { return q == MPI_REQUEST_NULL; });
    if (all || now() > deadline) break;
    sleep_for(200000);
  }
  if (!all) {
    std::string missing;
    int nmissing = 0;
    for (int i = 0; i < req.nnew; ++i) {
      auto& r = reqs[static_cast<std::size_t>(i)];
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
        if (nmissing++ < 8) {
          if (!missing.empty()) missing.push_back(',');
          missing.append(std::to_string(i));
        }
      } else {
        const int abort_msg[4] = {0, level, first_id, 0};
        MPI_Send(abort_msg, 4, MPI_INT, i, kTagGo, link);
      }
    }
    MPI_Comm_free(&link);
    throw Error(BLACS_DYN_ERR_TIMEOUT,
                std::to_string(nmissing) + " of " + std::to_string(req.nnew) +
                    " spawned processes (ranks " + missing + " of the new group) did not join within " +
                    seconds_text(timeout) + " s (BLACS_DYN_JOIN_TIMEOUT): died, or not linked with "
                    "blacs-dyn; the expansion is cancelled and the world is unchanged");
  }
  return link;
}

MPI_Comm Runtime::merge_groups(MPI_Comm w, const std::vector<int>& spawner, int mine,
                               std::vector<MPI_Comm>& links, const std::vector<int>& first_rank) {
  // Group by group, in order, the world grows: the group's spawning parent merges its
  // spawn link into a bridge, the world and the group make an intercommunicator over it,
  // and merge, old ranks first (§3.3.3: parents keep their ranks, newcomers follow). A
  // newcomer takes part from its own group's step on.
  const int k = static_cast<int>(spawner.size());
  MPI_Comm cur = mine < 0 ? w : MPI_COMM_NULL;
  for (int i = std::max(mine, 0); i < k; ++i) {
    MPI_Comm m1 = MPI_COMM_NULL, ia = MPI_COMM_NULL, next = MPI_COMM_NULL;
    if (i == mine) {
      check(MPI_Intercomm_merge(links[static_cast<std::size_t>(i)], 1, &m1),
            "newcomer: MPI_Intercomm_merge (spawner)");
      check(MPI_Intercomm_create(MPI_COMM_WORLD, 0, m1, 0, kTagMerge + i, &ia),
            "newcomer: MPI_Intercomm_create");
      check(MPI_Intercomm_merge(ia, 1, &next), "newcomer: MPI_Intercomm_merge (world)");
    } else {
      int r = 0;
      MPI_Comm_rank(cur, &r);
      if (r == spawner[static_cast<std::size_t>(i)])
        check(MPI_Intercomm_merge(links[static_cast<std::size_t>(i)], 0, &m1),
              "MPI_Intercomm_merge (spawner and newcomers)");
      check(MPI_Intercomm_create(cur, spawner[static_cast<std::size_t>(i)], m1, 1, kTagMerge + i, &ia),
            "MPI_Intercomm_create");
      check(MPI_Intercomm_merge(ia, 0, &next), "MPI_Intercomm_merge (world and newcomers)");
    }
    MPI_Comm_free(&ia);
    if (m1 != MPI_COMM_NULL) MPI_Comm_free(&m1);
    if (cur != MPI_COMM_NULL && cur != w) MPI_Comm_free(&cur);
    cur = next;
  }
  // Hand-over: a group spawned by a rank other than 0 gets a link with rank 0 (an
  // intercommunicator made over the new world) and disconnects from its spawner, so the
  // group is tied to rank 0 alone, as a group rank 0 spawned is: release messages and the
  // final disconnect go through rank 0 whatever happens to the spawner later.
  int r = 0;
  MPI_Comm_rank(cur, &r);
  for (int i = 0; i < k; ++i) {
    const int s = spawner[static_cast<std::size_t>(i)];
    if (s == 0) continue;
    auto& l = links[static_cast<std::size_t>(i)];
    if (i == mine) {
      MPI_Comm l0 = MPI_COMM_NULL;
      check(MPI_Intercomm_create(MPI_COMM_WORLD, 0, cur, 0, kTagHandover + i, &l0),
            "newcomer: MPI_Intercomm_create (link with rank 0)");
      check(MPI_Comm_disconnect(&l), "newcomer: MPI_Comm_disconnect (spawner's link)");
      MPI_Comm_set_errhandler(l0, MPI_ERRORS_RETURN);
      l = l0;
    } else if (mine < 0 && r == 0) {
      MPI_Comm l0 = MPI_COMM_NULL;
      check(MPI_Intercomm_create(MPI_COMM_SELF, 0, cur, first_rank[static_cast<std::size_t>(i)],
                                 kTagHandover + i, &l0),
            "MPI_Intercomm_create (rank 0's link with a spawn group)");
      MPI_Comm_set_errhandler(l0, MPI_ERRORS_RETURN);
      l = l0;
    } else if (mine < 0 && r == s) {
      check(MPI_Comm_disconnect(&l), "MPI_Comm_disconnect (spawn link after the hand-over)");
    }
  }
  return cur;
}

// Rank 0's request reaches every rank (the spawners of the other groups need it), and
// with it the keys of rank 0's MPI_Info (an MPI_Info object cannot be sent).
void Runtime::share_request(SpawnRequest& req, MPI_Comm w) const {
  std::vector<std::string> words;
  if (rank() == 0) {
    words = {req.command, req.wdir, req.hosts, std::to_string(req.args.size())};
    words.insert(words.end(), req.args.begin(), req.args.end());
    words.push_back(std::to_string(req.groups.size()));
    for (const auto& g : req.groups) {
      words.push_back(g.host);
      words.push_back(std::to_string(g.count));
    }
    int nkeys = 0;
    if (req.info != MPI_INFO_NULL) MPI_Info_get_nkeys(req.info, &nkeys);
    words.push_back(std::to_string(nkeys));
    for (int i = 0; i < nkeys; ++i) {
      char key[MPI_MAX_INFO_KEY + 1];
      MPI_Info_get_nthkey(req.info, i, key);
      words.push_back(key);
      words.push_back(info_get(req.info, key));
    }
  }
  std::string flat;
  for (const auto& wd : words) {
    flat += std::to_string(wd.size()) + ":";
    flat += wd;
  }
  unsigned long long n = flat.size();
  check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, w), "MPI_Bcast (request length)");
  flat.resize(static_cast<std::size_t>(n));
  check(MPI_Bcast(flat.data(), static_cast<int>(n), MPI_CHAR, 0, w), "MPI_Bcast (request)");
  if (rank() == 0) return;
  std::size_t at = 0;
  const auto word = [&]() {
    const std::size_t colon = flat.find(':', at);
    const std::size_t len = std::stoul(flat.substr(at, colon - at));
    std::string out = flat.substr(colon + 1, len);
    at = colon + 1 + len;
    return out;
  };
  req.command = word();
  req.wdir = word();
  req.hosts = word();
  req.args.resize(std::stoul(word()));
  for (auto& a : req.args) a = word();
  req.groups.resize(std::stoul(word()));
  for (auto& g : req.groups) {
    g.host = word();
    g.count = std::stoi(word());
  }
  const int nkeys = std::stoi(word());
  req.info = MPI_INFO_NULL;
  if (nkeys > 0) {
    check(MPI_Info_create(&req.info), "MPI_Info_create");
    for (int i = 0; i < nkeys; ++i) {
      const std::string key = word(), value = word();
      MPI_Info_set(req.info, key.c_str(), value.c_str());
    }
  }
}

void Runtime::expand(const SpawnRequest& request) {
  ensure_init();
  require_active("blacs_dyn_expand");
  const MPI_Comm w = priv();
  const int r = rank(), n = size();
  PhaseTrace trace(r == 0);
  const double timeout = join_timeout_seconds();
  WatchdogScope watch(dog_);
  dog_.arm(who(), "expansion: checks", timeout, "a process of the world died or hangs");
  std::optional<Error> err;
  // Like nnew of MPI_Comm_spawn, the number of groups and of processes must agree
  // everywhere; everything else is read on rank 0.
  int total = request.nnew, ngroups = 1;
  if (!request.groups.empty()) {
    ngroups = static_cast<int>(request.groups.size());
    total = 0;
    for (const auto& g : request.groups) total += g.count;
  }
  int nn[4] = {total, -total, ngroups, -ngroups};
  check(MPI_Allreduce(MPI_IN_PLACE, nn, 4, MPI_INT, MPI_MAX, w), "MPI_Allreduce (nnew)");
  if (!request.invalid.empty())
    err = Error(BLACS_DYN_ERR_ARG, request.invalid + " (on rank " + std::to_string(r) + ")");
  else if (nn[0] != -nn[1])
    err = Error(BLACS_DYN_ERR_ARG, "nnew differs across ranks (" + std::to_string(-nn[1]) + " .. " +
                                  std::to_string(nn[0]) + ")");
  else if (nn[2] != -nn[3])
    err = Error(BLACS_DYN_ERR_ARG, "the number of hosts differs across ranks (" +
                                  std::to_string(-nn[3]) + " .. " + std::to_string(nn[2]) + ")");
  if (r == 0 && !err) {
    try {
      if (!blacs_interposed_)
        throw Error(BLACS_DYN_ERR_STATE,
                    "blacs-dyn's BLACS entry points are not the ones in use: link "
                    "libmalleable_blacs_dyn ahead of ScaLAPACK (or LD_PRELOAD it)");
      if (request.groups.empty() && request.nnew < 1)
        throw Error(BLACS_DYN_ERR_ARG, "nnew must be >= 1, got " + std::to_string(request.nnew));
      for (std::size_t i = 0; i < request.groups.size(); ++i) {
        const auto& g = request.groups[i];
        if (g.count < 1)
          throw Error(BLACS_DYN_ERR_ARG, "counts[" + std::to_string(i) + "] must be >= 1, got " +
                                            std::to_string(g.count));
        if (g.host.empty() || g.host.find_first_of(", \t\n") != std::string::npos)
          throw Error(BLACS_DYN_ERR_ARG, "hosts[" + std::to_string(i) + "] = '" + g.host +
                                            "' is not one host name");
      }
      if (const std::string& why = spawn_unsupported_reason(); !why.empty())
        throw Error(BLACS_DYN_ERR_UNSUPPORTED, why);
      check_executable(request.command, request.wdir.empty() ? info_get(request.info, "wdir") : request.wdir);
      check_capacity(stack_->alive(), total);
    } catch (const Error& e) {
      err = e;
    }
  }
  agree(w, err);
  SpawnRequest req = request;
  share_request(req, w);
  if (req.groups.empty()) req.groups.push_back(GroupRequest{req.hosts, total});
  const int k = static_cast<int>(req.groups.size());
  trace.mark("checks");

  // Group i is spawned by world rank i % n: spawns of different nodes run at the same
  // time (rank 0 alone would start them one after the other).
  const int level = stack_->depth();
  std::vector<int> spawner(static_cast<std::size_t>(k));
  std::vector<ProcId> first(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    spawner[static_cast<std::size_t>(i)] = i % n;
    first[static_cast<std::size_t>(i)] =
        i == 0 ? stack_->nprocs_started() : first[static_cast<std::size_t>(i - 1)] + req.groups[static_cast<std::size_t>(i - 1)].count;
  }
  std::vector<MPI_Comm> links(static_cast<std::size_t>(k), MPI_COMM_NULL);
  // Ranks that spawn nothing wait for the spawners in agree(): the spawners' own
  // deadlines (spawn, then check-in) come first.
  const std::string wait_spawners = "expansion to level " + std::to_string(level) +
                                    ": waiting for the spawning rank(s) (MPI_Comm_spawn and check-in)";
  dog_.phase(wait_spawners, 2 * timeout + 20, "a spawning rank died or hangs");
  for (int i = r; i < k && !err; i += n) {
    SpawnRequest one = req;
    one.nnew = req.groups[static_cast<std::size_t>(i)].count;
    one.hosts = req.groups[static_cast<std::size_t>(i)].host;
    one.per_host = !request.groups.empty();
    try {
      links[static_cast<std::size_t>(i)] = spawn_and_handshake(one, level, first[static_cast<std::size_t>(i)]);
    } catch (const Error& e) {
      err = e;
    }
  }
  if (r != 0 && req.info != MPI_INFO_NULL) MPI_Info_free(&req.info);
  trace.mark("spawn + check-in");
  dog_.phase(wait_spawners, 2 * timeout + 20, "a spawning rank died or hangs");
  try {
    agree(w, err);
  } catch (const Error& e) {
    // Every rank remembers an MPI that cannot spawn (the same message everywhere).
    if (e.code() == BLACS_DYN_ERR_UNSUPPORTED) spawn_unsupported_ = e.what();
    // Another spawn failed: the groups that did start are sent away.
    for (int i = r; i < k; i += n) {
      auto& l = links[static_cast<std::size_t>(i)];
      if (l == MPI_COMM_NULL) continue;
      const int abort_msg[4] = {0, level, 0, 0};
      for (int m = 0; m < req.groups[static_cast<std::size_t>(i)].count; ++m)
        MPI_Send(abort_msg, 4, MPI_INT, m, kTagGo, l);
      MPI_Comm_free(&l);
    }
    throw;
  }
  trace.mark("agree");

  LevelStack next = *stack_;
  std::vector<int> counts;
  std::vector<std::string> hosts;
  for (const auto& g : req.groups) {
    counts.push_back(g.count);
    // a group spread over a host list is pinned to no single node
    hosts.push_back(g.host.find(',') == std::string::npos ? g.host : std::string());
  }
  const std::vector<int> ids = next.push_expansion(counts, hosts);
  std::vector<int> first_rank;
  for (int id : ids) first_rank.push_back(next.rank_at(next.group(id).first, next.depth() - 1));
  const auto enc = next.encode();
  for (int i = r; i < k; i += n) {
    std::vector<int> go = {1, level, k, i};
    go.insert(go.end(), spawner.begin(), spawner.end());
    go.insert(go.end(), enc.begin(), enc.end());
    for (int m = 0; m < req.groups[static_cast<std::size_t>(i)].count; ++m)
      check(MPI_Send(go.data(), static_cast<int>(go.size()), MPI_INT, m, kTagGo,
                     links[static_cast<std::size_t>(i)]),
            "MPI_Send (go)");
  }
  trace.mark("go");
  dog_.phase("expansion to level " + std::to_string(level) + ": merge of the newcomers into the world", timeout,
             "a process of the world or a newcomer died or hangs");
  const MPI_Comm merged = merge_groups(w, spawner, -1, links, first_rank);
  trace.mark("merges + hand-over");

  LevelComms lc{merged, true, MPI_COMM_NULL};
  check(MPI_Comm_dup(merged, &lc.priv), "MPI_Comm_dup");
  trace.mark("dup");
  MPI_Comm_set_errhandler(lc.priv, MPI_ERRORS_RETURN);
  comms_.push_back(lc);
  stack_ = std::move(next);
  if (r == 0)
    for (int i = 0; i < k; ++i) group_links_[ids[static_cast<std::size_t>(i)]] = links[static_cast<std::size_t>(i)];
  dynamic_ = true;
  is_new_ = false;
  exited_since_change_ = false;
  record_hosts(gather_processor_names(lc.priv));
  trace.mark("hosts");
  blacs_sync_world(merged);
}

bool Runtime::expand_schema(const char* path, bool missing_ok) {
  ensure_init();
  require_active("blacs_dyn_expand_schema");
  const MPI_Comm w = priv();
  const int r = rank();
  std::optional<Error> err;
  SpawnRequest req;
  int state[2] = {0, 0};  // [0] 1 = file missing and that is fine; [1] nnew
  if (r == 0) {
    const std::string file = schema_path(path, std::getenv("BLACS_SETUP_FILE"));
    std::ifstream in(file);
    if (!in) {
      if (missing_ok) state[0] = 1;
      else err = Error(BLACS_DYN_ERR_SCHEMA, "cannot read schema file '" + file + "': " + std::strerror(errno));
    } else {
      try {
        std::stringstream ss;
        ss << in.rdbuf();
        const Schema s = parse_schema(ss.str(), file);
        req.command = s.executable;
        req.args = s.args;
        req.nnew = s.add;
        req.wdir = s.wdir;
        for (std::size_t i = 0; i < s.hosts.size(); ++i) req.hosts += (i ? "," : "") + s.hosts[i];
        state[1] = s.add;
      } catch (const Error& e) {
        err = e;
      }
    }
  }
  agree(w, err);
  check(MPI_Bcast(state, 2, MPI_INT, 0, w), "MPI_Bcast (schema)");
  if (state[0]) return false;
  req.nnew = state[1];
  expand(req);
  return true;
}

void Runtime::shrink(const ShrinkPlan& plan) {
  const MPI_Comm w = priv();
  const int old_n = size();
  const int top = stack_->depth() - 1;
  std::vector<int> new_rank(static_cast<std::size_t>(old_n), -1);
  for (std::size_t i = 0; i < plan.new_members.size(); ++i)
    new_rank[static_cast<std::size_t>(stack_->rank_at(plan.new_members[i], top))] = static_cast<int>(i);
  if (hook_) {
    std::optional<Error> err;
    const int rc = hook_(world(), new_rank.data(), old_n, static_cast<int>(plan.new_members.size()),
                         hook_user_);
    if (rc != 0)
      err = Error(BLACS_DYN_ERR_STATE, "the shrink hook returned " + std::to_string(rc) + " on rank " +
                                      std::to_string(rank()) + "; the world is unchanged");
    agree(w, err);
  }
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
  // Groups that leave as a whole disconnect from rank 0, the only process their spawn
  // link joins them to; members parked earlier are woken to do the same (§3.3.5: the
  // processes no longer part of the application are terminated).
  if (me_ == 0) {
    if (!plan.groups_exiting.empty())
      dog_.phase("shrink: disconnecting the spawn group(s) that exit", join_timeout_seconds(),
                 "a process of an exiting group died or hangs");
    for (ProcId q : plan.wake_to_exit) {
      const int g = stack_->group_of(q);
      const auto members = stack_->group_members(g);
      const int idx = static_cast<int>(std::find(members.begin(), members.end(), q) - members.begin());
      check(MPI_Send(&kReleaseExit, 1, MPI_INT, idx, kTagRelease, group_links_.at(g)),
            "MPI_Send (release)");
    }
    for (int g : plan.groups_exiting) {
      check(MPI_Comm_disconnect(&group_links_.at(g)), "MPI_Comm_disconnect (spawn link)");
      group_links_.erase(g);
    }
  }
  if (d == Departure::Exit)
    check(MPI_Comm_disconnect(&link_), "MPI_Comm_disconnect (spawn link)");

  if (plan.pop_to >= 0) {
    for (int l = stack_->depth() - 1; l > plan.pop_to; --l) {
      auto& c = comms_[static_cast<std::size_t>(l)];
      if (c.priv != MPI_COMM_NULL) MPI_Comm_free(&c.priv);
      if (c.owned && c.world != MPI_COMM_NULL) MPI_Comm_free(&c.world);
    }
    comms_.resize(static_cast<std::size_t>(plan.pop_to) + 1);
  } else {
    comms_.push_back(next);
  }
  stack_->apply(plan);
  dynamic_ = true;
  departure_ = d;
  if (d == Departure::Stay) {
    exited_since_change_ = false;
    blacs_sync_world(world());
  }
}

namespace {
void agree_plan(MPI_Comm w, std::optional<Error>& err, const ShrinkPlan& plan) {
  // Parked processes wait for the release sent from our MPI_Finalize; if the program's
  // MPI_Finalize is not ours they would wait forever.
  if (!err && !plan.park_now.empty() && !finalize_interposed())
    err = Error(BLACS_DYN_ERR_STATE,
                "this shrink would park processes, but MPI_Finalize is not blacs-dyn's (link "
                "libmalleable_blacs_dyn ahead of MPI): they could never be released");
  long long fp[2] = {-1, -1};
  if (!err) {
    fp[0] = static_cast<long long>(fingerprint(plan));
    fp[1] = -fp[0];
  } else {
    fp[0] = LLONG_MAX;
    fp[1] = LLONG_MAX;
  }
  check(MPI_Allreduce(MPI_IN_PLACE, fp, 2, MPI_LONG_LONG, MPI_MAX, w), "MPI_Allreduce (plan)");
  if (!err && fp[0] != LLONG_MAX && fp[0] != -fp[1])
    err = Error(BLACS_DYN_ERR_ARG, "the shrink arguments differ across ranks");
  agree(w, err);
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

void Runtime::record_hosts(const std::vector<std::string>& by_rank) {
  const auto& members = stack_->top().members;
  for (std::size_t r = 0; r < by_rank.size() && r < members.size(); ++r) stack_->set_host(members[r], by_rank[r]);
}

std::vector<std::string> Runtime::gather_hosts() {
  ensure_init();
  require_active("blacs_dyn_hosts");
  auto names = gather_processor_names(priv());
  record_hosts(names);
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
  finalized_ = true;
  PMPI_Finalize();
  dog_.disarm();
  trace.mark("leaving: MPI_Finalize");
  std::fflush(nullptr);
  std::exit(0);
}

// A parked process waits for rank 0's release with a posted receive tested twenty
// times a second and nanosleep in between: Open MPI's blocking calls would busy-poll a
// core for the rest of the job.
void Runtime::park() {
  const bool original = stack_->group_of(me_) == 0;
  const MPI_Comm chan = original ? comms_[0].priv : link_;
  int cmd = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  check(MPI_Irecv(&cmd, 1, MPI_INT, 0, kTagRelease, chan, &req), "MPI_Irecv (park)");
  int flag = 0;
  while (true) {
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) break;
    sleep_for(50000000L);
  }
  if (link_ != MPI_COMM_NULL) MPI_Comm_disconnect(&link_);
  (void)cmd;  // kReleaseExit and kReleaseFinalize end the same way here: the difference
              // is on rank 0's side (exit: now, alone; finalize: at the end, with all)
  exit_process();
}

void Runtime::leave() {
  if (departure_ == Departure::Exit) exit_process();
  if (departure_ == Departure::Park) park();
  throw Error(BLACS_DYN_ERR_STATE, "blacs_dyn_leave: this process is still in the world (no shrink dropped it)");
}

void Runtime::share_state(void* buf, std::size_t* len, std::size_t cap) {
  ensure_init();
  require_active("blacs_dyn_share_state");
  const MPI_Comm w = priv();
  const int r = rank();
  std::optional<Error> err;
  unsigned long long n = 0;
  if (r == 0) {
    if (!len) err = Error(BLACS_DYN_ERR_ARG, "len is NULL on rank 0");
    else n = *len;
    if (!err && n > 0 && !buf) err = Error(BLACS_DYN_ERR_ARG, "buf is NULL on rank 0 with len " + std::to_string(n));
  }
  check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, w), "MPI_Bcast (state length)");
  if (r != 0 && !err) {
    if (!len) err = Error(BLACS_DYN_ERR_ARG, "len is NULL on rank " + std::to_string(r));
    else if (n > cap)
      err = Error(BLACS_DYN_ERR_ARG, "state of " + std::to_string(n) + " bytes exceeds cap " +
                                    std::to_string(cap) + " on rank " + std::to_string(r));
    else if (n > 0 && !buf) err = Error(BLACS_DYN_ERR_ARG, "buf is NULL on rank " + std::to_string(r));
  }
  agree(w, err);
  auto* p = static_cast<char*>(buf);
  for (unsigned long long off = 0; off < n;) {
    const int chunk = static_cast<int>(std::min<unsigned long long>(n - off, 1ull << 30));
    check(MPI_Bcast(p + off, chunk, MPI_BYTE, 0, w), "MPI_Bcast (state)");
    off += static_cast<unsigned long long>(chunk);
  }
  if (r != 0) *len = static_cast<std::size_t>(n);
}

void Runtime::note_grid(MPI_Comm comm, int nprow, int npcol) {
  if (!initialized_ || departure_ != Departure::Stay || comms_.empty()) return;
  if (comm == world()) stack_->set_grid(stack_->depth() - 1, nprow, npcol);
}

// The job's end: parked processes wait in park() for rank 0; spawn links are
// disconnected pairwise (rank 0 with each live group, in level order) so every group
// finalizes its own MPI_COMM_WORLD together with the rest.
void Runtime::before_finalize() {
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
    for (ProcId p = 0; p < stack_->nprocs_started(); ++p) {
      if (stack_->state(p) != ProcState::Parked) continue;
      const int g = stack_->group_of(p);
      if (g == 0) {
        MPI_Send(&kReleaseFinalize, 1, MPI_INT, p, kTagRelease, comms_[0].priv);
      } else {
        const auto members = stack_->group_members(g);
        const int idx = static_cast<int>(std::find(members.begin(), members.end(), p) - members.begin());
        MPI_Send(&kReleaseFinalize, 1, MPI_INT, idx, kTagRelease, group_links_.at(g));
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
