// SPDX-License-Identifier: BSD-3-Clause
// The arbiter daemon's pure parts: frames, requests and replies with their validation (and
// 10,000 generated bad frames, each refused with an Error), who may ask about a job, the
// daemon's state (arbitration, settlement, refusals, the journal across a restart) and its
// options. No daemon, no MUNGE, no Slurm.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "daemon/conn_cap.hpp"
#include "daemon/options.hpp"
#include "arbiter/protocol.hpp"
#include "daemon/state.hpp"
#include "slurm_snapshot_util.hpp"

using namespace cluster;
using namespace cluster::arbiter;

namespace {

const std::string kChallenge = "00112233445566778899aabbccddeeff";

Request arbitrate_request(const std::string& job, std::vector<std::string> hosts, double saving_per_node) {
  Request r;
  r.challenge = kChallenge;
  r.kind = Request::Kind::Arbitrate;
  r.job = slurm::JobState{job, std::move(hosts), 1, 1, 4};
  for (int n = 1; n <= 3; ++n) {
    slurm::Growth g;
    g.pays = saving_per_node > 0;
    g.saving_s = saving_per_node * n;
    g.why = "model";
    r.growth[n] = g;
  }
  return r;
}

// Two jobs of two users, node[5-6] idle.
slurm::ClusterView two_jobs(double t) {
  return slurm::make_view(t, slurm_snapshot::records("7|RUNNING|2|node[1-2]|pdgemm\n8|RUNNING|2|node[3-4]|jacobi\n"), "idle node[5-6]\n");
}
const std::map<std::string, std::uint32_t> kOwners{{"7", 1000}, {"8", 1001}};

// Why parse_request refuses `text`, or "accepted".
std::string request_refusal(const std::string& text) {
  try {
    parse_request(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}
// The challenge as the last field of a request's JSON.
const std::string kChallengeField = ",\"challenge\":\"" + kChallenge + "\"";

}  // namespace

TEST(ArbiterFrame, RoundTripsAndWaitsForTheRest) {
  const std::string f = frame("hello");
  ASSERT_EQ(f.size(), 9u);
  EXPECT_EQ(f.substr(0, 4), std::string("\0\0\0\5", 4));
  for (std::size_t cut = 0; cut < f.size(); ++cut)
    EXPECT_EQ(read_frame(f.substr(0, cut)).status, FrameRead::Status::Incomplete) << cut;
  const FrameRead r = read_frame(f + "next");
  ASSERT_EQ(r.status, FrameRead::Status::Complete);
  EXPECT_EQ(r.payload, "hello");
  EXPECT_EQ(r.consumed, 9u);
}

TEST(ArbiterFrame, RefusesALengthOverTheLimitBeforeReadingIt) {
  const FrameRead r = read_frame(std::string("\xff\xff\xff\xff", 4));
  EXPECT_EQ(r.status, FrameRead::Status::Refused);
  EXPECT_NE(r.why.find("exceeds the limit"), std::string::npos);
  EXPECT_THROW(frame(std::string(kMaxFrame + 1, 'x')), Error);
}

// A request frame's payload is the credential exactly as libmunge makes it: munged would
// skip what follows its last ':' (and whitespace anywhere), so bytes after the credential
// would ride along unseen; they are refused before the credential is decoded.
TEST(ArbiterFrame, ACredentialWithAnythingAfterItIsRefused) {
  const std::string cred = "MUNGE:AwQFAAC8ubbgVa2+6r3Jt/EqPTSRuQ4cG1jVz6l7tGB9oR3bE4Rk0pQ8nHcY=:";
  const auto why = [](const std::string& payload) {
    try {
      return "accepted " + credential_text(payload);
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(why(cred), "accepted " + cred);
  EXPECT_EQ(why(read_frame(frame(cred)).payload), "accepted " + cred);
  // Anything after the closing ':', in the frame: a byte, the request again, a newline
  // (the client sends none), a NUL (libmunge would stop reading there), a second ':'.
  EXPECT_EQ(why(read_frame(frame(cred + "x")).payload), "trailing bytes after the credential (1 byte after its closing ':')");
  EXPECT_EQ(why(cred + "{\"v\":2,\"kind\":\"status\"}"), "trailing bytes after the credential (23 bytes after its closing ':')");
  EXPECT_EQ(why(cred + "\n"), "trailing bytes after the credential (1 byte after its closing ':')");
  EXPECT_EQ(why(cred + std::string("\0junk", 5)), "trailing bytes after the credential (5 bytes after its closing ':')");
  EXPECT_EQ(why(cred + ":"), "trailing bytes after the credential (1 byte after its closing ':')");
  // Not the armor: whitespace munged would skip, another start, cut short.
  EXPECT_EQ(why(" " + cred), "the frame does not hold a MUNGE credential (no 'MUNGE:' at its start)");
  EXPECT_EQ(why(""), "the frame does not hold a MUNGE credential (no 'MUNGE:' at its start)");
  EXPECT_EQ(why("{\"v\":2}"), "the frame does not hold a MUNGE credential (no 'MUNGE:' at its start)");
  EXPECT_EQ(why("MUNGE:AwQF AAC8:"), "the credential holds a byte base64 has not (at offset 10)");
  EXPECT_EQ(why("MUNGE:AwQF\nAAC8:"), "the credential holds a byte base64 has not (at offset 10)");
  EXPECT_EQ(why(cred.substr(0, cred.size() - 1)), "the credential has no closing ':' (cut short)");
}

TEST(ArbiterRequest, RoundTripsEveryKind) {
  Request a = arbitrate_request("7", {"node1", "node1", "node2"}, 5);
  a.hold = true;
  a.bid_ttl_s = 30;
  const Request b = parse_request(encode_request(a));
  EXPECT_EQ(b.kind, Request::Kind::Arbitrate);
  EXPECT_EQ(b.job.id, "7");
  EXPECT_EQ(b.job.rank_hosts, a.job.rank_hosts);
  EXPECT_EQ(b.job.max_nodes, 4);
  EXPECT_TRUE(b.hold);
  EXPECT_DOUBLE_EQ(b.bid_ttl_s, 30);
  ASSERT_EQ(b.growth.size(), 3u);
  EXPECT_DOUBLE_EQ(b.growth.at(2).saving_s, 10);
  Request s;
  s.kind = Request::Kind::Settle;
  s.challenge = kChallenge;
  s.job.id = "12_3";
  s.promises_too = true;
  const Request t = parse_request(encode_request(s));
  EXPECT_EQ(t.kind, Request::Kind::Settle);
  EXPECT_EQ(t.job.id, "12_3");
  EXPECT_TRUE(t.promises_too);
  Request st;
  st.challenge = kChallenge;
  EXPECT_EQ(parse_request(encode_request(st)).kind, Request::Kind::Status);
  EXPECT_EQ(parse_request(encode_request(st)).challenge, kChallenge);
  // The expander jobs' ids (optional), bounded and digits only.
  a.expanders = {"41", "42"};
  EXPECT_EQ(parse_request(encode_request(a)).expanders, a.expanders);
  EXPECT_TRUE(parse_request(encode_request(arbitrate_request("7", {"node1"}, 1))).expanders.empty());
}

// Version 2: a request names the challenge of the connection it was made for; the
// daemon's challenge frame is exactly {"v":2,"challenge":HEX32}.
TEST(ArbiterChallenge, TheChallengeFrameIsStrictAndTheRequestCarriesIt) {
  EXPECT_EQ(encode_challenge(kChallenge), "{\"challenge\":\"" + kChallenge + "\",\"v\":2}");
  EXPECT_EQ(parse_challenge(encode_challenge(kChallenge)), kChallenge);
  Request st;
  st.challenge = kChallenge;
  EXPECT_EQ(encode_request(st), "{\"challenge\":\"" + kChallenge + "\",\"kind\":\"status\",\"v\":2}");
  const auto why = [](const std::string& text) {
    try {
      return "accepted " + parse_challenge(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(why("{\"v\":2,\"challenge\":\"" + kChallenge.substr(1) + "\"}"), "'challenge' must be 32 lower-case hex digits");
  EXPECT_EQ(why("{\"v\":2,\"challenge\":\"00112233445566778899AABBCCDDEEFF\"}"), "'challenge' must be 32 lower-case hex digits");
  EXPECT_EQ(why("{\"v\":2,\"challenge\":\"" + kChallenge + "\",\"x\":1}"), "unknown key 'x'");
  EXPECT_EQ(why("{\"v\":1,\"challenge\":\"" + kChallenge + "\"}"),
            "protocol version 1 is not 2 (version 1 has no challenge: a client older than this arbiter)");
  EXPECT_EQ(why("{\"ok\":true}"), "missing key 'v'");
  EXPECT_EQ(why("garbage"), "not JSON");
  EXPECT_THROW(encode_challenge("xyz"), Error);
  // Fresh ones: 32 hex digits, never the same twice.
  const std::string c1 = random_hex128(), c2 = random_hex128();
  EXPECT_EQ(parse_challenge(encode_challenge(c1)), c1);
  EXPECT_NE(c1, c2);
}

TEST(ArbiterRequest, RefusalsNameWhatIsWrong) {
  const auto why = request_refusal;
  const std::string c = kChallengeField;
  EXPECT_EQ(why("{\"v\":2,\"kind\":\"status\"" + c), "not JSON");
  EXPECT_EQ(why("[1]"), "not a JSON object");
  EXPECT_EQ(why("{\"v\":3,\"kind\":\"status\"" + c + "}"), "protocol version 3 is not 2");
  EXPECT_EQ(why("{\"v\":1,\"kind\":\"status\"}"),
            "protocol version 1 is not 2 (version 1 has no challenge: a client older than this arbiter)");
  EXPECT_EQ(why("{\"v\":2,\"kind\":\"status\"}"), "missing key 'challenge'");
  EXPECT_EQ(why("{\"v\":2,\"kind\":\"status\",\"challenge\":\"1234\"}"), "'challenge' must be 32 lower-case hex digits");
  EXPECT_EQ(why("{\"v\":2,\"kind\":\"status\",\"x\":1" + c + "}"), "unknown key 'x'");
  EXPECT_EQ(why("{\"v\":2,\"kind\":\"launch\"" + c + "}"), "unknown request kind 'launch'");
  EXPECT_EQ(why("{\"v\":2,\"kind\":\"settle\",\"job\":\"7; rm -rf /\",\"promises_too\":false" + c + "}"),
            "'job' must be a name of letters, digits, '.', '_' or '-'");
  EXPECT_EQ(why("{\"v\":2,\"kind\":\"settle\",\"job\":\"7\",\"promises_too\":false,\"expanders\":[\"8\"]" + c + "}"),
            "unknown key 'expanders'");
  std::string a = encode_request(arbitrate_request("7", {"node1"}, 1));
  const auto swap = [&](const std::string& from, const std::string& to) {
    std::string s = a;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_EQ(why(swap("\"per_node\":1", "\"per_node\":0")), "'per_node' must be an integer in [1, 4096]");
  EXPECT_EQ(why(swap("\"per_node\":1", "\"per_node\":1.5")), "'per_node' must be an integer in [1, 4096]");
  EXPECT_EQ(why(swap("\"hold\":false", "\"hold\":0")), "'hold' must be true or false");
  EXPECT_EQ(why(swap("\"rank_hosts\":[\"node1\"]", "\"rank_hosts\":[]")), "'rank_hosts' must name rank 0's host at least");
  EXPECT_EQ(why(swap("\"rank_hosts\":[\"node1\"]", "\"rank_hosts\":[\"../x y\"]")),
            "'rank_hosts' holds something that is not a host or job name");
  EXPECT_EQ(why(swap("\"hold\":false,", "")), "missing key 'hold'");
  EXPECT_EQ(why(swap("\"n\":2", "\"n\":1")), "'growth' names n=1 twice");
  EXPECT_EQ(why(swap("\"hold\":false", "\"hold\":false,\"expanders\":[\"12a\"]")), "'expanders' must list Slurm job ids (digits)");
  EXPECT_EQ(why(swap("\"hold\":false", "\"hold\":false,\"expanders\":\"12\"")),
            "'expanders' must be a list of at most 256 names");
  // Deep nesting is refused, not a stack overflow.
  EXPECT_EQ(why(std::string(60000, '[')), "not JSON");
}

// nlohmann keeps a key's last value: a request naming a key twice would be read one way
// here and another way by whatever reads the first; and what follows the JSON would ride
// along unread. Both are refused, with the reason, at any depth.
TEST(ArbiterRequest, ADuplicatedKeyOrTrailingBytesAreRefused) {
  const auto why = request_refusal;
  const std::string c = kChallengeField;
  const std::string settle = "{\"v\":2,\"kind\":\"settle\",\"job\":\"7\",\"promises_too\":false" + c + "}";
  ASSERT_EQ(why(settle), "accepted");
  const auto swap = [](std::string s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  // At the top: another job, the same value again, the same key spelt with an escape.
  EXPECT_EQ(why(swap(settle, "\"job\":\"7\"", "\"job\":\"7\",\"job\":\"8\"")), "duplicated key 'job'");
  EXPECT_EQ(why(swap(settle, "\"v\":2", "\"v\":2,\"v\":2")), "duplicated key 'v'");
  EXPECT_EQ(why(swap(settle, "\"job\":\"7\"", "\"job\":\"7\",\"j\\u006fb\":\"8\"")), "duplicated key 'job'");
  EXPECT_EQ(why(settle.substr(0, settle.size() - 1) + c + "}"), "duplicated key 'challenge'");
  // Nested: in a growth entry.
  const std::string a = encode_request(arbitrate_request("7", {"node1"}, 1));
  ASSERT_EQ(why(a), "accepted");
  EXPECT_EQ(why(swap(a, "\"pays\":true", "\"pays\":false,\"pays\":true")), "duplicated key 'pays'");
  EXPECT_EQ(why(swap(a, "\"n\":1", "\"n\":1,\"n\":1")), "duplicated key 'n'");
  // Not duplicates: another case, the same name in another object (each growth entry has
  // its "n"; a "v" in an entry is the entry's, an unknown key there).
  EXPECT_EQ(why(swap(settle, "\"job\":\"7\"", "\"job\":\"7\",\"Job\":\"8\"")), "unknown key 'Job'");
  EXPECT_EQ(why(swap(a, "\"why\":\"model\"", "\"why\":\"model\",\"Why\":\"x\"")), "unknown key 'Why'");
  EXPECT_EQ(why(swap(a, "\"n\":1", "\"n\":1,\"v\":2")), "unknown key 'v'");
  // Trailing bytes: another object, a byte, a NUL (nlohmann's end of input) and more.
  EXPECT_EQ(why(settle + "{}"), "trailing bytes after the JSON");
  EXPECT_EQ(why(settle + " x"), "trailing bytes after the JSON");
  EXPECT_EQ(why(settle + settle), "trailing bytes after the JSON");
  EXPECT_EQ(why(settle + std::string("\0", 1)), "trailing bytes after the JSON (from a NUL byte on)");
  EXPECT_EQ(why(settle + std::string(1, '\0') + "{\"job\":\"8\"}"), "trailing bytes after the JSON (from a NUL byte on)");
  EXPECT_EQ(why(std::string("{\0}", 3)), "not JSON");
  // Whitespace around the object is JSON's own: still the request.
  EXPECT_EQ(why(" " + settle + " \n"), "accepted");
  const Request t = parse_request(" " + settle + "\r\n");
  EXPECT_EQ(t.kind, Request::Kind::Settle);
  EXPECT_EQ(t.job.id, "7");
  // The challenge frame and the reply are read so too.
  EXPECT_THROW(parse_challenge("{\"v\":2,\"challenge\":\"" + kChallenge + "\",\"challenge\":\"" + kChallenge + "\"}"), Error);
  try {
    parse_challenge("{\"v\":2,\"v\":2,\"challenge\":\"" + kChallenge + "\"}");
    ADD_FAILURE() << "a duplicated key in the challenge accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "duplicated key 'v'");
  }
  EXPECT_THROW(parse_challenge(encode_challenge(kChallenge) + "x"), Error);
  try {
    parse_reply("{\"ok\":false,\"ok\":true,\"error\":\"e\"}", Request::Kind::Status);
    ADD_FAILURE() << "a duplicated key in the reply accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "duplicated key 'ok'");
  }
  EXPECT_FALSE(parse_reply("{\"ok\":false,\"error\":\"e\"} ", Request::Kind::Status).ok);
}

// 10,000 generated bad requests, of every kind a client could send by mistake or on
// purpose: truncated, a byte changed to one JSON cannot hold there, an unknown key, a value
// of the wrong type or out of range, random bytes, oversized frames, a key and its value
// given twice (at any depth, the same value too), bytes after the JSON. Each one is refused
// with an Error (never another exception, never a crash), and a frame's length over the
// limit is refused before anything is read.
TEST(ArbiterRequest, TenThousandBadFramesAreEachRefused) {
  std::mt19937 rng(55);
  const std::vector<std::string> good{encode_request(arbitrate_request("7", {"node1", "node2"}, 2)),
                                      [] {
                                        Request st;
                                        st.challenge = kChallenge;
                                        return encode_request(st);
                                      }(),
                                      "{\"v\":2,\"kind\":\"settle\",\"job\":\"7\",\"promises_too\":true,\"challenge\":\"" +
                                          kChallenge + "\"}"};
  // Wrong for every key: no key takes null or an object, a list of one empty object is
  // not a name, a number, a flag or a growth entry, and 2,000 bytes exceed every string.
  const std::vector<std::string> bad_values{"null", "{}", "[{}]", "\"" + std::string(2000, 'a') + "\""};
  // Where the value after the ':' at `colon` ends (its ',' or closing bracket).
  const auto value_end = [](const std::string& body, std::size_t colon) {
    std::size_t end = colon + 1;
    int depth = 0;
    bool str = false;
    for (; end < body.size(); ++end) {
      const char ch = body[end];
      if (str) {
        if (ch == '\\') ++end;
        else if (ch == '"') str = false;
        continue;
      }
      if (ch == '"') str = true;
      else if (ch == '[' || ch == '{') ++depth;
      else if ((ch == ']' || ch == '}') && depth-- == 0) break;
      else if (ch == ',' && depth == 0) break;
    }
    return end;
  };
  const auto key_colons = [](const std::string& body) {
    std::vector<std::size_t> colons;
    for (std::size_t k = 1; k < body.size(); ++k)
      if (body[k] == ':' && body[k - 1] == '"') colons.push_back(k);
    return colons;
  };
  int refused = 0, oversize = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::string& g = good[rng() % good.size()];
    std::string body;
    switch (i % 8) {
      case 0:  // truncated
        body = g.substr(0, rng() % g.size());
        break;
      case 1: {  // a structural byte replaced by one JSON does not allow there
        body = g;
        std::size_t at;
        do at = rng() % body.size();
        while (body[at] != '{' && body[at] != '}' && body[at] != ':' && body[at] != '"');
        body[at] = "\x01;=\\"[rng() % 4];
        break;
      }
      case 2: {  // an unknown key
        body = g;
        body.insert(1, "\"k" + std::to_string(rng() % 1000) + "\":1,");
        break;
      }
      case 3: {  // a known key's value replaced by one no key accepts
        body = g;
        const std::vector<std::size_t> colons = key_colons(body);
        const std::size_t c = colons[rng() % colons.size()];
        const std::size_t end = value_end(body, c);
        const std::string v = bad_values[rng() % bad_values.size()];
        body.replace(c + 1, end - c - 1, v);
        break;
      }
      case 6: {  // a key and its value again, in the same object (the same value: nothing else wrong)
        body = g;
        const std::vector<std::size_t> colons = key_colons(body);
        const std::size_t c = colons[rng() % colons.size()];
        const std::size_t start = body.rfind('"', c - 2);
        const std::string pair = body.substr(start, value_end(body, c) - start);
        body.insert(start, pair + ",");
        break;
      }
      case 7: {  // bytes after the JSON: the first not whitespace (a NUL among them)
        body = g;
        std::string tail(1 + rng() % 40, '\0');
        for (char& ch : tail) ch = static_cast<char>(rng() % 256);
        tail[0] = "x{}[]\",:0\0"[rng() % 10];
        body += rng() % 2 ? tail : " " + g.substr(0, rng() % g.size()) + tail;
        break;
      }
      case 4: {  // random bytes, never starting a JSON object
        body.resize(1 + rng() % 200);
        for (char& ch : body) ch = static_cast<char>(rng() % 256);
        if (body[0] == '{' || body[0] == ' ' || body[0] == '\n' || body[0] == '\t' || body[0] == '\r') body[0] = 'x';
        break;
      }
      case 5: {  // a length over the limit
        std::string f(4, '\0');
        const std::uint32_t n = static_cast<std::uint32_t>(kMaxFrame + 1 + rng() % 1000000);
        for (int k = 0; k < 4; ++k) f[k] = static_cast<char>((n >> (24 - 8 * k)) & 0xff);
        ASSERT_EQ(read_frame(f + g).status, FrameRead::Status::Refused);
        ++oversize;
        continue;
      }
    }
    const FrameRead f = read_frame(frame(body));
    ASSERT_EQ(f.status, FrameRead::Status::Complete);
    try {
      parse_request(f.payload);
      ADD_FAILURE() << "case " << i % 8 << " accepted: " << body;
    } catch (const Error&) {
      ++refused;
    }
  }
  EXPECT_EQ(refused + oversize, 10000);
}

TEST(ArbiterAuthorization, OnlyTheOwnerRootOrSlurmUserMayAskAboutAJob) {
  Request r = arbitrate_request("7", {"node1"}, 1);
  EXPECT_EQ(refusal(r, 1000, kOwners, 64030), "");
  EXPECT_EQ(refusal(r, 0, kOwners, 64030), "");
  EXPECT_EQ(refusal(r, 64030, kOwners, 64030), "");
  // A refusal names the asking uid only: not the owner, and not whether the job exists.
  EXPECT_EQ(refusal(r, 1001, kOwners, 64030), "uid 1001 does not own job 7 in Slurm's view");
  r.job.id = "9";
  EXPECT_EQ(refusal(r, 1000, kOwners, 64030), "uid 1000 does not own job 9 in Slurm's view");
  EXPECT_EQ(refusal(Request{}, 1001, kOwners, 64030), "");  // status: open to all
}

TEST(ArbiterOwners, TakesTheUidsFromTheViewsSqueue) {
  // The view's own squeue (kSqueueFormat, uid=) gives the owners: no second squeue.
  const std::string squeue =
      "7|RUNNING|2|node[1-2]|a|None|prio=10|submit=2026-01-01T00:00:00|part=batch|start=N/A|plan=(null)|qos=normal|uid=1000|\n"
      "8|PENDING|1||b|Priority|prio=9|submit=2026-01-01T00:00:01|part=batch|start=N/A|plan=(null)|qos=normal|uid=1001|\n";
  EXPECT_EQ(owners_of(slurm::make_view(0, slurm_snapshot::records(squeue), "node3\n").jobs), kOwners);
  // A job listed without its uid (a view recorded before uid=) has no owner: refused.
  const auto none = owners_of(slurm::make_view(0, slurm_snapshot::records("7|RUNNING|2|node[1-2]\n"), "").jobs);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(refusal(arbitrate_request("7", {"node1"}, 1), 1000, none, 64030), "uid 1000 does not own job 7 in Slurm's view");
  slurm::Job big;
  big.id = "9";
  big.uid = "9999999999";  // ten digits, beyond 32 bits
  EXPECT_THROW(owners_of({big}), Error);
}

TEST(ArbiterState, ArbitratesRefusesAnotherUsersJobAndSettles) {
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  so.slurm_user = 64030;
  ArbiterState st(so);
  EXPECT_TRUE(st.view_stale(100));
  st.set_view(two_jobs(100), kOwners);
  EXPECT_FALSE(st.view_stale(101));
  bool changed = false;
  // uid 1001 about job 7 (uid 1000's): refused, the ledger untouched, the refusal kept.
  Reply r = st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1001, 101, changed);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "refused: uid 1001 does not own job 7 in Slurm's view");
  EXPECT_FALSE(changed);  // no journal write of its own (a flood of them held the daemon)
  EXPECT_TRUE(st.ledger().entries.empty());
  ASSERT_EQ(st.recent().size(), 1u);
  EXPECT_NE(st.recent().back().find("\"refused\""), std::string::npos);
  // Its owner: the bid stands (window 0 still takes one round), then the claim.
  r = st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1000, 101, changed);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(changed);
  EXPECT_EQ(r.held, (std::vector<std::string>{"node1", "node2"}));
  for (int k = 0; k < 3 && r.arbitration.rule != "acquire"; ++k)
    r = st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1000, 102 + k, changed);
  ASSERT_EQ(r.arbitration.rule, "acquire") << r.arbitration.plan.why;
  EXPECT_EQ(r.arbitration.plan.kind, slurm::Plan::Kind::Acquire);
  EXPECT_FALSE(r.arbitration.plan.nodes.empty());
  const auto claims = [&] {
    int n = 0;
    for (const auto& e : st.ledger().entries) n += e.kind == slurm::LedgerEntry::Kind::Claim && e.job == "7";
    return n;
  };
  EXPECT_EQ(claims(), 1);
  // Job 8's owner may not settle job 7; job 7's may.
  Request s;
  s.kind = Request::Kind::Settle;
  s.job.id = "7";
  EXPECT_FALSE(st.handle(s, 1001, 110, changed).ok);
  EXPECT_EQ(claims(), 1);
  EXPECT_TRUE(st.handle(s, 1000, 110, changed).ok);
  EXPECT_EQ(claims(), 0);
}

// Status is private: a user sees its own jobs, their ledger entries and decisions and its
// own refusals; root and SlurmUser see everything. Nothing in a user's status names
// another user's uid or job.
TEST(ArbiterState, AUserSeesOnlyItsOwnJobsRootAndSlurmUserSeeAll) {
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  so.slurm_user = 64030;
  ArbiterState st(so);
  st.set_view(two_jobs(100), kOwners);
  bool changed = false;
  for (int k = 0; k < 3; ++k) st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1000, 101 + k, changed);
  st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1001, 105, changed);  // B about A's job: refused
  st.handle(arbitrate_request("8", {"node3", "node4"}, 0), 1001, 106, changed);
  const auto status_of = [&](std::uint32_t uid) {
    const Reply r = st.handle(Request{}, uid, 110, changed);
    EXPECT_TRUE(r.ok);
    return nlohmann::json::parse(r.status_json);
  };
  const auto ids = [](const nlohmann::json& s) {
    std::vector<std::string> out;
    for (const auto& j : s["jobs"]) out.push_back(j["id"]);
    return out;
  };
  const nlohmann::json b = status_of(1001);
  EXPECT_EQ(ids(b), std::vector<std::string>{"8"});
  for (const auto& e : b["ledger"]) EXPECT_EQ(e["job"], "8") << e.dump();
  const std::string text = b.dump();
  EXPECT_EQ(text.find("1000"), std::string::npos) << "uid 1001's status names uid 1000: " << text;
  EXPECT_EQ(text.find("pdgemm"), std::string::npos) << "uid 1001's status names job 7's name: " << text;
  for (const auto& d : b["recent"])
    EXPECT_TRUE(!d.contains("job") || d["job"] == "8") << "uid 1001 sees a decision about another job: " << d.dump();
  bool own_refusal = false;
  for (const auto& d : b["recent"]) own_refusal = own_refusal || (d.contains("refused") && d["uid"] == 1001);
  EXPECT_TRUE(own_refusal) << "uid 1001 does not see its own refusal";
  const nlohmann::json a = status_of(1000);
  EXPECT_EQ(ids(a), std::vector<std::string>{"7"});
  EXPECT_EQ(a.dump().find("1001"), std::string::npos) << a.dump();
  for (const std::uint32_t all : {0u, 64030u}) {
    const nlohmann::json s = status_of(all);
    EXPECT_EQ(ids(s), (std::vector<std::string>{"7", "8"})) << all;
    EXPECT_NE(s.dump().find("does not own job 7"), std::string::npos) << all;
  }
}

TEST(ArbiterState, AHeldJobNeitherBidsNorClaims) {
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  ArbiterState st(so);
  st.set_view(two_jobs(100), kOwners);
  Request q = arbitrate_request("8", {"node3", "node4"}, 5);
  q.hold = true;
  bool changed = false;
  Reply r;
  for (int k = 0; k < 3; ++k) r = st.handle(q, 1001, 101 + k, changed);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.arbitration.plan.kind, slurm::Plan::Kind::None);
  for (const auto& e : st.ledger().entries) EXPECT_NE(e.kind, slurm::LedgerEntry::Kind::Claim);
}

TEST(ArbiterState, AJobOutsideTheViewIsAskedToComeBack) {
  ArbiterState st(StateOptions{});
  st.set_view(two_jobs(100), {{"7", 1000}, {"8", 1001}, {"9", 1000}});
  bool changed = true;
  const Reply r = st.handle(arbitrate_request("9", {"node9"}, 1), 1000, 101, changed);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(changed);
  EXPECT_NE(r.error.find("ask again later"), std::string::npos);
}

// Any user can fill the recent decisions (its refusals are kept), and a status request
// then asked for more than a frame: the daemon's reply threw and stopped it (seen on the
// emulated cluster with --recent 100000). The status leaves the oldest decisions out to fit.
TEST(ArbiterState, AStatusFitsAFrameLeavingOutTheOldestDecisions) {
  StateOptions so;
  so.recent = 5000;
  ArbiterState st(so);
  st.set_view(two_jobs(100), kOwners);
  for (int i = 0; i < 3000; ++i)
    st.note_refusal(1001, "bad request #" + std::to_string(i) + " " + std::string(60, 'x'), 100 + i);
  ASSERT_EQ(st.recent().size(), 3000u);
  bool changed = false;
  Request q;
  q.kind = Request::Kind::Status;
  const Reply r = st.handle(q, 1001, 5000, changed);
  ASSERT_TRUE(r.ok);
  EXPECT_LE(r.status_json.size(), kMaxStatus);
  EXPECT_NO_THROW(frame(encode_reply(r, Request::Kind::Status)));
  EXPECT_NE(r.status_json.find("bad request #2999 "), std::string::npos);  // the newest kept
  EXPECT_EQ(r.status_json.find("bad request #0 "), std::string::npos);     // the oldest left out
  EXPECT_NE(r.status_json.find("\"recent_left_out\":"), std::string::npos);
  EXPECT_NE(r.status_json.find("\"jobs\":"), std::string::npos);
  // The most that fit: one more would not.
  const std::string tight = st.status_json(5000, 0, 2000);
  EXPECT_LE(tight.size(), 2000u);
  EXPECT_NE(tight.find("bad request #2999 "), std::string::npos);
  // Small enough to fit whole: nothing left out.
  ArbiterState small(so);
  small.set_view(two_jobs(100), kOwners);
  small.note_refusal(1001, "one", 101);
  EXPECT_EQ(small.status_json(102, 0).find("recent_left_out"), std::string::npos);
  // Too small for the jobs and the ledger alone: said, within the bound.
  const std::string none = st.status_json(5000, 0, 150);
  EXPECT_LE(none.size(), 600u);
  EXPECT_NE(none.find("does not fit"), std::string::npos);
}

// Before per-uid lists, 250 refused requests of uid 1001 evicted every decision of uid 1000's job from
// the shared list (A's status: 92 entries, then 0), and the journal held none of them.
// The decisions are kept per uid, each list with its own bound.
TEST(ArbiterState, OneUsersRefusalsLeaveAnothersDecisionsInStatusAndJournal) {
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  so.recent = 40;
  ArbiterState st(so);
  st.set_view(two_jobs(100), kOwners);
  bool changed = false;
  for (int k = 0; k < 30; ++k) ASSERT_TRUE(st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1000, 101 + k, changed).ok);
  for (int k = 0; k < 250; ++k) EXPECT_FALSE(st.handle(arbitrate_request("7", {"node1"}, 5), 1001, 200 + k, changed).ok);
  const auto decisions_about_7 = [](const nlohmann::json& recent) {
    int n = 0;
    for (const auto& d : recent) n += d.is_object() && d.contains("job") && d["job"] == "7" && d.contains("rule");
    return n;
  };
  const auto refusals_of_1001 = [](const nlohmann::json& recent) {
    int n = 0;
    for (const auto& d : recent) n += d.is_object() && d.contains("refused") && d["uid"] == 1001;
    return n;
  };
  Request status;
  const nlohmann::json a = nlohmann::json::parse(st.handle(status, 1000, 500, changed).status_json);
  EXPECT_EQ(decisions_about_7(a["recent"]), 30) << a["recent"].dump();
  const nlohmann::json b = nlohmann::json::parse(st.handle(status, 1001, 500, changed).status_json);
  EXPECT_EQ(refusals_of_1001(b["recent"]), 40);  // its own bound: the newest 40
  EXPECT_EQ(decisions_about_7(b["recent"]), 0);
  // The journal keeps both users' lists, and a restart gives each back under its uid.
  const nlohmann::json journal = nlohmann::json::parse(st.journal());
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : journal["recent"]) lines.push_back(nlohmann::json::parse(l.get<std::string>()));
  EXPECT_EQ(decisions_about_7(lines), 30);
  EXPECT_EQ(refusals_of_1001(lines), 40);
  ArbiterState back(so);
  back.restore(st.journal());
  back.set_view(two_jobs(600), kOwners);
  EXPECT_EQ(back.recent(), st.recent());
  for (int k = 0; k < 250; ++k) back.note_refusal(1001, std::string("flood ").append(std::to_string(k)), 700 + k);
  const nlohmann::json a2 = nlohmann::json::parse(back.handle(status, 1000, 1000, changed).status_json);
  EXPECT_EQ(decisions_about_7(a2["recent"]), 30) << "after a restart, uid 1001's refusals pushed uid 1000's decisions out";
}

