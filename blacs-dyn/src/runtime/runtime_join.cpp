// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the job's side (docs/reference/blacs-dyn.md, "Growing by joining"):
// its directory and heartbeat at start, the launches it joins (looked for in its
// directory, checked, connected to one by one from world rank 0 over MPI_COMM_SELF,
// authenticated by their hellos, then prepared, acknowledged and merged into one level,
// each launch one group tied to rank 0 by its connection as a spawned group is by its
// spawn link), and the refusals; across expansions, rank 0's JoinGuard remembers the
// launches and peers that failed a hand-shake and pauses joining after too many. The
// joining launch's side is runtime_joiner.cpp.
#include "runtime/join.hpp"

#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "malleable/blacs_dyn/error.hpp"
#include "malleable/blacs_dyn/mpi_flavour.hpp"
#include "platform/blacs_glue.hpp"
#include "runtime/join_handshake.hpp"
#include "malleable_internal/collective.hpp"

namespace blacs_dyn {

using namespace detail;

namespace {

// Seconds a waiting launch may go without touching its request before it counts as dead.
constexpr double kStaleAfter = 5.0;

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t end = std::min(s.find(',', at), s.size());
    if (end > at) out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

}  // namespace

bool Join::join_can_order() const {
  return read_join_config().agent && rt_.join_.dir && rt_.join_.unsupported.empty();
}

// The job's side at MPI_Init: world rank 0 makes the directory ready (secret, record),
// checks the MPI opens ports, and starts the heartbeat joined launches watch. Then the
// start's other launches, if any, join (they are no newcomers).
void Join::start_joinable() {
  const JoinConfig jc = read_join_config();
  rt_.join_.dir.emplace(*jc.job_dir);
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) {
    try {
      rt_.join_.dir->prepare();
      char port[MPI_MAX_PORT_NAME] = {0};
      MPI_Errhandler keep;
      MPI_Comm_get_errhandler(MPI_COMM_WORLD, &keep);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
      const int rc = MPI_Open_port(MPI_INFO_NULL, port);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, keep);
      MPI_Errhandler_free(&keep);
      if (rc != MPI_SUCCESS) {
        // (an error stack: its last line says why)
        const std::string text = mpi_error_text(rc);
        const std::size_t nl = text.find_last_of('\n', text.size() > 1 ? text.size() - 2 : 0);
        throw Error(BLACS_DYN_ERR_JOIN, "this MPI (" + short_library_name(library_version()) +
                                            ") opens no port: MPI_Open_port fails with \"" +
                                            text.substr(nl == std::string::npos ? 0 : nl + 1) + "\"");
      }
      MPI_Close_port(port);
      rt_.join_.job.incarnation = jc.incarnation && join::valid_launch_id(*jc.incarnation) ? *jc.incarnation
                                                                                       : join::random_hex(8);
      rt_.join_.job.program = join::program_path();
      rt_.join_.job.host = host_name();
      rt_.join_.job.uid = ::geteuid();
      rt_.join_.job.pid = ::getpid();
      rt_.join_.dir->write_job(rt_.join_.job);
      rt_.join_.dir->touch_alive();
      const join::JobDir dir = *rt_.join_.dir;
      rt_.join_.ticker.start(1.0, [dir] {
        dir.touch_alive();
        return true;
      });
    } catch (const Error& e) {
      rt_.join_.unsupported = "the job cannot be joined: " + std::string(e.what());
      std::fprintf(stderr, "blacs-dyn: %s\n", rt_.join_.unsupported.c_str());
    }
  }
  if (!jc.start) return;
  join::JoinWant want;
  want.at_start = true;
  for (const std::string& id : split_list(*jc.start)) want.launches.push_back(id);
  try {
    expand_join(want, {}, join_timeout_seconds());
    rt_.is_new_ = false;
  } catch (const Error& e) {
    if (r == 0)
      std::fprintf(stderr, "blacs-dyn: the launches of the job's start (%s) did not join: %s; the job runs on its "
                   "first launch alone\n", jc.start->c_str(), e.what());
  }
}

