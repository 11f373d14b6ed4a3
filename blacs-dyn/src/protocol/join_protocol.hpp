// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining (docs/reference/blacs-dyn.md, "Growing by joining"), its plain logic:
// the records of the job's directory (the job's own record, a waiting launch's request),
// the checks a request passes before the job connects to it and those a joining process
// passes over the new connection before the merge (the secret first), the messages of
// the hand-shake (codecs of malleable_internal/wire.hpp) and the job's bookkeeping of the
// launches it is joining (JoinLobby). Pure: no MPI, no file; runtime_join.cpp and
// join_dir.cpp move the bytes.
//
// The hand-shake proves the secret in both directions and never sends it: each joining
// process opens with a challenge (its nonce), the job's rank 0 answers with its own nonce
// and an HMAC-SHA256 under the job's secret over both nonces and the launch (the job's
// proof), and only a process that verified it says hello, its fields and nonces under a
// second HMAC (the launch's proof). A peer that is not the job learns a nonce; one that is
// not the launch learns a proof bound to nonces it will never see again.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "malleable_internal/wire.hpp"

namespace blacs_dyn::join {

// A launch's name: 1..64 characters of [A-Za-z0-9._-], not starting with '.' (a file
// name in the job's directory, and a word on a command line).
bool valid_launch_id(std::string_view id);

// DIR/job: who the job is, written by its world rank 0 when it starts.
struct JobRecord {
  std::string incarnation;  // random per run of the job: a launch started for another run is stale
  std::string program;      // the job's executable (its real path)
  std::string host;         // rank 0's node
  unsigned uid = 0;
  int pid = 0;              // rank 0's pid
  bool operator==(const JobRecord&) const = default;
};
std::string format(const JobRecord& r);
// `where` names the file in errors (std::runtime_error).
JobRecord parse_job_record(std::string_view text, const std::string& where);

// DIR/join/<launch>.req: a launch waiting to join, written by its rank 0 once it listens.
struct JoinRequest {
  std::string launch;       // its id (the file's name)
  std::string incarnation;  // the job run it was started for (DIR/job when it started)
  std::string port;         // MPI_Open_port's name: the job connects to it
  std::string host;         // its node (one launch, one node)
  std::string program;      // its executable (real path)
  unsigned uid = 0;
  int pid = 0;              // its rank 0's pid
  int procs = 0;            // its processes
  bool at_start = false;    // it joins at the job's start (the job's own further nodes)
  bool operator==(const JoinRequest&) const = default;
};
std::string format(const JoinRequest& r);
JoinRequest parse_request(std::string_view text, const std::string& where);

// What the job sees of a request file (lstat) and of its heartbeat (its mtime).
struct RequestFile {
  unsigned owner = 0;
  unsigned mode = 0600;      // permission bits
  bool regular = true;       // a regular file, not a link
  double heartbeat_age = 0;  // seconds since the launch last touched it
};

// The limits a request must keep.
struct JoinLimits {
  double stale_after = 5.0;  // seconds without a heartbeat: the launch died or hangs
  int max_procs = 4096;      // processes one launch may bring
};

// Why the job refuses a request before connecting to it ("" = it may connect): a file
// of another user or open to others, another uid claimed, a launch of another run of the
// job (stale), another program, no heartbeat, a launch of the job's start arriving
// later (`at_start`: whether the job is joining its start launches now).
std::string refuse_request(const JoinRequest& req, const RequestFile& file, const JobRecord& job,
                           const JoinLimits& limits, bool at_start);

// Compares two secrets (or proofs) in time independent of where they differ.
bool same_secret(std::string_view a, std::string_view b);

// A nonce of the hand-shake: 32 lower-case hex digits (128 random bits).
bool valid_nonce(std::string_view n);
// HMAC-SHA256 of `message` under `key`, as 64 lower-case hex digits (OpenSSL's libcrypto).
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// The two nonces of one joining process's hand-shake.
struct ProofNonces {
  std::string launch;  // the joining process's (its challenge)
  std::string job;     // the job's rank 0's (with its proof)
};

// A joining process -> the job's world rank 0, first thing over the new connection: who it
// says it is and its nonce. Nothing secret, nothing derived from the secret.
struct JoinChallenge {
  std::string launch;
  std::string nonce;
  int rank = 0;  // its rank in its launch
  bool operator==(const JoinChallenge&) const = default;
};
std::vector<char> encode(const JoinChallenge& m);
// Also checks the launch id and the nonce's form.
JoinChallenge decode_join_challenge(std::span<const char> bytes);

// The job's proof for one joining process: an HMAC under the secret over a label, the
// launch, the job's run, the process's rank and both nonces.
std::string job_proof(std::string_view secret, std::string_view launch, std::string_view incarnation, int rank,
                      const ProofNonces& n);

// A joining process -> the job's world rank 0, once the job's proof checked out.
struct JoinHello {
  std::string launch, incarnation;
  std::string mac;  // launch_proof(secret, *this, nonces); empty when declined
  std::string program, host;
  unsigned uid = 0;
  int pid = 0;
  int procs = 0;  // its launch's processes
  int rank = 0;   // its rank in its launch
  bool at_start = false;
  bool declined = false;  // the job's proof did not check out with this process's secret
  bool operator==(const JoinHello&) const = default;
};
std::vector<char> encode(const JoinHello& m);
JoinHello decode_join_hello(std::span<const char> bytes);

// The launch's proof: an HMAC under the secret over a label, every field of the hello
// (but the proof itself) and both nonces.
std::string launch_proof(std::string_view secret, const JoinHello& h, const ProofNonces& n);

// Why the job refuses a joining process once it said hello ("" = authenticated): its
// proof of the secret first, then the request it came by (launch, run, uid, program, size).
std::string refuse_hello(const JoinHello& h, const JoinRequest& req, const JobRecord& job, std::string_view secret,
                         const ProofNonces& nonces);

// The job's world rank 0 -> a joining process.
enum class Answer : int {
  Refuse = 1,   // refused (reason): free the connection and end
  Prepare = 2,  // accepted (mine: its group in this expansion): acknowledge, then wait for Commit or Cancel
  Cancel = 3,   // the expansion was called off (reason): free the connection and end
  Commit = 4,   // merge now
  Proof = 5,    // the answer to a challenge (nonce, mac): the job's proof
};
struct JoinAnswer {
  Answer kind = Answer::Refuse;
  std::string reason;
  int level = 0;            // Prepare: the level this expansion pushes
  int groups = 0;           // Prepare: the groups (launches) merged before it in this expansion
  int mine = 0;             // Prepare: the receiver's group in this expansion
  std::vector<int> stack;   // unused (the grown stack comes with the Done step)
  std::string nonce, mac;   // Proof: the job's nonce and job_proof()
  bool operator==(const JoinAnswer&) const = default;
};
std::vector<char> encode(const JoinAnswer& m);
// Also checks a Prepare's fields (0 <= mine, groups <= mine) and a Proof's (a nonce, a
// 64-digit proof).
JoinAnswer decode_join_answer(std::span<const char> bytes);

// A joining process -> rank 0 after a Prepare: ready to merge.
struct JoinAck {
  int pid = 0;
  int level = 0;
  bool operator==(const JoinAck&) const = default;
};
std::vector<char> encode(const JoinAck& m);
JoinAck decode_join_ack(std::span<const char> bytes);
std::size_t join_ack_bytes();

// World rank 0 -> every process of the world being grown (the job's, and those of the
// launches merged so far in this expansion), one step at a time: connect to a launch
// (everybody takes part in MPI_Comm_connect: Open MPI 4.1 lets two processes talk only
// when their launches were connected by a connect/accept both took part in), its
// verdict, and the end (the grown stack, or the reason it failed).
enum class StepKind : int {
  Connect = 1,  // launch, port, host, procs: MPI_Comm_connect to it, collectively
  Accept = 2,   // the launch passed: merge it
  Refuse = 3,   // the launch failed (reason): free the connection, go on
  Done = 4,     // stack: the grown world is the new level
  Fail = 5,     // reason: the expansion failed; the launches merged so far leave
};
struct JoinStep {
  StepKind kind = StepKind::Fail;
  std::string launch, port, host, reason;
  int procs = 0;
  int level = 0;
  std::vector<int> stack;  // Done: the grown level stack (LevelStack::encode)
  bool operator==(const JoinStep&) const = default;
};
std::vector<char> encode(const JoinStep& m);
// Also checks the fields each kind needs.
JoinStep decode_join_step(std::span<const char> bytes);

// Which launches an expansion by joining takes.
struct JoinWant {
  std::vector<std::string> launches;  // these, all of them (empty: see count)
  int count = 0;                      // this many launches, the first ready; 0: every launch ready now
  bool at_start = false;              // the job's start launches (they are no newcomers)
};

// One launch as the job's rank 0 sees it while joining it.
enum class LaunchState {
  Seen,           // its request was read
  Refused,        // refused (before connecting or after its hello): never again
  Connected,      // connected, the hellos are awaited
  Authenticated,  // every process said hello and passed: it waits for Prepare
  Prepared,       // Prepare sent, the acknowledgements are awaited
  Ready,          // acknowledged: it merges at Commit
  Merged,
  Cancelled,      // the expansion was called off: sent away
};
const char* to_string(LaunchState s);

// The job's rank 0's bookkeeping of one expansion by joining: which launch to connect to
// next, which are refused, whether the want is met. The MPI layer reports what happened
// (each call checks the launch is in the state the step needs: a step out of order is a
// std::logic_error, a bug).
class JoinLobby {
 public:
  JoinLobby(JoinWant want, JobRecord job, JoinLimits limits) : want_(std::move(want)), job_(std::move(job)), limits_(limits) {}