// Each uid's list is bounded by --recent, and the number of uids by kMaxRecentUids: a uid
// new past it takes the place of the uid whose newest decision is the oldest.
TEST(ArbiterState, RecentDecisionsAreBoundedPerUidAndInUids) {
  StateOptions so;
  so.recent = 3;
  ArbiterState st(so);
  for (int k = 0; k < 10; ++k) st.note_refusal(1000, std::string("a").append(std::to_string(k)), k);
  for (int k = 0; k < 5; ++k) st.note_refusal(1001, std::string("b").append(std::to_string(k)), 10 + k);
  ASSERT_EQ(st.recent_of(1000).size(), 3u);
  EXPECT_NE(st.recent_of(1000).back().find("\"a9\""), std::string::npos);
  EXPECT_NE(st.recent_of(1000).front().find("\"a7\""), std::string::npos);
  ASSERT_EQ(st.recent_of(1001).size(), 3u);
  EXPECT_EQ(st.recent().size(), 6u);
  // Oldest first across uids: a7 a8 a9 b2 b3 b4.
  EXPECT_NE(st.recent().front().find("\"a7\""), std::string::npos);
  EXPECT_NE(st.recent().back().find("\"b4\""), std::string::npos);
  // Many uids: the lists of the stalest uids go first, uid 1001's (newer) stays longest.
  for (std::uint32_t u = 0; u < ArbiterState::kMaxRecentUids - 2; ++u) st.note_refusal(50000 + u, "x", 100);
  EXPECT_EQ(st.recent_of(1000).size(), 3u);  // 4096 uids: all kept
  st.note_refusal(90000, "one more uid", 200);
  EXPECT_TRUE(st.recent_of(1000).empty());   // the stalest list made room
  EXPECT_EQ(st.recent_of(1001).size(), 3u);
  EXPECT_EQ(st.recent_of(90000).size(), 1u);
  st.note_refusal(1000, "back", 300);
  EXPECT_EQ(st.recent_of(1000).size(), 1u);
  EXPECT_EQ(st.recent_of(1001).size(), 0u);  // now the stalest
}

