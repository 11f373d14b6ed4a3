// SPDX-License-Identifier: BSD-3-Clause
// The strangers of growing by joining (tests/apps/join_impostors.sh): plain MPI programs,
// not linked with blacs-dyn, that speak the join's hand-shake as an attacker would.
//
//   join_impostor launch DIR ID MODE   a fake launch of the job in DIR: writes a request
//       that passes the checks made before connecting (this user's 0600 file, the job's
//       run and program, a heartbeat), accepts the job's connection, then, by MODE:
//       silent   says nothing;
//       garbage  sends bytes that are no message where the challenge belongs;
//       noproof  opens with a valid challenge and answers the job's proof with a hello
//                whose fields claim the job's uid and program, under a made-up proof;
//       again    says nothing, and once the job logged it dropped (DIR/join.log: the
//                launch's user can read it) prints after how long ("dropped N s after
//                the connection"), then the same process (pid, host) asks again as
//                ID-2 and waits: a connection is printed as the first one was, the job's
//                refusal without one ("refused without a connection: ...") ends it.
//       It prints what the job sent back and ends once the job dropped it (or after 120 s).
//   join_impostor job DIR OUT          a fake job: connects to the first launch waiting in
//       DIR/join (a real one), answers every challenge with a made-up proof, and writes
//       every byte it receives to OUT; prints one line per message ("message TAG KIND").
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/join_dir.hpp"
#include "protocol/join_protocol.hpp"
#include "runtime/runtime_detail.hpp"