void Join::refuse_file(const std::string& launch, const std::string& why) {
  std::fprintf(stderr, "blacs-dyn: refused %s\n", why.c_str());
  std::fflush(stderr);
  try {
    rt_.join_.dir->answer(launch, "refused: " + why);
    rt_.join_.dir->remove_request(launch);
    rt_.join_.dir->log("refused " + launch + ": " + why);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blacs-dyn: cannot record the refusal of launch %s: %s\n", launch.c_str(), e.what());
  }
}

// Rank 0: the next step. Reads the requests (refusing those that fail the checks made
// without connecting) until a launch the want takes is there to connect to, the want is
// met (Done), or the deadline passes (Fail); with `wait` false, one look.
// Rank 0: one look at the requests in the job's directory, each refused that fails the
// checks made without connecting (`bad`: the unreadable ones already refused).
void Join::read_requests(join::JoinLobby& lobby, std::vector<std::string>& bad) {
  for (const auto& s : rt_.join_.dir->scan()) {
    if (!s.req) {
      if (std::find(bad.begin(), bad.end(), s.launch) == bad.end()) {
        bad.push_back(s.launch);
        refuse_file(s.launch, "launch " + s.launch + ": " + s.error);
      }
      continue;
    }
    // (a launch id or peer that failed a hand-shake before: refused without connecting)
    if (!lobby.known(s.launch))
      if (const std::string why = rt_.join_.guard.refuse(*s.req, now()); !why.empty()) {
        lobby.barred(*s.req, why);
        refuse_file(s.launch, why);
        continue;
      }
    if (const std::string why = lobby.observe(*s.req, s.file); !why.empty()) refuse_file(s.launch, why);
  }
}

join::JoinStep Join::lead_step(join::JoinLobby& lobby, const JoinGrowing& g, const LevelStack& cur, double deadline,
                                  bool wait) {
  std::vector<std::string> bad;  // unreadable requests already refused
  for (;;) {
    read_requests(lobby, bad);
    join::JoinStep step;
    step.level = cur.depth();
    // (no new connection once the wait is over: a flood of launches costs at most the
    // wait and one hand-shake at each remap point; none while joining is paused)
    const bool paused = rt_.join_.guard.paused(now());
    if (const std::string id = lobby.next_to_connect(); !id.empty() && now() <= deadline && !paused) {
      const auto& q = lobby.request(id);
      step.kind = join::StepKind::Connect;
      step.launch = id;
      step.port = q.port;
      step.host = q.host;
      step.procs = q.procs;
      return step;
    }
    if (lobby.satisfied()) {
      if (g.merged.empty()) {
        step.reason = paused ? rt_.join_.guard.pause_reason(now()) : "no launch is waiting to join";
        return step;  // Fail
      }
      LevelStack next = cur;
      std::vector<int> procs;
      std::vector<std::string> hosts, ids;
      for (const auto& [q, link] : g.merged) {
        procs.push_back(q.procs);
        hosts.push_back(q.host);
        ids.push_back(q.launch);
      }
      next.push_joined(procs, hosts, ids);
      step.kind = join::StepKind::Done;
      step.stack = next.encode();
      return step;
    }
    if (!wait || now() > deadline || lobby.hopeless() || paused) {
      if (paused && !lobby.hopeless()) {
        step.reason = rt_.join_.guard.pause_reason(now());
        return step;  // Fail
      }
      for (const auto& id : lobby.missing())
        step.reason += (step.reason.empty() ? "" : "; ") +
                       (lobby.known(id) && !lobby.reason(id).empty()
                            ? lobby.reason(id)
                            : "launch " + id + " did not come within " + seconds_text(g.wait_s) + " s");
      if (step.reason.empty()) step.reason = "fewer launches than wanted came in time";
      return step;  // Fail
    }
    rt_.dog_.phase("expansion by joining: waiting for the launches", std::max(1.0, deadline - now()) + 30,
               "the job's directory cannot be read");
    sleep_for(20000000L);  // 20 ms: a launch waits at most that long to be seen
  }
}