// Before expanders were known by id, a pending job named "malleable-*" was dropped from every waiting list by its
// name alone (any user may name a job so). Expander jobs are known by their ids, as the
// job that submitted them reports them, and only its owner's jobs count.
TEST(ArbiterState, ExpanderJobsAreKnownByTheirIdsFromTheirOwnerNotByName) {
  const std::string squeue =
      "7|RUNNING|2|node[1-2]|pdgemm|None|prio=10|submit=2026-01-01T00:00:00|part=batch|start=N/A|plan=(null)|qos=normal|uid=1000|\n"
      "8|RUNNING|2|node[3-4]|jacobi|None|prio=10|submit=2026-01-01T00:00:00|part=batch|start=N/A|plan=(null)|qos=normal|uid=1001|\n"
      "20|PENDING|1||malleable-expand-7|Priority|prio=9|submit=2026-01-01T00:00:01|part=batch|start=N/A|plan=(null)|qos=normal|uid=1001|\n"
      "21|PENDING|1||anything|Priority|prio=9|submit=2026-01-01T00:00:02|part=batch|start=N/A|plan=(null)|qos=normal|uid=1000|\n"
      "22|PENDING|1||rigid|Priority|prio=9|submit=2026-01-01T00:00:03|part=batch|start=N/A|plan=(null)|qos=normal|uid=1001|\n";
  slurm::ClusterView v = slurm::make_view(100, slurm_snapshot::records(squeue), "idle node[5-6]\n");
  const auto pending = [](const slurm::Snapshot& s) {
    std::vector<std::string> ids;
    for (const auto& j : s.pending) ids.push_back(j.id);
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  // B's job named like an expander of job 7 waits like any other job.
  EXPECT_EQ(pending(slurm::snapshot_of(v, "7")), (std::vector<std::string>{"20", "21", "22"}));
  v.expanders = {"21"};
  EXPECT_EQ(pending(slurm::snapshot_of(v, "7")), (std::vector<std::string>{"20", "22"}));
  // The daemon: job 7 (uid 1000) reports 21 (its own) and 22 (uid 1001's): only 21 counts.
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  ArbiterState st(so);
  st.set_view(slurm::make_view(100, slurm_snapshot::records(squeue), "idle node[5-6]\n"),
              owners_of(slurm::make_view(100, slurm_snapshot::records(squeue), "").jobs));
  EXPECT_TRUE(st.view().expanders.empty());
  Request q = arbitrate_request("7", {"node1", "node2"}, 5);
  q.expanders = {"21", "22", "99"};
  bool changed = false;
  ASSERT_TRUE(st.handle(q, 1000, 101, changed).ok);
  EXPECT_EQ(st.view().expanders, (std::set<std::string>{"21"}));
  // Kept across views while the job is in them; its next request without them drops them.
  st.set_view(slurm::make_view(102, slurm_snapshot::records(squeue), "idle node[5-6]\n"),
              owners_of(slurm::make_view(102, slurm_snapshot::records(squeue), "").jobs));
  EXPECT_EQ(st.view().expanders, (std::set<std::string>{"21"}));
  q.expanders.clear();
  ASSERT_TRUE(st.handle(q, 1000, 103, changed).ok);
  EXPECT_TRUE(st.view().expanders.empty());
}

TEST(ArbiterState, TheJournalKeepsEveryClaimOnceAcrossARestart) {
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  ArbiterState a(so);
  a.set_view(two_jobs(100), kOwners);
  bool changed = false;
  for (int k = 0; k < 3; ++k) a.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1000, 101 + k, changed);
  ASSERT_FALSE(a.ledger().entries.empty());
  ArbiterState b(so);
  b.restore(a.journal());
  EXPECT_EQ(b.ledger().entries, a.ledger().entries);
  EXPECT_EQ(b.recent(), a.recent());
  // Restored twice (a restart after a restart): still one entry per job and kind.
  b.restore(b.journal());
  EXPECT_EQ(b.ledger().entries, a.ledger().entries);
  // The arbitration after the restart sees the claim: job 8 is not given job 7's nodes.
  b.set_view(two_jobs(104), kOwners);
  Reply r;
  for (int k = 0; k < 3; ++k) r = b.handle(arbitrate_request("8", {"node3", "node4"}, 5), 1001, 104 + k, changed);
  ASSERT_TRUE(r.ok);
  for (const auto& n : r.arbitration.plan.nodes) {
    for (const auto& e : a.ledger().entries) {
      if (e.kind == slurm::LedgerEntry::Kind::Claim) {
        EXPECT_EQ(std::count(e.nodes.begin(), e.nodes.end(), n), 0) << n;
      }
    }
  }
  // A journal it cannot read is an error, and the state stays as it was.
  const auto kept = b.ledger().entries;
  EXPECT_THROW(b.restore("{\"version\":1}"), Error);
  EXPECT_THROW(b.restore("garbage"), Error);
  EXPECT_EQ(b.ledger().entries, kept);
}