namespace {

using namespace blacs_dyn;
using detail::kTagJoinAck;
using detail::kTagJoinAnswer;
using detail::kTagJoinChallenge;
using detail::kTagJoinHello;

double now() { return MPI_Wtime(); }

void send(MPI_Comm c, int dest, int tag, const std::vector<char>& m) {
  MPI_Send(m.data(), static_cast<int>(m.size()), MPI_BYTE, dest, tag, c);
}

// The next message from any remote rank, until `deadline`: false when none came.
bool next(MPI_Comm c, double deadline, std::vector<char>& bytes, MPI_Status& st) {
  for (int flag = 0;;) {
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, &st);
    if (flag) break;
    if (now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  bytes.resize(static_cast<std::size_t>(count));
  MPI_Recv(bytes.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, c, MPI_STATUS_IGNORE);
  return true;
}

std::string host() {
  char h[256] = {0};
  ::gethostname(h, sizeof h - 1);
  return h;
}

// Whether DIR/join.log has a line with `text`.
bool logged(const std::string& dir_path, const std::string& text) {
  std::ifstream in(dir_path + "/join.log");
  for (std::string l; std::getline(in, l);)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

// MPI_Bcast from rank 0 without spinning (a waiting rank sleeps: the job shares the cores).
void quiet_bcast(std::vector<char>& b) {
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Ibcast(b.data(), static_cast<int>(b.size()), MPI_CHAR, 0, MPI_COMM_WORLD, &q);
  for (int done = 0; !done;) {
    MPI_Test(&q, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Mode "again", once the job dropped launch `id`: the same process asks again as ID-2 and
// waits. Returns only if the job connects to it (which it must not).
MPI_Comm ask_again(const join::JobDir& dir, const join::JobRecord& job, const std::string& id, int rank, int size,
                   double accepted_at, join::Ticker& beat) {
  const std::string id2 = id + "-2";
  std::vector<char> port(MPI_MAX_PORT_NAME + 64, '\0');
  if (rank == 0) {
    for (const double until = now() + 120; !logged(dir.path(), "refused " + id + ": ");) {
      if (now() > until) {
        std::printf("impostor %s: the job did not drop it within 120 s\n", id.c_str());
        std::fflush(stdout);
        std::_Exit(2);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::printf("impostor %s, process 0: dropped %.2f s after the connection\n", id.c_str(), now() - accepted_at);
    char opened[MPI_MAX_PORT_NAME] = {0};
    if (MPI_Open_port(MPI_INFO_NULL, opened) != MPI_SUCCESS) std::_Exit(2);
    const std::string p = std::string(opened) + ":" + join::random_hex(16);
    std::copy(p.begin(), p.end(), port.begin());
    dir.write_request({id2, job.incarnation, p, host(), job.program, static_cast<unsigned>(::geteuid()),
                       static_cast<int>(::getpid()), size, false});
    std::printf("impostor %s, process 0: asks again as pid %d on %s\n", id2.c_str(), static_cast<int>(::getpid()),
                host().c_str());
    std::fflush(stdout);
    beat.start(0.2, [dir, id2] {
      if (const auto a = dir.read_answer(id2)) {
        std::printf("impostor %s, process 0: refused without a connection: %s\n", id2.c_str(), a->c_str());
        std::fflush(stdout);
        std::_Exit(0);  // (the job removed the request: it will not connect to it any more)
      }
      dir.touch_request(id2);
      return true;
    });
  }
  quiet_bcast(port);
  MPI_Comm c = MPI_COMM_NULL;
  if (MPI_Comm_accept(port.data(), MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c) != MPI_SUCCESS) std::_Exit(2);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  std::printf("impostor %s, process %d: accepted the job's connection (again)\n", id2.c_str(), rank);
  std::fflush(stdout);
  return c;
}

int fake_launch(const std::string& dir_path, const std::string& id, const std::string& mode) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  join::JobDir dir(dir_path);
  const join::JobRecord job = dir.read_job();
  char opened[MPI_MAX_PORT_NAME] = {0};
  std::vector<char> port(MPI_MAX_PORT_NAME + 64, '\0');
  join::Ticker beat;
  if (rank == 0) {
    if (MPI_Open_port(MPI_INFO_NULL, opened) != MPI_SUCCESS) return 2;
    const std::string p = std::string(opened) + ":" + join::random_hex(16);
    std::copy(p.begin(), p.end(), port.begin());
    dir.write_request({id, job.incarnation, p, host(), job.program, static_cast<unsigned>(::geteuid()),
                       static_cast<int>(::getpid()), size, false});
    beat.start(0.2, [dir, id] {
      dir.touch_request(id);
      return true;
    });
  }
  MPI_Bcast(port.data(), static_cast<int>(port.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_accept(port.data(), MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c);
  if (rank == 0) {
    beat.stop();
    dir.remove_request(id);
  }
  if (rc != MPI_SUCCESS) return 2;
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  const double accepted_at = now();
  std::printf("impostor %s, process %d: accepted the job's connection (%s)\n", id.c_str(), rank, mode.c_str());
  std::fflush(stdout);
  join::Ticker beat2;
  if (mode == "again") c = ask_again(dir, job, id, rank, size, accepted_at, beat2);  // (silent on both)
  if (mode == "garbage") {
    send(c, 0, kTagJoinChallenge, std::vector<char>{'G', 'A', 'R', 'B', 'A', 'G', 'E', '\n', 0, 1, 2, 3});
  } else if (mode == "noproof") {
    send(c, 0, kTagJoinChallenge, join::encode(join::JoinChallenge{id, join::random_hex(16), rank}));
  }
  const double deadline = now() + 120;
  std::vector<char> b;
  MPI_Status st;
  while (next(c, deadline, b, st)) {
    join::JoinAnswer a;
    try {
      a = join::decode_join_answer(b);
    } catch (const std::exception& e) {
      std::printf("impostor %s: undecodable message (tag %d): %s\n", id.c_str(), st.MPI_TAG, e.what());
      continue;
    }
    std::printf("impostor %s, process %d: answer kind %d%s%s\n", id.c_str(), rank, static_cast<int>(a.kind),
                a.reason.empty() ? "" : ": ", a.reason.c_str());
    std::fflush(stdout);
    if (a.kind == join::Answer::Proof && mode == "noproof") {
      // The job proved itself; this stranger cannot, and claims the job's uid and program.
      join::JoinHello h{id, job.incarnation, join::random_hex(32), job.program, host(), job.uid,
                        static_cast<int>(::getpid()), size, rank, false, false};
      send(c, 0, kTagJoinHello, join::encode(h));
      continue;
    }
    if (a.kind == join::Answer::Refuse || a.kind == join::Answer::Cancel) break;
  }
  std::printf("impostor %s, process %d: done\n", id.c_str(), rank);
  std::fflush(stdout);
  return 0;
}

int fake_job(const std::string& dir_path, const std::string& out_path) {
  join::JobDir dir(dir_path);
  std::optional<join::JoinRequest> req;
  for (const double until = now() + 60; !req && now() < until;) {
    for (const auto& s : dir.scan())
      if (s.req) req = s.req;
    if (!req) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!req) {
    std::fprintf(stderr, "impostor job: no launch waited in %s/join within 60 s\n", dir_path.c_str());
    return 2;
  }
  MPI_Comm c = MPI_COMM_NULL;
  if (MPI_Comm_connect(req->port.c_str(), MPI_INFO_NULL, 0, MPI_COMM_SELF, &c) != MPI_SUCCESS) return 2;
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  int remote = 0;
  MPI_Comm_remote_size(c, &remote);
  std::printf("impostor job: connected to launch %s (%d processes)\n", req->launch.c_str(), remote);
  std::fflush(stdout);
  std::ofstream out(out_path, std::ios::binary);
  int hellos = 0;
  std::vector<char> b;
  MPI_Status st;
  for (const double deadline = now() + 30; hellos < remote && next(c, deadline, b, st);) {
    out.write(b.data(), static_cast<std::streamsize>(b.size()));
    out.flush();
    std::string kind = "unknown";
    if (st.MPI_TAG == kTagJoinChallenge) {
      try {
        const join::JoinChallenge ch = join::decode_join_challenge(b);
        kind = "challenge";
        join::JoinAnswer proof{join::Answer::Proof, "", 0, 0, 0, {}, join::random_hex(16), join::random_hex(32)};
        send(c, st.MPI_SOURCE, kTagJoinAnswer, join::encode(proof));
        (void)ch;
      } catch (const std::exception&) {
      }
    } else if (st.MPI_TAG == kTagJoinHello) {
      ++hellos;
      try {
        const join::JoinHello h = join::decode_join_hello(b);
        kind = h.declined ? "hello-declined" : (h.mac.empty() ? "hello-without-proof" : "hello-with-proof");
      } catch (const std::exception&) {
        kind = "hello-undecodable";
      }
    } else if (st.MPI_TAG == kTagJoinAck) {
      kind = "ack";
    }
    std::printf("message %d %s %zu bytes\n", st.MPI_TAG, kind.c_str(), b.size());
    std::fflush(stdout);
  }
  std::printf("impostor job: done\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int rc = 2;
  try {
    const std::vector<std::string> a(argv + 1, argv + argc);
    if (a.size() == 4 && a[0] == "launch") rc = fake_launch(a[1], a[2], a[3]);
    else if (a.size() == 3 && a[0] == "job") rc = fake_job(a[1], a[2]);
    else std::fprintf(stderr, "usage: join_impostor launch DIR ID silent|garbage|noproof|again | job DIR OUT\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "join_impostor: %s\n", e.what());
  }
  std::fflush(nullptr);
  // (the peer may be gone or hostile: no disconnect, no finalize that could wait on it)
  std::_Exit(rc);
}