  // A request read from the directory: the reason it is refused, or "" (it is now Seen,
  // or was seen before). A request already handled (refused, joined, not wanted) is ""
  // and ignored.
  std::string observe(const JoinRequest& req, const RequestFile& file);
  // The next launch to connect to ("" none): named launches in the want's order (one
  // waits for those before it), others in the order seen.
  std::string next_to_connect() const;
  void connected(const std::string& launch);
  // A hello from one of the launch's processes, with the nonces of its hand-shake: "" or
  // why the launch is refused (then Refused).
  std::string hello(const std::string& launch, const JoinHello& h, std::string_view secret, const ProofNonces& n);
  // Every process of the launch said hello and passed: Authenticated.
  void authenticated(const std::string& launch);
  // The launch is refused (a hello did not come in time, it died, ...).
  void refuse(const std::string& launch, const std::string& why);
  // Whether the want is met by the Authenticated launches; `final`: no more waiting (count
  // 0 takes whatever is authenticated then).
  bool satisfied() const;
  // The launches this expansion takes, in the order they will have ranks (the want's
  // order for named launches, else the order seen): Authenticated ones.
  std::vector<std::string> taken() const;
  // The named launches not authenticated (for the message of a want not met).
  std::vector<std::string> missing() const;
  // A named launch was refused: the want can no longer be met (all or nothing).
  bool hopeless() const;
  void prepared(const std::string& launch);
  void ready(const std::string& launch);
  void merged(const std::string& launch);
  void cancelled(const std::string& launch);