TEST(ArbiterReply, RoundTripsAPlanAndARefusal) {
  Reply r;
  r.ok = true;
  r.arbitration.plan.kind = slurm::Plan::Kind::Acquire;
  r.arbitration.plan.nodes = {"node5"};
  r.arbitration.plan.why = "wins";
  r.arbitration.rule = "acquire";
  r.held = {"node1"};
  r.idle = {"node5", "node6"};
  const Reply b = parse_reply(encode_reply(r, Request::Kind::Arbitrate), Request::Kind::Arbitrate);
  EXPECT_EQ(b.arbitration.plan.kind, slurm::Plan::Kind::Acquire);
  EXPECT_EQ(b.arbitration.plan.nodes, r.arbitration.plan.nodes);
  EXPECT_EQ(b.arbitration.rule, "acquire");
  EXPECT_EQ(b.idle, r.idle);
  Reply no;
  no.error = "refused: x";
  EXPECT_EQ(parse_reply(encode_reply(no, Request::Kind::Settle), Request::Kind::Settle).error, "refused: x");
  EXPECT_THROW(parse_reply("{\"ok\":true}", Request::Kind::Arbitrate), Error);
  EXPECT_THROW(parse_reply("nope", Request::Kind::Status), Error);
}

// A reply's node names are checked as a request's are: a name holding a shell's separator,
// a blank or a line end (a forged reply's way to a command line) is refused with an Error,
// in the plan, the held and the idle nodes alike; so is a count out of range.
TEST(ArbiterReply, NodeNamesInAReplyAreCheckedAsRequestsNamesAre) {
  Reply r;
  r.ok = true;
  r.arbitration.plan.kind = slurm::Plan::Kind::Acquire;
  r.arbitration.plan.nodes = {"node5"};
  r.arbitration.rule = "acquire";
  r.held = {"node1"};
  r.idle = {"node5"};
  EXPECT_NO_THROW(parse_reply(encode_reply(r, Request::Kind::Arbitrate), Request::Kind::Arbitrate));
  for (const std::string bad : {"node5;touch /tmp/x", "node5 -p other", "node[5-6]", "$(id)", "", "a\nb"}) {
    for (int where = 0; where < 3; ++where) {
      Reply f = r;
      (where == 0 ? f.arbitration.plan.nodes : where == 1 ? f.held : f.idle) = {bad};
      EXPECT_THROW(parse_reply(encode_reply(f, Request::Kind::Arbitrate), Request::Kind::Arbitrate), Error)
          << "'" << bad << "' in " << where;
    }
  }
  Reply many = r;
  many.arbitration.plan.acquire = -5;
  EXPECT_THROW(parse_reply(encode_reply(many, Request::Kind::Arbitrate), Request::Kind::Arbitrate), Error);
  Reply other = r;
  other.arbitration.for_job = "7;rm";
  EXPECT_THROW(parse_reply(encode_reply(other, Request::Kind::Arbitrate), Request::Kind::Arbitrate), Error);
}

