// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, a joining launch's side (JoiningLaunch, joiner.hpp;
// docs/reference/blacs-dyn.md, "Growing by joining"): at MPI_Init, a process started with
// BLACS_DYN_JOIN_LAUNCH listens (its rank 0 opens a port and writes its request into the
// job's directory, with a heartbeat), accepts the job's connection with the whole launch,
// says hello (the job's secret, who it is), and, once prepared and committed, takes the
// newcomers' side of the merge. A refusal, a call-off, or no connection by the deadline
// ends the launch (status 3) with a line naming it; once joined, the launch's rank 0
// watches the job's heartbeat and ends the launch if the job is gone. The job's side is
// runtime_join.cpp.
#include "runtime/joiner.hpp"

#include "runtime/join.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_detail.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "malleable/blacs_dyn/error.hpp"
#include "platform/blacs_glue.hpp"
#include "runtime/join_handshake.hpp"
#include "malleable_internal/collective.hpp"

namespace blacs_dyn {

using namespace detail;

namespace {

// Seconds a launch that gave up waits for a connection already under way before it ends.
constexpr double kGrace = 5.0;

enum Phase : int { Waiting = 0, Withdrawn = 1, Connected = 2, GivingUp = 3 };

double lost_after(const JoinConfig& jc) {
  if (jc.job_lost) {
    char* end = nullptr;
    const double v = std::strtod(jc.job_lost->c_str(), &end);
    if (end && *end == '\0' && v > 0) return v;
  }
  return 60.0;
}

// A launch that cannot join ends here, every process of it (they all know why).
[[noreturn]] void end_launch(int rank, const std::string& id, const std::string& why, MPI_Comm* link) {
  if (rank == 0) std::fprintf(stderr, "blacs-dyn: launch %s does not join: %s\n", id.c_str(), why.c_str());
  std::fflush(nullptr);
  if (link && *link != MPI_COMM_NULL) MPI_Comm_free(link);
  PMPI_Finalize();
  std::exit(3);
}

// The fault hooks of the refusal tests (BLACS_DYN_FAULT): the launch's last process is
// SIGKILLed right after the connection or right after the prepare.
void fault_point(const Config& env, const char* point, int grank, int gsize) {
  if (env.fault != Text(point) || grank != gsize - 1) return;
  std::fprintf(stderr, "blacs-dyn: fault injection - joining process %d (pid %d) is killed: %s\n", grank,
               static_cast<int>(::getpid()), point);
  std::fflush(nullptr);
  std::raise(SIGKILL);
}

// The answer of the job's rank 0 (kTagJoinAnswer), or nullopt after `deadline`; bytes that
// are no answer throw join::Garbage (the peer that connected may be no job at all).
struct Garbage : std::runtime_error {
  using std::runtime_error::runtime_error;
};
std::optional<join::JoinAnswer> await_answer(MPI_Comm link, double deadline) {
  MPI_Status st;
  for (int flag = 0;;) {
    check(MPI_Iprobe(0, kTagJoinAnswer, link, &flag, &st), "joining: MPI_Iprobe");
    if (flag) break;
    if (now() > deadline) return std::nullopt;
    sleep_for(10000000L);
  }
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  std::vector<char> b(static_cast<std::size_t>(std::max(count, 0)));
  check(MPI_Recv(b.data(), count, MPI_BYTE, 0, kTagJoinAnswer, link, MPI_STATUS_IGNORE), "joining: MPI_Recv");
  try {
    return join::decode_join_answer(b);
  } catch (const malleable::wire::Error& e) {
    throw Garbage(e.what());
  }
}

// An MPI_Send to the job's rank 0 that gives up at `deadline` (a peer that takes nothing
// must not hold the launch): ends the launch then.
void send_bounded_or(MPI_Comm& link, const std::string& id, const std::vector<char>& m, int tag, double deadline) {
  if (send_bounded(m, 0, tag, link, std::max(0.0, deadline - now()))) return;
  int grank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &grank);
  end_launch(grank, id, "the job took no message of the hand-shake in time", &link);
}

// Rank 0 listens (a port) and asks to join (its request in the job's directory);
// everybody learns whether it could and which run of the job it joins. A launch that
// cannot ends here.
struct Listening {
  std::string port, incarnation;
  std::string opened;  // MPI_Open_port's own name (closed at the end)
};
Listening listen(const JoinConfig& jc, const join::JobDir& dir, const std::string& id, int grank, int gsize,
                 double timeout) {
  Listening l;
  std::string problem;
  if (grank == 0) {
    try {
      if (!join::valid_launch_id(id)) throw Error(BLACS_DYN_ERR_ARG, "'" + id + "' is no launch id");
      if (jc.for_run) l.incarnation = *jc.for_run;
      for (const double start = now(); l.incarnation.empty();) {
        try {
          l.incarnation = dir.read_job().incarnation;
        } catch (const Error&) {
          if (now() - start > timeout) throw;
          sleep_for(100000000L);
        }
      }
      char port[MPI_MAX_PORT_NAME] = {0};
      const int rc = MPI_Open_port(MPI_INFO_NULL, port);
      if (rc != MPI_SUCCESS)
        throw Error(BLACS_DYN_ERR_JOIN, "this MPI opens no port: MPI_Open_port fails with \"" + mpi_error_text(rc) + "\"");
      // Open MPI derives the port's name from the process's name and a generator seeded
      // with its pid, both public: another user could predict it and take its keys at the
      // rendezvous first. 128 random bits after it make the name (and so the keys)
      // unguessable; the name is only in the request, a 0600 file in the job's 0700 directory.
      l.opened = port;
      l.port = l.opened + ":" + join::random_hex(16);
      dir.write_request({id, l.incarnation, l.port, host_name(), join::program_path(),
                         static_cast<unsigned>(::geteuid()), static_cast<int>(::getpid()), gsize, jc.at_start});
    } catch (const std::exception& e) {
      problem = std::string(e.what()) + " (only the job's own user, with its directory " + dir.path() +
                " readable, can join it)";
    }
  }
  const auto checked = [](int rc, const char* what) { check(rc, what); };
  std::vector<char> said(problem.begin(), problem.end());
  said.push_back(problem.empty() ? '+' : '-');
  malleable::collective::broadcast_bytes(MPI_COMM_WORLD, 0, said, checked);
  if (said.back() == '-') end_launch(grank, id, std::string(said.begin(), said.end() - 1), nullptr);
  std::vector<char> inc(l.incarnation.begin(), l.incarnation.end());
  malleable::collective::broadcast_bytes(MPI_COMM_WORLD, 0, inc, checked);
  l.incarnation.assign(inc.begin(), inc.end());
  return l;
}

// Rank 0's heartbeat thread: touches the request, ends the launch on the job's refusal,
// withdraws it at the deadline (and ends it kGrace seconds later unless a connection was
// under way), then, joined, ends the launch when the job's own heartbeat stops.
void watch(join::Ticker& ticker, const join::JobDir& dir, const std::string& id,
           const std::shared_ptr<std::atomic<int>>& phase, double timeout, double lost) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  auto withdrawn_at = std::make_shared<std::chrono::steady_clock::time_point>();
  ticker.start(0.2, [dir, id, phase, deadline, withdrawn_at, lost, timeout] {
    const auto t = std::chrono::steady_clock::now();
    int p = phase->load();
    if (p == Waiting) {
      if (const auto a = dir.read_answer(id)) {
        std::fprintf(stderr, "blacs-dyn: launch %s does not join: %s\n", id.c_str(), a->c_str());
        std::fflush(nullptr);
        ::_exit(3);
      }
      dir.touch_request(id);
      if (t > deadline && phase->compare_exchange_strong(p, Withdrawn)) {
        dir.remove_request(id);
        *withdrawn_at = t;
      }
    } else if (p == Withdrawn && t - *withdrawn_at > std::chrono::duration<double>(kGrace)) {
      if (phase->compare_exchange_strong(p, GivingUp)) {
        std::fprintf(stderr,
                     "blacs-dyn: launch %s does not join: the job in %s did not take it within %.0f s "
                     "(BLACS_DYN_JOIN_TIMEOUT); ending\n",
                     id.c_str(), dir.path().c_str(), timeout);
        std::fflush(nullptr);
        ::_exit(3);
      }
    } else if (p == Connected && dir.alive_age() > lost) {
      std::fprintf(stderr,
                   "blacs-dyn: launch %s: the job in %s shows no sign of life for over %.0f s (its heartbeat %s/alive, "
                   "BLACS_DYN_JOB_LOST): ending this launch\n",
                   id.c_str(), dir.path().c_str(), lost, dir.path().c_str());
      std::fflush(nullptr);
      ::_exit(1);
    }
    return true;
  });
}

