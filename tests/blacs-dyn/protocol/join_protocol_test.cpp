// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the plain logic (blacs-dyn/src/protocol/join_protocol.hpp): the job's and a
// request's records round-trip and refuse what is malformed; a request is refused before
// any connection for each reason (another user's file, a file open to others, another
// uid, a stale launch, a wrong program, no heartbeat, a start launch arriving later); a
// hello is refused without a proof of the secret and for each other mismatch; the proofs
// are HMAC-SHA256 (RFC 4231's vector), bound to both nonces, the launch, the rank and each
// field, and never hold the secret; the hand-shake's messages round-trip and refuse
// another version, a truncated copy, a nonce or proof of the wrong form; the lobby connects
// to the launches the want takes, in order, is met only when they are authenticated, and
// refuses a step out of order.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/join_protocol.hpp"
#include "../../support/thrown.hpp"

namespace {

using namespace blacs_dyn::join;

// The blacs-dyn status of the error `f()` throws (errors in one form: blacs_dyn::Error),
// -1 when it throws none, -2 when it throws another type.
template <class F>
int status_thrown(F&& f) {
  try {
    f();
    return -1;
  } catch (const blacs_dyn::Error& e) {
    return e.code();
  } catch (...) {
    return -2;
  }
}

JobRecord job() { return {"a1b2c3d4e5f60718", "/opt/app/solver", "node1", 1000, 4242}; }

JoinRequest request(const std::string& id, int procs = 4) {
  return {id, "a1b2c3d4e5f60718", "123456.0:789", "node3", "/opt/app/solver", 1000, 777, procs, false};
}

RequestFile fresh() { return {1000, 0600, true, 0.4}; }

const ProofNonces kNonces{"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"};

// A hello proven under `secret` with the nonces kNonces.
JoinHello hello_of(const JoinRequest& r, int rank, const std::string& secret = "s3cr3t") {
  JoinHello h{r.launch, r.incarnation, "", r.program, r.host, r.uid, r.pid + rank, r.procs, rank, r.at_start, false};
  h.mac = launch_proof(secret, h, kNonces);
  return h;
}

std::string error_of(const std::function<void()>& f) { return test_support::thrown<std::exception>(f); }

TEST(JoinRecords, RoundTrip) {
  const JobRecord j = job();
  EXPECT_EQ(parse_job_record(format(j), "DIR/job"), j);
  JoinRequest r = request("node3-1");
  r.at_start = true;
  EXPECT_EQ(parse_request(format(r), "req"), r);
}

TEST(JoinRecords, MalformedIsRefusedNamingTheFile) {
  EXPECT_NE(error_of([] { parse_job_record("incarnation x\nprogram /p\nhost h\nuid 0\n", "DIR/job"); })
                .find("DIR/job: no 'pid' line"),
            std::string::npos);
  const std::string good = format(request("a"));
  EXPECT_NE(error_of([&] { parse_request(good + "launch b\n", "r"); }).find("'launch' given twice"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_request(good + "evil 1\n", "r"); }).find("unknown key 'evil'"), std::string::npos);
  // a launch's bad record is blacs-dyn's join failure (errors in one form), not an MPI error
  EXPECT_EQ(status_thrown([&] { parse_request(good + "evil 1\n", "r"); }), BLACS_DYN_ERR_JOIN);
  std::string neg = good;
  neg.replace(neg.find("procs 4"), 7, "procs -4");
  EXPECT_NE(error_of([&] { parse_request(neg, "r"); }).find("'procs' must be a whole number"), std::string::npos);
  std::string badid = good;
  badid.replace(0, 8, "launch ../x");
  EXPECT_NE(error_of([&] { parse_request(badid, "r"); }).find("is no launch id"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_request(std::string(20000, 'x'), "r"); }).find("more than a record holds"),
            std::string::npos);
  std::string ctl = good;
  ctl.replace(ctl.find("node3"), 5, "no\x01" "de");
  EXPECT_NE(error_of([&] { parse_request(ctl, "r"); }).find("control character"), std::string::npos);
}