// sacctmgr's QOS table in the daemon: asked with the first view and then at most once per
// qos_interval_s; a failure logged once (not at every ask), the last table read kept; the
// limits applied to a growth, with the reason in the reply and the recent decisions.
TEST(ArbiterState, QosLimitsAreAskedSeldomLoggedOnceAndApplied) {
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  so.qos_interval_s = 60;
  ArbiterState st(so);
  EXPECT_TRUE(st.qos_due(100));  // never asked
  // Jobs 7 (uid 1000, small, 2 nodes) and 8 (uid 1001, small, 2 nodes); node[5-6] idle.
  const auto view = [](double t) {
    return slurm::make_view(t,
                            slurm_snapshot::records("7|RUNNING|2|node[1-2]|pdgemm|None|prio=1|submit=|part=|start=|plan=|qos=small|uid=1000|\n"
                            "8|RUNNING|2|node[3-4]|jacobi|None|prio=1|submit=|part=|start=|plan=|qos=small|uid=1001|\n"),
                            "idle node[5-6]\n");
  };
  EXPECT_EQ(st.set_qos(slurm::Command{0, "normal|||\nsmall|||node=5\n"}, 100), "QOS limits: 2 QOS, node limits in small");
  st.set_view(view(100), kOwners);
  EXPECT_FALSE(st.qos_due(159));
  EXPECT_TRUE(st.qos_due(160));
  EXPECT_EQ(st.set_qos(slurm::Command{0, "normal|||\nsmall|||node=5\n"}, 160), "");  // the same: nothing to say
  st.set_view(view(161), kOwners);  // a new view keeps the table
  bool changed = false;
  Reply r;
  for (int k = 0; k < 3 && r.arbitration.rule != "acquire"; ++k)
    r = st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1000, 161 + k, changed);
  ASSERT_EQ(r.arbitration.rule, "acquire") << r.arbitration.plan.why;
  EXPECT_EQ(r.arbitration.plan.nodes.size(), 1u);  // GrpTRES 5, the QOS holds 4
  EXPECT_NE(r.arbitration.plan.why.find("qos small: GrpTRES node=5"), std::string::npos) << r.arbitration.plan.why;
  EXPECT_NE(st.recent().back().find("qos small: GrpTRES node=5"), std::string::npos) << st.recent().back();
  // slurmdbd goes away: one line, the table read before stays applied.
  const std::string line = st.set_qos(slurm::Command{1, "sacctmgr: error: Problem talking to the database"}, 220);
  EXPECT_NE(line.find("not read again: sacctmgr failed (status 1): sacctmgr: error: Problem talking"), std::string::npos) << line;
  EXPECT_NE(line.find("stays applied"), std::string::npos) << line;
  EXPECT_EQ(st.set_qos(slurm::Command{1, "sacctmgr: error: Problem talking to the database"}, 280), "");
  EXPECT_EQ(st.set_qos(slurm::Command{0, "small|||node=5\nsmall x\n"}, 340), "");  // unreadable: still failing
  nlohmann::json status = nlohmann::json::parse(st.status_json(341, 0));
  EXPECT_EQ(status["qos"]["applied"], true);
  EXPECT_EQ(status["qos"]["read_at"], 160);
  EXPECT_NE(status["qos"]["error"].get<std::string>().find("cannot be read"), std::string::npos) << status["qos"];
  EXPECT_EQ(status["qos"]["limits"]["small"]["GrpTRES"], 5);
  EXPECT_EQ(status["jobs"][0]["qos"], "small");
  EXPECT_EQ(st.set_qos(slurm::Command{0, "small|||node=6\n"}, 400), "sacctmgr answers again: QOS limits: 1 QOS, node limits in small");
}