// The job's next answer by `deadline`; silence or garbage ends the launch, naming it.
join::JoinAnswer answer_or_end(MPI_Comm& link, const std::string& id, int grank, double deadline, const char* what) {
  try {
    if (auto a = await_answer(link, deadline)) return *a;
    end_launch(grank, id, std::string("no ") + what + " from the job within the join timeout (BLACS_DYN_JOIN_TIMEOUT)",
               &link);
  } catch (const Garbage& e) {
    end_launch(grank, id, std::string("the process that connected to this launch's port sent garbage in place of ") +
                              what + " (" + e.what() + "): not this launch's job; nothing was sent to it", &link);
  }
}

// The answer to this process's challenge: the job's proof, checked before anything else is
// sent. Proven: the hello under this process's own proof. Not: a decline (nothing derived
// from the secret), and the launch ends naming it.
void prove_and_say_hello(MPI_Comm& link, const std::string& id, const std::string& incarnation, bool at_start,
                         const std::string& secret, join::ProofNonces nonces, int grank, int gsize, double end) {
  const join::JoinAnswer answer = answer_or_end(link, id, grank, end, "proof");
  if (answer.kind == join::Answer::Refuse || answer.kind == join::Answer::Cancel)
    end_launch(grank, id, (answer.kind == join::Answer::Refuse ? "refused by the job: " : "sent away by the job: ") +
                              answer.reason.substr(0, 400), &link);
  if (answer.kind != join::Answer::Proof)
    end_launch(grank, id, "the process that connected to this launch's port answered its challenge with no proof: "
                          "not this launch's job; nothing was sent to it", &link);
  nonces.job = answer.nonce;
  join::JoinHello h{id, incarnation, "", join::program_path(), host_name(), static_cast<unsigned>(::geteuid()),
                    static_cast<int>(::getpid()), gsize, grank, at_start, false};
  const bool proven =
      !secret.empty() && join::same_secret(answer.mac, join::job_proof(secret, id, incarnation, grank, nonces));
  if (proven) h.mac = join::launch_proof(secret, h, nonces);
  else h = join::JoinHello{id, "", "", "", "", 0, 0, gsize, grank, false, true};  // a decline
  send_bounded_or(link, id, join::encode(h), kTagJoinHello, end);
  if (!proven)
    end_launch(grank, id, "the process that connected to this launch's port did not prove it holds the job's secret "
                          "(a wrong proof; is DIR/secret this job's?): not this launch's job; nothing secret was sent "
                          "to it", &link);
}