TEST(JoinRecords, LaunchIds) {
  EXPECT_TRUE(valid_launch_id("node3-12_a.b"));
  for (const char* bad : {"", ".hidden", "-n", "a/b", "a b", "a;b", "$(x)"}) EXPECT_FALSE(valid_launch_id(bad)) << bad;
  EXPECT_FALSE(valid_launch_id(std::string(65, 'a')));
}

TEST(JoinChecks, RequestRefusedBeforeConnecting) {
  const JoinLimits lim;
  const JoinRequest r = request("l1");
  EXPECT_EQ(refuse_request(r, fresh(), job(), lim, false), "");
  auto other = fresh();
  other.owner = 65534;
  EXPECT_NE(refuse_request(r, other, job(), lim, false).find("belongs to uid 65534, the job runs as uid 1000"),
            std::string::npos);
  auto open = fresh();
  open.mode = 0644;
  EXPECT_NE(refuse_request(r, open, job(), lim, false).find("mode 0644"), std::string::npos);
  auto link = fresh();
  link.regular = false;
  EXPECT_NE(refuse_request(r, link, job(), lim, false).find("not a regular file"), std::string::npos);
  auto uid = r;
  uid.uid = 0;
  EXPECT_NE(refuse_request(uid, fresh(), job(), lim, false).find("runs as uid 0"), std::string::npos);
  auto stale = r;
  stale.incarnation = "0000";
  EXPECT_NE(refuse_request(stale, fresh(), job(), lim, false).find("a stale launch"), std::string::npos);
  auto prog = r;
  prog.program = "/bin/other";
  EXPECT_NE(refuse_request(prog, fresh(), job(), lim, false).find("a wrong program"), std::string::npos);
  auto dead = fresh();
  dead.heartbeat_age = 7.5;
  EXPECT_NE(refuse_request(r, dead, job(), lim, false).find("no heartbeat for 7.5 s"), std::string::npos);
  auto start = r;
  start.at_start = true;
  EXPECT_NE(refuse_request(start, fresh(), job(), lim, false).find("at the job's start, which is over"),
            std::string::npos);
  EXPECT_EQ(refuse_request(start, fresh(), job(), lim, true), "");
  auto huge = r;
  huge.procs = 5000;
  EXPECT_NE(refuse_request(huge, fresh(), job(), lim, false).find("5000 processes"), std::string::npos);
}