TEST(ArbiterState, WithoutSacctmgrNoQosLimitIsAppliedAndItIsSaidOnce) {
  StateOptions so;
  so.arbiter.bid_window_s = 0;
  ArbiterState st(so);
  const std::string line = st.set_qos(slurm::Command{1, "You are not running a supported accounting_storage plugin\n"
                                                         "Only 'accounting_storage/slurmdbd' is supported.\n"},
                                      100);  // Slurm 22.05 without accounting, as on the emulated cluster
  EXPECT_NE(line.find("QOS limits unknown: sacctmgr failed (status 1): You are not running a supported "
                      "accounting_storage plugin Only 'accounting_storage/slurmdbd' is supported."),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(st.set_qos(slurm::Command{127, "sh: 1: sacctmgr: not found"}, 130), "");  // still failing: said once
  ArbiterState absent(so);
  const std::string none = absent.set_qos(slurm::Command{127, "sh: 1: sacctmgr: not found"}, 100);
  EXPECT_NE(none.find("QOS limits unknown: sacctmgr failed (status 127)"), std::string::npos) << none;
  EXPECT_NE(none.find("no QOS limit is applied"), std::string::npos) << none;
  EXPECT_EQ(st.set_qos(slurm::Command{127, "sh: 1: sacctmgr: not found"}, 160), "");
  st.set_view(two_jobs(160), kOwners);
  bool changed = false;
  Reply r;
  for (int k = 0; k < 3 && r.arbitration.rule != "acquire"; ++k)
    r = st.handle(arbitrate_request("7", {"node1", "node2"}, 5), 1000, 161 + k, changed);
  ASSERT_EQ(r.arbitration.rule, "acquire") << r.arbitration.plan.why;
  EXPECT_EQ(r.arbitration.plan.nodes.size(), 2u);  // both idle nodes: no limit known
  const nlohmann::json status = nlohmann::json::parse(st.status_json(170, 0));
  EXPECT_EQ(status["qos"]["applied"], false);
  EXPECT_NE(status["qos"]["error"].get<std::string>().find("no QOS limit applied"), std::string::npos) << status["qos"];
  // --qos-interval 0: never asked.
  StateOptions off;
  off.qos_interval_s = 0;
  EXPECT_FALSE(ArbiterState(off).qos_due(100));
}

TEST(ArbiterOptions, CommandLineOverTheConfigurationFile) {
  const DaemonOptions o = parse_daemon_options({"--interval", "5", "--socket=/tmp/s"},
                                               "# comment\ninterval = 3\nslurm-user = 64030\nmax-connections=8\n");
  EXPECT_DOUBLE_EQ(o.state.interval_s, 5);
  EXPECT_EQ(o.server.socket, "/tmp/s");
  EXPECT_EQ(o.slurm_user, "64030");
  EXPECT_EQ(o.server.max_connections, 8u);
  EXPECT_EQ(o.server.state_dir, "/var/lib/malleable-arbiter");
  EXPECT_DOUBLE_EQ(o.state.qos_interval_s, 60);
  EXPECT_DOUBLE_EQ(parse_daemon_options({"--qos-interval", "0"}, "").state.qos_interval_s, 0);
  EXPECT_DOUBLE_EQ(parse_daemon_options({}, "qos-interval = 300\n").state.qos_interval_s, 300);
  EXPECT_THROW(parse_daemon_options({"--qos-interval", "-1"}, ""), Error);
  EXPECT_THROW(parse_daemon_options({"--interval", "0"}, ""), Error);
  EXPECT_THROW(parse_daemon_options({"--bogus", "1"}, ""), Error);
  EXPECT_THROW(parse_daemon_options({}, "interval 3\n"), Error);
  EXPECT_THROW(parse_daemon_options({"--socket"}, ""), Error);
  EXPECT_EQ(config_path({"--config", "/etc/x.conf"}), "/etc/x.conf");
}

TEST(ArbiterOptions, PerUidCapAndSocketGroup) {
  const DaemonOptions d = parse_daemon_options({}, "");
  EXPECT_EQ(d.server.max_connections_per_uid, 8u);
  EXPECT_EQ(d.server.socket_group, "");  // the socket 0666
  const DaemonOptions o = parse_daemon_options({"--max-connections-per-uid", "3"}, "socket-group = hpc\n");
  EXPECT_EQ(o.server.max_connections_per_uid, 3u);
  EXPECT_EQ(o.server.socket_group, "hpc");
  EXPECT_THROW(parse_daemon_options({"--max-connections-per-uid", "0"}, ""), Error);
  EXPECT_THROW(parse_daemon_options({"--max-connections-per-uid", "x"}, ""), Error);
  EXPECT_THROW(parse_daemon_options({"--socket-group="}, ""), Error);
}

TEST(ArbiterAddress, HostAndPortForTheTcpListener) {
  const HostPort v4 = parse_host_port("127.0.0.1:7070", false);
  EXPECT_EQ(v4.host, "127.0.0.1");
  EXPECT_EQ(v4.port, 7070);
  const HostPort v6 = parse_host_port("[::1]:65535", false);
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 65535);
  EXPECT_EQ(to_string(v6), "[::1]:65535");
  const HostPort any = parse_host_port("*:7070", false);
  EXPECT_EQ(any.host, "");
  EXPECT_EQ(to_string(any), "*:7070");
  EXPECT_EQ(parse_host_port("node0.cluster:1", false).host, "node0.cluster");
  EXPECT_EQ(parse_host_port("[fe80::1%eth0]:9", false).host, "fe80::1%eth0");
  EXPECT_EQ(parse_host_port("127.0.0.1:0", true).port, 0);  // the kernel chooses (tests)
  for (const char* bad : {"127.0.0.1:0", "127.0.0.1", "127.0.0.1:", ":7070", "::1:7070", "[::1]7070", "[::1:7070",
                          "[]:7070", "[node0]:7070", "h:65536", "h:-1", "h:12x", "h:000000007", "no host:1", ""})
    EXPECT_THROW(parse_host_port(bad, false), Error) << bad;
}