// The hand-shake over the new connection: this process's challenge (a nonce, nothing
// secret), the job's proof and the hello (prove_and_say_hello), the job's prepare, the
// acknowledgement, the commit. Ends the launch on a refusal, a call-off, silence, garbage
// or a wrong proof, naming it.
void handshake(MPI_Comm& link, const join::JobDir& dir, const std::string& id, const std::string& incarnation,
               bool at_start, int grank, int gsize, double timeout) {
  const Config env = read_config();
  std::string secret;
  try {
    secret = dir.read_secret();
  } catch (const Error& e) {
    if (grank == 0) std::fprintf(stderr, "blacs-dyn: launch %s: %s\n", id.c_str(), e.what());
  }
  if (env.fault == Text("wrong-secret")) secret = std::string(64, '0');
  const double end = now() + timeout;  // one deadline for the whole conversation
  const join::ProofNonces nonces{join::random_hex(16), ""};
  const std::vector<char> challenge = join::encode(join::JoinChallenge{id, nonces.launch, grank});
  check(MPI_Send(challenge.data(), static_cast<int>(challenge.size()), MPI_BYTE, 0, kTagJoinChallenge, link),
        "joining: MPI_Send (challenge)");
  prove_and_say_hello(link, id, incarnation, at_start, secret, nonces, grank, gsize, end);
  join::JoinAnswer answer = answer_or_end(link, id, grank, end, "answer to the hello");
  if (answer.kind != join::Answer::Prepare)
    end_launch(grank, id,
               (answer.kind == join::Answer::Refuse ? "refused by the job: " : "sent away by the job: ") +
                   answer.reason.substr(0, 400),
               &link);
  fault_point(env, "kill-joiner-before-ack", grank, gsize);
  send_bounded_or(link, id, join::encode(join::JoinAck{static_cast<int>(::getpid()), answer.level}), kTagJoinAck, end);
  // (the commit comes once every launch of the expansion is ready: a wait of its own)
  answer = answer_or_end(link, id, grank, now() + timeout, "commit");
  if (answer.kind != join::Answer::Commit)
    end_launch(grank, id, "sent away by the job: " + answer.reason.substr(0, 400), &link);
}

}  // namespace