TEST(JoinChecks, SecretAndHello) {
  EXPECT_TRUE(same_secret("abc", "abc"));
  EXPECT_FALSE(same_secret("abc", "abd"));
  EXPECT_FALSE(same_secret("abc", "abcd"));
  EXPECT_FALSE(same_secret("", ""));
  const JoinRequest r = request("l1");
  const auto refuse = [&](const JoinHello& h) { return refuse_hello(h, r, job(), "s3cr3t", kNonces); };
  EXPECT_EQ(refuse(hello_of(r, 1)), "");
  EXPECT_NE(refuse(hello_of(r, 1, "guess")).find("wrong secret: its proof does not match"), std::string::npos);
  // the proof under the right secret, for other nonces: a replayed hello
  auto replayed = hello_of(r, 1);
  EXPECT_NE(refuse_hello(replayed, r, job(), "s3cr3t", {kNonces.launch, "00000000000000000000000000000000"})
                .find("wrong secret"),
            std::string::npos);
  auto none = hello_of(r, 1);
  none.mac.clear();
  EXPECT_NE(refuse(none).find("wrong secret"), std::string::npos);
  EXPECT_NE(refuse_hello(hello_of(r, 1), r, job(), "", kNonces).find("wrong secret"), std::string::npos);
  auto declined = hello_of(r, 1);
  declined.declined = true;
  EXPECT_NE(refuse(declined).find("it found the job's proof wrong"), std::string::npos);
  // each field is under the proof: changed after proving, it no longer matches
  auto h = hello_of(r, 0);
  h.uid = 5;
  EXPECT_NE(refuse(h).find("wrong secret"), std::string::npos);
  h = hello_of(r, 0);
  h.program = "/x";
  EXPECT_NE(refuse(h).find("wrong secret"), std::string::npos);
  // proven, but not what its request said (a launch of this job's user with the secret)
  auto other = r;
  other.launch = "l2";
  h = hello_of(other, 0);
  EXPECT_NE(refuse(h).find("it says it is launch 'l2'"), std::string::npos);
  other = r;
  other.uid = 5;
  EXPECT_NE(refuse(hello_of(other, 0)).find("uid 5"), std::string::npos);
  other = r;
  other.program = "/x";
  EXPECT_NE(refuse(hello_of(other, 0)).find("wrong program"), std::string::npos);
  other = r;
  other.incarnation = "old";
  EXPECT_NE(refuse(hello_of(other, 0)).find("stale"), std::string::npos);
  EXPECT_NE(refuse(hello_of(r, 4)).find("rank 4 out of range"), std::string::npos);
  // a peer's words in the message: printable, bounded
  other = r;
  other.host = "evil\nrefused x: forged line" + std::string(500, 'a');
  const std::string why = refuse_hello(hello_of(other, 0), r, job(), "s3cr3t", kNonces);
  EXPECT_EQ(why.find('\n'), std::string::npos);
  EXPECT_LT(why.size(), 400u);
}

TEST(JoinChecks, Proofs) {
  // RFC 4231, test case 2: HMAC-SHA256 itself
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_TRUE(valid_nonce(kNonces.launch));
  EXPECT_FALSE(valid_nonce("0123456789ABCDEF0123456789abcdef"));
  EXPECT_FALSE(valid_nonce("0123456789abcdef"));
  const std::string p = job_proof("s3cr3t", "l1", "a1b2", 0, kNonces);
  EXPECT_EQ(p.size(), 64u);
  EXPECT_EQ(p, job_proof("s3cr3t", "l1", "a1b2", 0, kNonces));
  EXPECT_EQ(p.find("s3cr3t"), std::string::npos);
  // bound to the secret, the launch, the run, the rank and both nonces
  EXPECT_NE(p, job_proof("s3cr3u", "l1", "a1b2", 0, kNonces));
  EXPECT_NE(p, job_proof("s3cr3t", "l2", "a1b2", 0, kNonces));
  EXPECT_NE(p, job_proof("s3cr3t", "l1", "a1b3", 0, kNonces));
  EXPECT_NE(p, job_proof("s3cr3t", "l1", "a1b2", 1, kNonces));
  EXPECT_NE(p, job_proof("s3cr3t", "l1", "a1b2", 0, {kNonces.job, kNonces.launch}));
  // the job's proof is no launch's proof (labels differ): a reflected proof does not pass
  const JoinRequest r = request("l1");
  JoinHello h = hello_of(r, 0);
  h.mac = job_proof("s3cr3t", h.launch, h.incarnation, 0, kNonces);
  EXPECT_NE(refuse_hello(h, r, job(), "s3cr3t", kNonces).find("wrong secret"), std::string::npos);
  // fields that run into each other do not collide
  EXPECT_NE(job_proof("k", "ab", "c", 0, kNonces), job_proof("k", "a", "bc", 0, kNonces));
  EXPECT_EQ(status_thrown([&] { job_proof("", "l1", "a1b2", 0, kNonces); }), BLACS_DYN_ERR_STATE);
}