// Rank 0, connected to a launch: the hand-shake, each of its waits bounded by a deadline
// from the connection that a silent or garbage peer cannot extend. Every process of the
// launch opens with a challenge (its nonce, nothing secret); rank 0 answers each with the
// job's proof (its own nonce, an HMAC under the secret); each process that verified it
// says hello under its own proof; the checks of the hello: these by the proof deadline
// (BLACS_DYN_JOIN_PROOF_TIMEOUT, a real launch answers in well under a second), so that
// a silent peer costs the job seconds, not the join timeout. Then the prepare and every
// process's acknowledgement, by the join timeout. "" when it may merge, else why not
// (then it was told, if all its processes answered, and the lobby has it refused).
std::string Join::verdict(join::JoinLobby& lobby, const join::JoinStep& step, MPI_Comm inter, int groups,
                             double until) {
  const std::string& id = step.launch;
  const double timeout = join_timeout_seconds();
  const double start = now();
  const double end = std::min(start + timeout, until);
  const double proof_end = std::min(start + rt_.join_.proof_timeout, end);
  const std::string said_by = " (pid " + std::to_string(lobby.request(id).pid) + " on " + lobby.request(id).host +
                              ", uid " + std::to_string(lobby.request(id).uid) + " claimed)";
  const std::string in_time = seconds_text(std::max(0.0, end - start));
  const std::string proof_in = seconds_text(std::max(0.0, proof_end - start)) + " s of the connection (" +
                               (proof_end < end ? "the proof deadline, BLACS_DYN_JOIN_PROOF_TIMEOUT"
                                                : "the expansion's deadline, BLACS_DYN_JOIN_TIMEOUT") + ")";
  lobby.connected(id);
  int remote = 0;
  MPI_Comm_remote_size(inter, &remote);
  std::vector<bool> came;
  std::string why;
  std::vector<join::ProofNonces> nonces(static_cast<std::size_t>(std::max(remote, 0)));
  bool all_came = false;
  if (remote != step.procs)
    why = "launch " + id + said_by + ": " + std::to_string(remote) + " processes connected, its request said " +
          std::to_string(step.procs);
  else
    why = read_challenges(inter, remote, id, "launch " + id + said_by, proof_end, proof_in, nonces, came, all_came);
  if (why.empty())
    why = send_proofs(inter, "launch " + id + said_by, rt_.join_.secret, id, rt_.join_.job.incarnation, nonces, proof_end);
  if (why.empty()) why = read_hellos(lobby, id, inter, "launch " + id + said_by, rt_.join_.secret, nonces, proof_end,
                                     proof_in, came, all_came);
  if (!why.empty()) {
    if (lobby.state(id) != join::LaunchState::Refused) lobby.refuse(id, why);
    if (all_came) {  // told only when every process answered (a dead one would block the send)
      const std::vector<char> m = join::encode(join::JoinAnswer{join::Answer::Refuse, why, 0, 0, 0, {}, "", ""});
      for (int i = 0; i < remote; ++i) send_bounded(m, i, kTagJoinAnswer, inter, std::min(5.0, std::max(0.5, end - now())));
    }
    return why;
  }
  lobby.authenticated(id);
  const std::vector<char> prep =
      join::encode(join::JoinAnswer{join::Answer::Prepare, "", step.level, groups, groups, {}, "", ""});
  for (int i = 0; i < remote && why.empty(); ++i)
    if (!send_bounded(prep, i, kTagJoinAnswer, inter, std::max(0.0, end - now())))
      why = "launch " + id + ", process " + std::to_string(i) + " did not take the prepare message";
  lobby.prepared(id);
  if (why.empty()) {
    gather_from(inter, remote, kTagJoinAck, end, came);
    if (std::find(came.begin(), came.end(), false) != came.end())
      why = "launch " + id + ": process(es) " + ranks_missing(came) + " did not acknowledge within " + in_time +
            " s of the connection (BLACS_DYN_JOIN_TIMEOUT): killed, crashed or hung during the join";
  }
  if (!why.empty()) {
    lobby.refuse(id, why);
    return why;
  }
  lobby.ready(id);
  return {};
}