void JoiningLaunch::run() {
  Runtime& rt = rt_;
  const JoinConfig jc = read_join_config();
  const double timeout = join_timeout_seconds();
  int grank = 0, gsize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &grank);
  MPI_Comm_size(MPI_COMM_WORLD, &gsize);
  const std::string id = *jc.launch;
  rt.join_.launch = id;
  rt.join_.dir.emplace(*jc.job_dir);
  const join::JobDir dir = *rt.join_.dir;
  WatchdogScope scope(rt.dog_);
  rt.dog_.arm("process " + std::to_string(grank) + " of joining launch " + id, "joining: request", timeout + kGrace + 30,
           "the job's directory cannot be read or written");
  // Errors come back to us while joining; the program gets MPI_COMM_WORLD's handler back.
  MPI_Errhandler keep = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &keep);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const Listening l = listen(jc, dir, id, grank, gsize, timeout);
  auto phase = std::make_shared<std::atomic<int>>(Waiting);
  if (grank == 0) watch(rt.join_.ticker, dir, id, phase, timeout, lost_after(jc));
  rt.dog_.phase("joining: waiting for the job to connect (MPI_Comm_accept)", timeout + kGrace + 30,
             "the job's connection stopped half-way (the job or a process of this launch died)");
  MPI_Comm link = MPI_COMM_NULL;
  const int rc = MPI_Comm_accept(l.port.c_str(), MPI_INFO_NULL, 0, MPI_COMM_WORLD, &link);
  if (grank == 0 && phase->exchange(Connected) == GivingUp)
    for (;;) ::pause();  // the heartbeat thread is ending the launch
  if (rc != MPI_SUCCESS) end_launch(grank, id, "MPI_Comm_accept failed: " + mpi_error_text(rc), nullptr);
  if (grank == 0) dir.remove_request(id);
  MPI_Comm_set_errhandler(link, MPI_ERRORS_RETURN);
  fault_point(read_config(), "kill-joiner-after-connect", grank, gsize);
  rt.dog_.phase("joining: hand-shake with the job", 2 * timeout + 30, "the job's world rank 0 died or hangs");
  handshake(link, dir, id, l.incarnation, jc.at_start, grank, gsize, timeout);

  // The newcomers' side of the merge: the grown world's ranks after the world's, and a
  // link with the job's world rank 0 (which releases and disconnects through it).
  MPI_Comm m2 = MPI_COMM_NULL, mine = MPI_COMM_NULL;
  check(MPI_Intercomm_merge(link, 1, &m2), "joining: MPI_Intercomm_merge");
  MPI_Comm_set_errhandler(m2, MPI_ERRORS_RETURN);
  check(MPI_Intercomm_create(MPI_COMM_WORLD, 0, m2, 0, kTagHandover, &mine), "joining: MPI_Intercomm_create (link)");
  MPI_Comm_set_errhandler(mine, MPI_ERRORS_RETURN);
  MPI_Comm_free(&link);
  if (grank == 0) MPI_Close_port(l.opened.c_str());
  JoinGrowing g;
  g.m = m2;
  g.owned = true;
  g.link = mine;
  g.launch = id;
  PhaseTrace trace(false);
  // Then as every process of the world grown so far: the next launches of this expansion,
  // and its end.
  Join(rt).join_steps(g, nullptr, nullptr, 0, false, 4 * timeout + 60, trace);
  rt.is_new_ = !jc.at_start;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, keep);
  MPI_Errhandler_free(&keep);
}

}  // namespace blacs_dyn