TEST(JoinMessages, RoundTripAndRefusals) {
  const JoinHello h = hello_of(request("l1"), 2);
  EXPECT_EQ(decode_join_hello(encode(h)), h);
  const JoinAnswer prep{Answer::Prepare, "", 2, 1, 1, {}, "", ""};
  EXPECT_EQ(decode_join_answer(encode(prep)), prep);
  const JoinAnswer refuse{Answer::Refuse, "wrong secret", 0, 0, 0, {}, "", ""};
  EXPECT_EQ(decode_join_answer(encode(refuse)), refuse);
  JoinAnswer proof{Answer::Proof, "", 0, 0, 0, {}, kNonces.job, job_proof("s", "l1", "r", 0, kNonces)};
  EXPECT_EQ(decode_join_answer(encode(proof)), proof);
  proof.mac = "short";
  EXPECT_NE(error_of([&] { decode_join_answer(encode(proof)); }).find("a 64-digit proof"), std::string::npos);
  proof.mac = job_proof("s", "l1", "r", 0, kNonces);
  proof.nonce = "xyz";
  EXPECT_FALSE(error_of([&] { decode_join_answer(encode(proof)); }).empty());
  const JoinChallenge c{"l1", kNonces.launch, 3};
  EXPECT_EQ(decode_join_challenge(encode(c)), c);
  for (const JoinChallenge& bad : {JoinChallenge{"../x", kNonces.launch, 0}, JoinChallenge{"l1", "nonce", 0},
                                   JoinChallenge{"l1", kNonces.launch, -1}})
    EXPECT_NE(error_of([&] { decode_join_challenge(encode(bad)); }).find("a challenge without"), std::string::npos);
  EXPECT_NE(error_of([&] { decode_join_challenge(encode(h)); }).find("another kind of message"), std::string::npos);
  EXPECT_EQ(decode_join_ack(encode(JoinAck{77, 3})), (JoinAck{77, 3}));
  EXPECT_EQ(encode(JoinAck{1, 1}).size(), join_ack_bytes());
  // a Prepare for a group merged before, another version, a cut copy, another kind
  const JoinAnswer bad{Answer::Prepare, "", 2, 3, 2, {}, "", ""};
  EXPECT_NE(error_of([&] { decode_join_answer(encode(bad)); }).find("a prepare for group 2 after 3 groups"),
            std::string::npos);
  const JoinStep connect{StepKind::Connect, "n3", "1.0:2", "node3", "", 4, 1, {}};
  EXPECT_EQ(decode_join_step(encode(connect)), connect);
  const JoinStep done{StepKind::Done, "", "", "", "", 0, 1, {1, 2}};
  EXPECT_EQ(decode_join_step(encode(done)), done);
  auto evil = connect;
  evil.launch = "../x";
  EXPECT_NE(error_of([&] { decode_join_step(encode(evil)); }).find("a connect step to launch '../x'"), std::string::npos);
  const JoinStep empty_done{StepKind::Done, "", "", "", "", 0, 1, {}};
  EXPECT_NE(error_of([&] { decode_join_step(encode(empty_done)); }).find("without a stack"), std::string::npos);
  auto v = encode(h);
  v[4] = 9;
  EXPECT_NE(error_of([&] { decode_join_hello(v); }).find("blacs-dyn join hello: version 9"), std::string::npos);
  const auto full = encode(h);
  for (std::size_t n = 0; n < full.size(); n += 7)
    EXPECT_FALSE(error_of([&] { decode_join_hello(std::span<const char>(full.data(), n)); }).empty()) << n;
  EXPECT_NE(error_of([&] { decode_join_answer(encode(h)); }).find("another kind of message"), std::string::npos);
}