  LaunchState state(const std::string& launch) const;
  const JoinRequest& request(const std::string& launch) const;
  bool known(const std::string& launch) const { return launches_.count(launch) > 0; }
  const std::string& reason(const std::string& launch) const;  // a refused launch's reason
  // A request the job refuses without connecting for what it did before (JoinGuard): a
  // launch the want names is then Refused with `why` (the want can no longer be met); any
  // other is ignored, as a request refused by observe().
  void barred(const JoinRequest& req, const std::string& why);

 private:
  struct Entry {
    JoinRequest req;
    LaunchState state = LaunchState::Seen;
    std::string reason;
    int order = 0;
  };
  bool wanted(const std::string& launch) const;
  Entry& in(const std::string& launch, LaunchState need, const char* step);
  JoinWant want_;
  JobRecord job_;
  JoinLimits limits_;
  std::map<std::string, Entry> launches_;
  int seen_ = 0;
};

// The job's rank 0's memory of failed hand-shakes across expansions (a JoinLobby is one
// expansion's): what a peer that failed costs the job next time.
//  - a launch id that failed a hand-shake is never connected to again (the last `ids`
//    such ids are kept);
//  - a peer, the host and pid its request claimed, that failed is not connected to again
//    for the back-off then in force (at most `peers` peers are kept);
//  - more than `bound` failures within `window` seconds pause joining for the back-off
//    (`backoff` seconds, doubling with each pause up to `max_backoff`; a launch that joins
//    brings it back to `backoff`). While paused no launch is connected to: requests that
//    pass the other checks are left waiting.
// A failed hand-shake is one refused after the job connected (silence, garbage, a wrong
// proof, a process that died); a refusal made without connecting costs the job nothing and
// is not counted. Time is the caller's (seconds on any steady clock): nothing here reads a
// clock or sleeps. Memory is bounded whatever the job's size: `ids` launch ids (64 bytes
// each at most), `peers` peers, `bound` + 1 failure times.
struct GuardLimits {
  int bound = 3;              // failures a window may hold; one more pauses joining
  double window = 60;         // seconds
  double backoff = 60;        // seconds: the first pause, and how long a failed peer is barred
  double max_backoff = 900;   // seconds: the doubling stops here
  std::size_t ids = 64;       // failed launch ids kept
  std::size_t peers = 64;     // failed peers kept (the oldest barred is forgotten first)
};

class JoinGuard {
 public:
  explicit JoinGuard(GuardLimits limits = {});