TEST(ArbiterAddress, RESIZE_ARBITERIsASocketPathOrTcp) {
  const ArbiterAddress path = parse_arbiter_address("/run/malleable-arbiter/socket");
  EXPECT_FALSE(path.tcp);
  EXPECT_EQ(path.path, "/run/malleable-arbiter/socket");
  const ArbiterAddress tcp = parse_arbiter_address("tcp://arbiter.cluster:7070");
  EXPECT_TRUE(tcp.tcp);
  EXPECT_EQ(tcp.where.host, "arbiter.cluster");
  EXPECT_EQ(tcp.where.port, 7070);
  EXPECT_EQ(parse_arbiter_address("tcp://[::1]:7070").where.host, "::1");
  for (const char* bad : {"", "tcp://", "tcp://*:7070", "tcp://h:0", "tcp://h", "tcp://[::1]"})
    EXPECT_THROW(parse_arbiter_address(bad), Error) << bad;
}

TEST(ArbiterOptions, ListenIsCheckedWhenParsed) {
  EXPECT_EQ(parse_daemon_options({"--listen", "[::]:7070"}, "").server.listen, "[::]:7070");
  EXPECT_EQ(parse_daemon_options({}, "listen = 127.0.0.1:0\n").server.listen, "127.0.0.1:0");
  EXPECT_TRUE(parse_daemon_options({}, "").server.listen.empty());
  EXPECT_THROW(parse_daemon_options({"--listen", "7070"}, ""), Error);
  EXPECT_THROW(parse_daemon_options({}, "listen = ::1:7070\n"), Error);
}