TEST(JoinLobbyTest, NamedLaunchesAllOrNothing) {
  JoinLobby lobby({{"b", "a"}, 0, false}, job(), {});
  EXPECT_FALSE(lobby.hopeless());
  EXPECT_EQ(lobby.observe(request("x"), fresh()), "");  // not wanted: left waiting, unknown
  EXPECT_FALSE(lobby.known("x"));
  EXPECT_EQ(lobby.observe(request("a"), fresh()), "");
  EXPECT_EQ(lobby.next_to_connect(), "");  // "b" comes first in the want: a waits for it
  EXPECT_EQ(lobby.observe(request("b"), fresh()), "");
  EXPECT_EQ(lobby.next_to_connect(), "b");  // in the want's order
  lobby.connected("b");
  EXPECT_EQ(lobby.hello("b", hello_of(request("b"), 0), "s3cr3t", kNonces), "");
  lobby.authenticated("b");
  EXPECT_FALSE(lobby.satisfied());
  EXPECT_EQ(lobby.missing(), std::vector<std::string>{"a"});
  EXPECT_EQ(lobby.next_to_connect(), "a");
  lobby.connected("a");
  EXPECT_NE(lobby.hello("a", hello_of(request("a"), 3, "nope"), "s3cr3t", kNonces).find("wrong secret"),
            std::string::npos);
  EXPECT_EQ(lobby.state("a"), LaunchState::Refused);
  EXPECT_FALSE(lobby.satisfied());
  EXPECT_TRUE(lobby.hopeless());
  EXPECT_EQ(lobby.next_to_connect(), "");
  // a refused launch stays refused: seen again, it is ignored
  EXPECT_EQ(lobby.observe(request("a"), fresh()), "");
  EXPECT_EQ(lobby.state("a"), LaunchState::Refused);
  lobby.cancelled("b");
  EXPECT_EQ(lobby.state("b"), LaunchState::Cancelled);
}

TEST(JoinLobbyTest, CountAndOrderOfRanks) {
  JoinLobby lobby({{}, 2, false}, job(), {});
  for (const char* id : {"n3", "n4", "n5"}) EXPECT_EQ(lobby.observe(request(id), fresh()), "");
  auto dead = fresh();
  dead.heartbeat_age = 60;
  EXPECT_NE(lobby.observe(request("n6"), dead).find("no heartbeat"), std::string::npos);
  for (const char* id : {"n3", "n4"}) {
    ASSERT_EQ(lobby.next_to_connect(), id);
    lobby.connected(id);
  }
  EXPECT_EQ(lobby.next_to_connect(), "");  // two under way: enough
  lobby.authenticated("n4");
  lobby.refuse("n3", "died during its hello");
  EXPECT_EQ(lobby.next_to_connect(), "n5");
  lobby.connected("n5");
  lobby.authenticated("n5");
  EXPECT_TRUE(lobby.satisfied());
  EXPECT_EQ(lobby.taken(), (std::vector<std::string>{"n4", "n5"}));
  for (const auto& id : lobby.taken()) {
    lobby.prepared(id);
    lobby.ready(id);
    lobby.merged(id);
  }
  EXPECT_EQ(lobby.state("n5"), LaunchState::Merged);
  EXPECT_EQ(status_thrown([&] { lobby.refuse("n5", "x"); }), BLACS_DYN_ERR_STATE);
}

TEST(JoinLobbyTest, StartTakesOnlyStartLaunchesAndStepsKeepOrder) {
  JoinLobby lobby({{"s2"}, 0, true}, job(), {});
  auto later = request("p1");
  EXPECT_EQ(lobby.observe(later, fresh()), "");  // a launch for a later expansion waits
  EXPECT_FALSE(lobby.known("p1"));
  auto s2 = request("s2");
  s2.at_start = true;
  EXPECT_EQ(lobby.observe(s2, fresh()), "");
  EXPECT_EQ(status_thrown([&] { lobby.authenticated("s2"); }), BLACS_DYN_ERR_STATE);  // not connected yet
  EXPECT_EQ(status_thrown([&] { lobby.ready("s2"); }), BLACS_DYN_ERR_STATE);
  EXPECT_EQ(status_thrown([&] { lobby.connected("zz"); }), BLACS_DYN_ERR_STATE);
  lobby.connected("s2");
  auto h = hello_of(s2, 1);
  EXPECT_EQ(lobby.hello("s2", h, "s3cr3t", kNonces), "");
  lobby.authenticated("s2");
  EXPECT_TRUE(lobby.satisfied());
  // any launch when nothing is named and no count: whatever is authenticated
  JoinLobby all({{}, 0, false}, job(), {});
  EXPECT_TRUE(all.satisfied());
  EXPECT_TRUE(all.taken().empty());
}