// Rank 0, after MPI_Comm_connect to a launch (rc, inter): its verdict on the launch, an
// Accept or a Refuse with the reason (then logged, and the launch's request removed).
join::JoinStep Join::judge_launch(const JoinGrowing& g, const join::JoinStep& step, join::JoinLobby& lobby,
                                     MPI_Comm inter, int rc) {
  const double timeout = join_timeout_seconds();
  join::JoinStep said;
  said.kind = join::StepKind::Refuse;
  rt_.dog_.phase("expansion by joining: hand-shake with launch " + step.launch, 3 * timeout + 30,
             "launch " + step.launch + " died or hangs");
  if (rc != MPI_SUCCESS || inter == MPI_COMM_NULL) {
    said.reason = "launch " + step.launch + ": MPI_Comm_connect to its port failed: " + mpi_error_text(rc) +
                  " (do the job's mpiexec and the launch's use the ompi-server of " + rt_.join_.dir->path() +
                  "/server.uri?)";
    lobby.refuse(step.launch, said.reason);
  } else {
    said.reason = verdict(lobby, step, inter, static_cast<int>(g.merged.size()), g.until);
  }
  if (said.reason.empty()) said.kind = join::StepKind::Accept;
  else {
    std::fprintf(stderr, "blacs-dyn: refused %s\n", said.reason.c_str());
    rt_.join_.dir->log("refused " + step.launch + ": " + said.reason);
    rt_.join_.dir->remove_request(step.launch);
    // (its id and peer are barred; one failure too many pauses joining, said once)
    if (const std::string pause = rt_.join_.guard.failed(lobby.request(step.launch), now()); !pause.empty()) {
      std::fprintf(stderr, "blacs-dyn: %s\n", pause.c_str());
      rt_.join_.dir->log(pause);
    }
    std::fflush(stderr);
  }
  return said;
}

// Every process of the world grown so far, the launch accepted: the commit, the merge
// (g becomes the world with the launch) and rank 0's own link with the launch.
void Join::merge_launch(JoinGrowing& g, const join::JoinStep& step, join::JoinLobby* lobby, MPI_Comm& inter) {
  int r = 0, n = 0;
  MPI_Comm_rank(g.m, &r);
  MPI_Comm_size(g.m, &n);
  rt_.dog_.phase("expansion by joining: merge of launch " + step.launch, join_timeout_seconds(),
             "a process of the world or of launch " + step.launch + " died or hangs");
  if (r == 0) {
    const std::vector<char> commit = join::encode(join::JoinAnswer{join::Answer::Commit, "", step.level, 0, 0, {}, "", ""});
    for (int i = 0; i < step.procs; ++i)
      check(MPI_Send(commit.data(), static_cast<int>(commit.size()), MPI_BYTE, i, kTagJoinAnswer, inter),
            "MPI_Send (join commit)");
  }
  MPI_Comm m2 = MPI_COMM_NULL, link = MPI_COMM_NULL;
  check(MPI_Intercomm_merge(inter, 0, &m2), "MPI_Intercomm_merge (world and joining launch)");
  MPI_Comm_set_errhandler(m2, MPI_ERRORS_RETURN);
  // Rank 0's own link with the launch: release messages and the final disconnect go
  // through it, as through a spawned group's link.
  if (r == 0)
    check(MPI_Intercomm_create(MPI_COMM_SELF, 0, m2, n, kTagHandover, &link),
          "MPI_Intercomm_create (rank 0's link with a joined launch)");
  MPI_Comm_free(&inter);
  if (g.owned) MPI_Comm_free(&g.m);
  g.m = m2;
  g.owned = true;
  if (r == 0) {
    MPI_Comm_set_errhandler(link, MPI_ERRORS_RETURN);
    g.merged.emplace_back(lobby->request(step.launch), link);
    lobby->merged(step.launch);
    rt_.join_.guard.joined();
    rt_.join_.dir->log("joined " + step.launch + " (" + std::to_string(step.procs) + " processes on " + step.host +
                   ") at level " + std::to_string(step.level));
  }
}