TEST(ArbiterConnCap, TheNPlusFirstOfOneUidIsRefusedAnotherUidStillGetsIn) {
  ConnCap cap(3);
  bool log = true;
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(cap.admit("uid 1000", 10, &log));
  EXPECT_FALSE(log);
  EXPECT_EQ(cap.open("uid 1000"), 3u);
  EXPECT_FALSE(cap.admit("uid 1000", 10, &log));
  EXPECT_TRUE(log);  // the first refusal of this uid in this minute is logged
  EXPECT_FALSE(cap.admit("uid 1000", 30, &log));
  EXPECT_FALSE(log);  // the same minute: not again
  EXPECT_TRUE(cap.admit("uid 1001", 30, &log));
  EXPECT_TRUE(cap.admit("uid 0", 30, &log));  // root is capped too, but has its own count
  EXPECT_FALSE(cap.admit("uid 1000", 61, &log));
  EXPECT_TRUE(log);  // a new minute: one line again
  EXPECT_EQ(cap.refused(), 3u);
  cap.release("uid 1000");
  EXPECT_EQ(cap.open("uid 1000"), 2u);
  EXPECT_TRUE(cap.admit("uid 1000", 62, &log));  // a freed slot is usable again
  for (int i = 0; i < 3; ++i) cap.release("uid 1000");
  EXPECT_EQ(cap.open("uid 1000"), 0u);
  cap.release("uid 1000");  // a release without a connection changes nothing
  EXPECT_EQ(cap.open("uid 1000"), 0u);
  EXPECT_TRUE(cap.admit("tcp 10.0.0.1", 62, &log));
}

// --max-connections within the open-file limit: what the limit leaves beside the
// daemon's own descriptors, never more than wanted, none when it leaves nothing.
TEST(ArbiterConnCap, ConnectionsStayWithinTheOpenFileLimit) {
  EXPECT_EQ(connections_within(256, 1024), 256u);
  EXPECT_EQ(connections_within(256, 64), 64u - kReservedFds);
  EXPECT_EQ(connections_within(256, kReservedFds), 0u);
  EXPECT_EQ(connections_within(256, 0), 0u);
  EXPECT_EQ(connections_within(8, ~0ULL), 8u);
}

// Admission: the unauthenticated pool full, the oldest connection of the peer group
// holding the most is closed to make room (a flood pushes out only its own); a new one is
// turned away only when every connection is authenticated; authenticated requests are
// capped per uid.
TEST(ArbiterAdmission, AFloodPushesOutOnlyItsOwnAndEveryUidHasItsCap) {
  Admission a(6, 4, 2);
  const Peer b1 = tcp_peer("10.0.0.2"), b2 = tcp_peer("10.0.0.3"), a_unix{"uid 1000", "uid 1000"};
  EXPECT_EQ(b1.group, "net 10.0.0.0/24");
  EXPECT_EQ(b1.address, "address 10.0.0.2");
  EXPECT_EQ(tcp_peer("::ffff:10.0.0.9").group, "net 10.0.0.0/24");
  EXPECT_EQ(tcp_peer("fd00::1:2:3:4:5").group, "net fd00:0:0:1::/64");
  std::uint64_t id = 1;
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(a.arrive(id++, k % 2 ? b2 : b1, k).admit);  // ids 1-4: B's flood
  // A arrives: the pool is full: B's oldest of its largest address goes (id 1, at t=0).
  Admission::Arrival in = a.arrive(id++, a_unix, 10);
  EXPECT_TRUE(in.admit);
  EXPECT_EQ(in.evict, 1u);
  // B again: its own oldest goes, never A's (A's group holds one, B's three).
  in = a.arrive(id++, b1, 11);
  EXPECT_TRUE(in.admit);
  EXPECT_NE(in.evict, 5u);
  EXPECT_EQ(a.evicted(), 2u);
  // A is authenticated: out of the pool.
  EXPECT_TRUE(a.authenticated(5, 1000));
  EXPECT_EQ(a.unauthenticated(), 3u);
  // The per-uid cap of authenticated requests.
  EXPECT_TRUE(a.arrive(id, a_unix, 12).admit);
  EXPECT_TRUE(a.authenticated(id++, 1000));
  EXPECT_TRUE(a.arrive(id, a_unix, 13).admit);
  EXPECT_FALSE(a.authenticated(id++, 1000));  // its third at once
  EXPECT_EQ(a.over_uid_cap(), 1u);
  a.gone(5);
  // Every connection authenticated: a new one is turned away.
  Admission full(2, 2, 8);
  full.arrive(1, b1, 0);
  full.arrive(2, b2, 0);
  full.authenticated(1, 7);
  full.authenticated(2, 8);
  EXPECT_FALSE(full.arrive(3, a_unix, 1).admit);
  EXPECT_EQ(full.turned_away(), 1u);
  full.gone(1);
  EXPECT_TRUE(full.arrive(4, a_unix, 2).admit);
}

// Operators (--operators) see every job in their status, as root and SlurmUser do, and may
// still not ask about another user's job; a job whose squeue record cannot be read is
// nobody's to act for.
TEST(ArbiterState, OperatorsSeeEveryJobAndAnUnreadableJobIsNobodys) {
  StateOptions so;
  so.slurm_user = 64030;
  so.operators = {2000};
  ArbiterState st(so);
  slurm::ClusterView v = two_jobs(100);
  v.unreadable["9"] = "listed twice by squeue";
  st.set_view(v, kOwners);
  bool changed = false;
  const nlohmann::json s = nlohmann::json::parse(st.handle(Request{}, 2000, 101, changed).status_json);
  EXPECT_EQ(s["jobs"].size(), 2u);
  EXPECT_NE(std::string(s["scope"]).find("every job"), std::string::npos);
  EXPECT_FALSE(st.handle(arbitrate_request("7", {"node1"}, 1), 2000, 102, changed).ok);
  const Reply r = st.handle(arbitrate_request("9", {"node9"}, 1), 0, 103, changed);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("cannot be read (listed twice by squeue)"), std::string::npos) << r.error;
}

TEST(ArbiterOptions, OperatorsAreAListOfUsers) {
  const DaemonOptions o = parse_daemon_options({"--operators", "alice, 1234,bob"}, "");
  EXPECT_EQ(o.operators, (std::vector<std::string>{"alice", "1234", "bob"}));
  EXPECT_EQ(parse_daemon_options({}, "operators = carol\n").operators, std::vector<std::string>{"carol"});
}