TEST(JoinLobbyTest, BarredLaunchMakesANamedWantHopeless) {
  JoinLobby lobby({{"a"}, 0, false}, job(), {});
  lobby.barred(request("x"), "barred");  // not wanted: ignored
  EXPECT_FALSE(lobby.known("x"));
  lobby.barred(request("a"), "its peer failed a hand-shake");
  EXPECT_EQ(lobby.state("a"), LaunchState::Refused);
  EXPECT_EQ(lobby.reason("a"), "its peer failed a hand-shake");
  EXPECT_TRUE(lobby.hopeless());
  EXPECT_EQ(lobby.next_to_connect(), "");
}

// "<prefix><i>" (appended: GCC 12 warns, wrongly, on "literal" + std::to_string(i)).
std::string nth(const char* prefix, int i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

// A request of launch `id` from process `pid` on node3.
JoinRequest from(const std::string& id, int pid) {
  auto r = request(id);
  r.pid = pid;
  return r;
}

TEST(JoinGuardTest, AFailedLaunchIdIsNeverConnectedToAgain) {
  JoinGuard g;
  EXPECT_EQ(g.refuse(from("a", 10), 0), "");
  EXPECT_EQ(g.failed(from("a", 10), 100), "");
  // the same id from another process, long after any back-off: still refused
  const std::string why = g.refuse(from("a", 11), 1e6);
  EXPECT_NE(why.find("launch a (pid 11 on node3, uid 1000 claimed)"), std::string::npos) << why;
  EXPECT_NE(why.find("never connected to again"), std::string::npos) << why;
  EXPECT_EQ(g.refuse(from("b", 11), 100), "");  // another id, another peer
}

TEST(JoinGuardTest, AFailedPeerIsBarredForTheBackoff) {
  JoinGuard g({3, 60, 60, 900, 64, 64});
  g.failed(from("a", 10), 100);
  // the same process (host and pid its request claims) under a new id
  const std::string why = g.refuse(from("a-2", 10), 104.5);
  EXPECT_NE(why.find("its peer (pid 10 on node3) failed a hand-shake as launch a 4.5 s ago"), std::string::npos)
      << why;
  EXPECT_NE(why.find("56 s more"), std::string::npos) << why;
  auto elsewhere = from("a-3", 10);
  elsewhere.host = "node4";  // same pid, another node: another peer
  EXPECT_EQ(g.refuse(elsewhere, 104.5), "");
  EXPECT_NE(g.refuse(from("a-2", 10), 159.9), "");
  EXPECT_EQ(g.refuse(from("a-2", 10), 160), "");  // the back-off is over
}

TEST(JoinGuardTest, MoreThanTheBoundInAWindowPausesJoiningWithBackoffDoubling) {
  JoinGuard g({3, 60, 60, 200, 64, 64});
  EXPECT_FALSE(g.paused(0));
  EXPECT_EQ(g.pause_reason(0), "");
  // three failures in the window: the bound, no pause
  EXPECT_EQ(g.failed(from("f1", 1), 0), "");
  EXPECT_EQ(g.failed(from("f2", 2), 10), "");
  EXPECT_EQ(g.failed(from("f3", 3), 20), "");
  EXPECT_FALSE(g.paused(20));
  // the fourth: paused for 60 s, said once (the next failures say nothing new)
  const std::string m = g.failed(from("f4", 4), 30);
  EXPECT_EQ(m.rfind("joining paused for 60 s after 4 failed hand-shakes in 60 s", 0), 0u) << m;
  EXPECT_NE(m.find("launch f4 (pid 4 on node3"), std::string::npos) << m;
  EXPECT_TRUE(g.paused(30));
  EXPECT_TRUE(g.paused(89.9));
  EXPECT_FALSE(g.paused(90));
  EXPECT_EQ(g.pause_reason(50).rfind("joining is paused for 40 s more after 4 failed hand-shakes in 60 s", 0), 0u)
      << g.pause_reason(50);
  EXPECT_EQ(g.failures_kept(), 0u);  // a pause starts a fresh window
  // the peer that started the pause is barred for the back-off then in force (60 s)
  EXPECT_NE(g.refuse(from("new", 4), 89), "");
  EXPECT_EQ(g.refuse(from("new", 4), 90), "");
  // four more after the pause: the next pause is twice as long ...
  for (int i = 0; i < 3; ++i) EXPECT_EQ(g.failed(from(nth("g", i), 20 + i), 100 + i), "");
  EXPECT_NE(g.refuse(from("again", 20), 219), "");  // (and a peer failing now is barred for 120 s)
  EXPECT_EQ(g.refuse(from("again", 20), 220), "");
  EXPECT_EQ(g.failed(from("g3", 23), 103).rfind("joining paused for 120 s after 4", 0), 0u);
  EXPECT_TRUE(g.paused(222));
  EXPECT_FALSE(g.paused(223));
  // ... then capped
  for (int i = 0; i < 4; ++i) g.failed(from(nth("h", i), 30 + i), 300 + i);
  EXPECT_EQ(g.backoff(), 200);
  for (int i = 0; i < 4; ++i) g.failed(from(nth("k", i), 40 + i), 600 + i);
  EXPECT_TRUE(g.paused(600 + 3 + 199));
  EXPECT_FALSE(g.paused(600 + 3 + 200));
  // a launch that joins brings the back-off back to its start
  g.joined();
  EXPECT_EQ(g.backoff(), 60);
}

TEST(JoinGuardTest, FailuresOutsideTheWindowDoNotCount) {
  JoinGuard g({3, 60, 60, 900, 64, 64});
  for (int i = 0; i < 20; ++i) EXPECT_EQ(g.failed(from(nth("s", i), 100 + i), 25.0 * i), "") << i;
  EXPECT_FALSE(g.paused(1000));
  EXPECT_LE(g.failures_kept(), 3u);
}

TEST(JoinGuardTest, MemoryIsBoundedWhateverTheFlood) {
  JoinGuard g({3, 60, 1, 1, 64, 64});
  // 10,000 failures of distinct launches and peers, a pause every fourth
  for (int i = 0; i < 10000; ++i) g.failed(from(nth("x", i), i + 1), 2.0 * i);
  EXPECT_EQ(g.ids_kept(), 64u);
  EXPECT_LE(g.peers_kept(), 64u);
  EXPECT_LE(g.failures_kept(), 4u);
  // the last 64 ids are kept, older ones forgotten
  EXPECT_NE(g.refuse(from("x9999", 1), 1e9), "");
  EXPECT_NE(g.refuse(from("x9936", 1), 1e9), "");
  EXPECT_EQ(g.refuse(from("x9935", 1), 1e9), "");
  // peers: at most `peers`, the shortest barred forgotten first
  JoinGuard p({100, 60, 60, 900, 64, 2});
  p.failed(from("p1", 1), 0);
  p.failed(from("p2", 2), 10);
  p.failed(from("p3", 3), 20);
  EXPECT_EQ(p.peers_kept(), 2u);
  EXPECT_EQ(p.refuse(from("q1", 1), 21), "");
  EXPECT_NE(p.refuse(from("q2", 2), 21), "");
  EXPECT_NE(p.refuse(from("q3", 3), 21), "");
}

}  // namespace