// Every process of the world grown so far: a connect step. Returns whether the launch
// merged (g is then the world with it).
bool Join::connect_step(JoinGrowing& g, const join::JoinStep& step, join::JoinLobby* lobby, PhaseTrace& trace) {
  const double timeout = join_timeout_seconds();
  int r = 0;
  MPI_Comm_rank(g.m, &r);
  rt_.dog_.phase("expansion by joining: MPI_Comm_connect to launch " + step.launch + " (" + std::to_string(step.procs) +
                 " processes on " + step.host + ")",
             timeout + 10,
             "launch " + step.launch + " died between its last heartbeat and the connection, or the ompi-server "
             "of the job directory does not answer (MPI_Comm_connect cannot be interrupted)");
  MPI_Comm inter = MPI_COMM_NULL;
  trace.mark(("launch " + step.launch + " seen").c_str());
  const int rc = MPI_Comm_connect(step.port.c_str(), MPI_INFO_NULL, 0, g.m, &inter);
  if (inter != MPI_COMM_NULL) MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  trace.mark("MPI_Comm_connect");
  join::JoinStep said;
  said.kind = join::StepKind::Refuse;
  if (r == 0) said = judge_launch(g, step, *lobby, inter, rc);
  rt_.dog_.phase("expansion by joining: waiting for world rank 0 (verdict on launch " + step.launch + ")",
             3 * timeout + 30, "world rank 0 died or hangs");
  std::vector<char> b = r == 0 ? join::encode(said) : std::vector<char>{};
  malleable::collective::broadcast_bytes(g.m, 0, b, [](int c, const char* what) { check(c, what); });
  said = join::decode_join_step(b);
  trace.mark("hellos, checks, prepare + acks");
  if (said.kind != join::StepKind::Accept) {
    if (inter != MPI_COMM_NULL) MPI_Comm_free(&inter);
    return false;
  }
  merge_launch(g, step, lobby, inter);
  return true;
}

// The grown world becomes the new level, on every process of it (a process of a launch
// merged in this expansion finds its group by its launch's id).
void Join::install_joined(JoinGrowing& g, const join::JoinStep& done, PhaseTrace& trace) {
  LevelStack next = LevelStack::decode(done.stack);
  std::map<int, MPI_Comm> new_links;
  const int first_new = next.ngroups() - static_cast<int>(std::max<std::size_t>(g.merged.size(), 0));
  if (!g.launch.empty()) {
    int grank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &grank);
    for (int id = 1; id < next.ngroups(); ++id)
      if (next.group(id).launch == g.launch && next.group(id).level == done.level) rt_.me_ = next.group(id).first + grank;
    rt_.comms_.assign(static_cast<std::size_t>(done.level), LevelComms{});
    rt_.dog_.set_who("world rank ? (process " + std::to_string(rt_.me_) + ") of joined launch " + g.launch);
  } else {
    for (std::size_t i = 0; i < g.merged.size(); ++i)
      new_links[first_new + static_cast<int>(i)] = g.merged[i].second;
  }
  rt_.commit_level(g.m, std::move(next), std::move(new_links), trace, nullptr);
  if (!g.launch.empty()) rt_.link_ = g.link;
  g.merged.clear();
  g.owned = false;
}