  // Why `req` is refused at `t` without connecting to it ("" = it may be connected to):
  // its launch id failed a hand-shake before, or its peer did and is still barred. The
  // reason names the launch and its peer.
  std::string refuse(const JoinRequest& req, double t) const;
  // A hand-shake with `req` failed at `t`. "" or, when this failure starts a pause, the
  // pause's message ("joining paused for N s after K failed hand-shakes in W s ...").
  std::string failed(const JoinRequest& req, double t);
  // A launch joined: the next pause is `backoff` long again.
  void joined();

  bool paused(double t) const { return t < paused_until_; }
  // While paused: why no launch is connected to now ("joining is paused for N s more ...").
  std::string pause_reason(double t) const;
  // The length the next pause (and a peer's bar from now) would have.
  double backoff() const { return backoff_; }
  const GuardLimits& limits() const { return limits_; }
  // What it holds (for the bound on its memory).
  std::size_t ids_kept() const { return ids_.size(); }
  std::size_t peers_kept() const { return peers_.size(); }
  std::size_t failures_kept() const { return failures_.size(); }

 private:
  struct Bar {
    double until = 0;    // barred until
    double at = 0;       // when it failed
    std::string launch;  // the launch that failed
  };
  GuardLimits limits_;
  double backoff_;                     // the next pause's length
  double paused_until_;                // -inf when never paused
  double pause_length_ = 0;            // the last pause's length
  int pause_failures_ = 0;             // ... and the failures that started it
  std::deque<double> failures_;        // failure times within the window, at most bound + 1
  std::deque<std::string> ids_;        // the last failed launch ids, oldest first
  std::map<std::string, Bar> peers_;   // "pid P on H" -> its bar
};

}  // namespace blacs_dyn::join