void Join::join_steps(JoinGrowing& g, const LevelStack* cur, join::JoinLobby* lobby, double deadline, bool wait,
                         double patience, PhaseTrace& trace) {
  int r = 0;
  MPI_Comm_rank(g.m, &r);
  for (;;) {
    join::JoinStep step;
    if (r == 0) {
      try {
        step = lead_step(*lobby, g, *cur, deadline, wait);
      } catch (const std::exception& e) {
        step = join::JoinStep{};
        step.reason = e.what();
      }
    }
    rt_.dog_.phase("expansion by joining: waiting for world rank 0 (the next step)", patience,
               "world rank 0 died or hangs");
    std::vector<char> b = r == 0 ? join::encode(step) : std::vector<char>{};
    malleable::collective::broadcast_bytes(g.m, 0, b, [](int c, const char* what) { check(c, what); });
    try {
      step = join::decode_join_step(b);
    } catch (const malleable::wire::Error& e) {
      throw Error(BLACS_DYN_ERR_MPI, e.what());
    }
    if (step.kind == join::StepKind::Connect) {
      if (connect_step(g, step, lobby, trace)) trace.mark(("launch " + step.launch + " merged").c_str());
      continue;
    }
    if (step.kind == join::StepKind::Done) {
      install_joined(g, step, trace);
      return;
    }
    // Fail: the launches merged in this expansion leave, the world is as before.
    if (r == 0) {
      std::fprintf(stderr, "blacs-dyn: expansion by joining failed: %s; the world is unchanged\n", step.reason.c_str());
      rt_.join_.dir->log("expansion by joining failed: " + step.reason);
      for (auto& [q, link] : g.merged) MPI_Comm_free(&link);
      g.merged.clear();
    }
    if (g.owned) MPI_Comm_free(&g.m);
    if (!g.launch.empty()) {
      if (g.link != MPI_COMM_NULL) MPI_Comm_free(&g.link);
      rt_.join_.ticker.stop();
      int grank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &grank);
      if (grank == 0)
        std::fprintf(stderr, "blacs-dyn: launch %s leaves again: the expansion it joined failed: %s\n",
                     g.launch.c_str(), step.reason.c_str());
      std::fflush(nullptr);
      PMPI_Finalize();
      std::exit(3);
    }
    throw Error(BLACS_DYN_ERR_JOIN, step.reason);
  }
}

// Rank 0's checks of an expansion by joining, before anything is ordered or connected.
void Join::check_join(const join::JoinWant& want, const std::vector<JoinOrder>& orders) const {
  if (!rt_.join_.dir) throw Error(BLACS_DYN_ERR_JOIN, "the job cannot be joined: no job directory (BLACS_DYN_JOB_DIR)");
  if (!rt_.join_.unsupported.empty()) throw Error(BLACS_DYN_ERR_JOIN, rt_.join_.unsupported);
  if (!rt_.blacs_interposed_)
    throw Error(BLACS_DYN_ERR_STATE, "blacs-dyn's BLACS entry points are not the ones in use: link "
                                     "libmalleable_blacs_dyn ahead of ScaLAPACK (or LD_PRELOAD it)");
  if (!orders.empty() && !join_can_order())
    throw Error(BLACS_DYN_ERR_JOIN, "the job's launcher starts no launches (BLACS_DYN_JOIN_AGENT unset: start "
                                    "the job with malleable-run --job-dir DIR)");
  for (const JoinOrder& o : orders) {
    if (o.procs < 1) throw Error(BLACS_DYN_ERR_ARG, "a launch of " + std::to_string(o.procs) + " processes");
    if (!o.host.empty() && !join::valid_launch_id(o.host))
      throw Error(BLACS_DYN_ERR_ARG, "'" + o.host + "' is not one host name");
  }
  for (const auto& id : want.launches)
    if (!join::valid_launch_id(id)) throw Error(BLACS_DYN_ERR_ARG, "'" + id + "' is no launch id");
}

void Join::expand_join(join::JoinWant want, const std::vector<JoinOrder>& orders, double wait_s) {
  rt_.ensure_init();
  rt_.require_active("blacs_dyn_expand_join");
  const MPI_Comm w = rt_.priv();
  const int r = rt_.rank();
  const LevelStack cur = [&] {
    std::lock_guard<std::mutex> lk(rt_.stack_mutex_);
    return *rt_.stack_;
  }();
  PhaseTrace trace(r == 0);
  const double timeout = join_timeout_seconds();
  if (wait_s <= 0) wait_s = timeout;
  WatchdogScope watch(rt_.dog_);
  rt_.dog_.arm(rt_.who(), "expansion by joining: checks", timeout, "a process of the world died or hangs");
  std::optional<Error> err;
  std::optional<join::JoinLobby> lobby;
  std::vector<std::string> ordered;
  if (r == 0) {
    try {
      check_join(want, orders);
      rt_.join_.proof_timeout = join_proof_timeout_seconds();
      // (nothing ordered while paused: the launches would wait out the back-off)
      if (rt_.join_.guard.paused(now())) throw Error(BLACS_DYN_ERR_JOIN, rt_.join_.guard.pause_reason(now()));
      rt_.join_.secret = rt_.join_.dir->read_secret();
      for (const JoinOrder& o : orders) {
        const std::string id = "j" + rt_.join_.job.incarnation.substr(0, 8) + "-" + std::to_string(++rt_.join_.orders);
        rt_.join_.dir->order(id, o.host, o.procs);
        ordered.push_back(id);
      }
      if (!orders.empty()) want.launches = ordered;
      lobby.emplace(want, rt_.join_.job, join::JoinLimits{kStaleAfter, 4096});
    } catch (const Error& e) {
      err = e;
      for (const auto& id : ordered) rt_.join_.dir->cancel_order(id);
    }
  }
  agree(w, err);
  trace.mark("checks");
  JoinGrowing g;
  g.m = w;
  g.wait_s = wait_s;
  g.until = now() + wait_s + timeout;
  try {
    join_steps(g, r == 0 ? &cur : nullptr, lobby ? &*lobby : nullptr, now() + wait_s,
               want.count > 0 || !want.launches.empty(), wait_s + 4 * timeout + 60, trace);
  } catch (const Error&) {
    if (r == 0)
      for (const auto& id : ordered) rt_.join_.dir->cancel_order(id);
    throw;
  }
}

bool Join::join_supported() {
  rt_.ensure_init();
  rt_.require_active("blacs_dyn_join_supported");
  std::string why = rt_.join_.unsupported;
  if (!rt_.join_.dir && why.empty()) why = "the job cannot be joined: no job directory (BLACS_DYN_JOB_DIR)";
  std::vector<char> b(why.begin(), why.end());
  malleable::collective::broadcast_bytes(rt_.priv(), 0, b, [](int rc, const char* what) { check(rc, what); });
  rt_.join_.unsupported.assign(b.begin(), b.end());
  if (!rt_.join_.dir && rt_.join_.unsupported.empty()) rt_.join_.unsupported = "the job cannot be joined: no job directory here";
  return rt_.join_.unsupported.empty();
}

std::pair<int, int> Join::join_waiting() {
  rt_.ensure_init();
  std::pair<int, int> counts{0, 0};
  rt_.join_.waiting.clear();
  if (rt_.rank() != 0 || !rt_.join_.dir || !rt_.join_.unsupported.empty()) return counts;
  join::JoinLobby look({{}, 0, false}, rt_.join_.job, join::JoinLimits{kStaleAfter, 4096});
  for (const auto& s : rt_.join_.dir->scan()) {
    if (!s.req) {
      refuse_file(s.launch, "launch " + s.launch + ": " + s.error);
      continue;
    }
    if (const std::string why = rt_.join_.guard.refuse(*s.req, now()); !why.empty()) {
      refuse_file(s.launch, why);
      continue;
    }
    if (const std::string why = look.observe(*s.req, s.file); !why.empty()) {
      refuse_file(s.launch, why);
      continue;
    }
    if (look.known(s.launch)) {
      ++counts.first;
      counts.second += s.req->procs;
      rt_.join_.waiting.push_back(*s.req);
    }
  }
  // (while joining is paused the launches that passed stay waiting: none is offered)
  if (rt_.join_.guard.paused(now())) {
    rt_.join_.waiting.clear();
    counts = {0, 0};
  }
  return counts;
}

}  // namespace blacs_dyn
