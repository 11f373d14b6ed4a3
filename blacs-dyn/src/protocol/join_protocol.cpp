// SPDX-License-Identifier: BSD-3-Clause
// Growing by joining, the plain logic (join_protocol.hpp): records, checks, messages and
// the job's bookkeeping of the launches it joins. Pure.
#include "protocol/join_protocol.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "malleable/blacs_dyn/error.hpp"

namespace blacs_dyn::join {

using malleable::wire::Kind;
using malleable::wire::Reader;

namespace {

constexpr std::size_t kMaxRecord = 16384;  // bytes of a record file
constexpr std::size_t kMaxValue = 4096;    // bytes of one value (a port name is < 1024)

// "key value" lines; every key of `keys` exactly once, no other.
std::map<std::string, std::string> read_lines(std::string_view text, const std::string& where,
                                              std::initializer_list<const char*> keys) {
  const auto bad = [&](const std::string& why) { throw blacs_dyn::Error(BLACS_DYN_ERR_JOIN, where + ": " + why); };
  if (text.size() > kMaxRecord) bad(std::to_string(text.size()) + " bytes, more than a record holds");
  std::map<std::string, std::string> out;
  std::size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view l = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (l.empty()) continue;
    const std::size_t sp = l.find(' ');
    const std::string key(l.substr(0, sp));
    const std::string value(sp == std::string_view::npos ? std::string_view() : l.substr(sp + 1));
    if (std::find_if(keys.begin(), keys.end(), [&](const char* k) { return key == k; }) == keys.end())
      bad("line " + std::to_string(line) + ": unknown key '" + key.substr(0, 40) + "'");
    if (value.size() > kMaxValue) bad("line " + std::to_string(line) + ": the value of '" + key + "' is too long");
    for (char c : value)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        bad("line " + std::to_string(line) + ": a control character in the value of '" + key + "'");
    if (!out.emplace(key, value).second) bad("line " + std::to_string(line) + ": '" + key + "' given twice");
  }
  for (const char* k : keys)
    if (!out.count(k)) bad("no '" + std::string(k) + "' line");
  return out;
}

long long number(const std::map<std::string, std::string>& m, const char* key, long long lo, long long hi,
                 const std::string& where) {
  const std::string& v = m.at(key);
  long long x = 0;
  bool ok = !v.empty() && v.size() <= 12;
  for (char c : v) ok = ok && c >= '0' && c <= '9';
  if (ok) x = std::stoll(v);
  if (!ok || x < lo || x > hi)
    throw blacs_dyn::Error(BLACS_DYN_ERR_JOIN, where + ": '" + key + "' must be a whole number in " + std::to_string(lo) + ".." +
                             std::to_string(hi) + ", got '" + v.substr(0, 40) + "'");
  return x;
}

// A peer's text in a message of ours: printable ASCII, at most `max` bytes ('?' for the rest).
std::string shown(std::string_view s, std::size_t max = 70) {
  std::string out(s.substr(0, max));
  for (char& c : out)
    if (c < 0x20 || c >= 0x7f) c = '?';
  return out;
}

bool printable_word(std::string_view s) {
  if (s.empty() || s.size() >= 1024) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

}  // namespace

bool valid_launch_id(std::string_view id) {
  if (id.empty() || id.size() > 64 || id.front() == '.' || id.front() == '-') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

std::string format(const JobRecord& r) {
  return "incarnation " + r.incarnation + "\nprogram " + r.program + "\nhost " + r.host + "\nuid " +
         std::to_string(r.uid) + "\npid " + std::to_string(r.pid) + "\n";
}

JobRecord parse_job_record(std::string_view text, const std::string& where) {
  const auto m = read_lines(text, where, {"incarnation", "program", "host", "uid", "pid"});
  JobRecord r;
  r.incarnation = m.at("incarnation");
  r.program = m.at("program");
  r.host = m.at("host");
  r.uid = static_cast<unsigned>(number(m, "uid", 0, 4294967295LL, where));
  r.pid = static_cast<int>(number(m, "pid", 1, 2147483647LL, where));
  if (r.incarnation.empty() || r.program.empty())
    throw blacs_dyn::Error(BLACS_DYN_ERR_JOIN, where + ": an empty incarnation or program");
  return r;
}

std::string format(const JoinRequest& r) {
  return "launch " + r.launch + "\nincarnation " + r.incarnation + "\nport " + r.port + "\nhost " + r.host +
         "\nprogram " + r.program + "\nuid " + std::to_string(r.uid) + "\npid " + std::to_string(r.pid) +
         "\nprocs " + std::to_string(r.procs) + "\nat_start " + (r.at_start ? "1" : "0") + "\n";
}

JoinRequest parse_request(std::string_view text, const std::string& where) {
  const auto m = read_lines(text, where,
                            {"launch", "incarnation", "port", "host", "program", "uid", "pid", "procs", "at_start"});
  JoinRequest r;
  r.launch = m.at("launch");
  r.incarnation = m.at("incarnation");
  r.port = m.at("port");
  r.host = m.at("host");
  r.program = m.at("program");
  r.uid = static_cast<unsigned>(number(m, "uid", 0, 4294967295LL, where));
  r.pid = static_cast<int>(number(m, "pid", 1, 2147483647LL, where));
  r.procs = static_cast<int>(number(m, "procs", 1, 1 << 20, where));
  r.at_start = number(m, "at_start", 0, 1, where) == 1;
  if (!valid_launch_id(r.launch)) throw blacs_dyn::Error(BLACS_DYN_ERR_JOIN, where + ": '" + r.launch.substr(0, 70) + "' is no launch id");
  if (!printable_word(r.port)) throw blacs_dyn::Error(BLACS_DYN_ERR_JOIN, where + ": the port name is not one printable word");
  return r;
}

std::string refuse_request(const JoinRequest& req, const RequestFile& file, const JobRecord& job,
                           const JoinLimits& limits, bool at_start) {
  const std::string who = "launch " + req.launch + " (pid " + std::to_string(req.pid) + " on " + req.host + ")";
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", file.mode & 07777u);
  if (!file.regular) return who + ": its request is not a regular file";
  if (file.owner != job.uid)
    return who + ": its request belongs to uid " + std::to_string(file.owner) + ", the job runs as uid " +
           std::to_string(job.uid) + " (only the job's own user may join it)";
  if (file.mode & 077u) return who + ": its request is open to other users (mode " + mode + ", must be 0600)";
  if (req.uid != job.uid)
    return who + ": it runs as uid " + std::to_string(req.uid) + ", the job as uid " + std::to_string(job.uid);
  if (req.incarnation != job.incarnation)
    return who + ": a stale launch, started for another run of the job (run " + req.incarnation.substr(0, 32) +
           ", this run " + job.incarnation + ")";
  if (req.program != job.program)
    return who + ": a wrong program: it runs '" + req.program + "', the job runs '" + job.program + "'";
  if (req.procs < 1 || req.procs > limits.max_procs)
    return who + ": " + std::to_string(req.procs) + " processes (1.." + std::to_string(limits.max_procs) + " allowed)";
  if (req.at_start && !at_start) return who + ": it was to join at the job's start, which is over";
  if (file.heartbeat_age > limits.stale_after) {
    char age[32];
    std::snprintf(age, sizeof age, "%.1f", file.heartbeat_age);
    return who + ": it stopped answering (no heartbeat for " + age + " s): it died or hangs";
  }
  return {};
}

bool same_secret(std::string_view a, std::string_view b) {
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0u;
    const unsigned y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0u;
    diff |= x ^ y;
  }
  return diff == 0 && !a.empty();
}

bool valid_nonce(std::string_view n) {
  return n.size() == 32 && std::all_of(n.begin(), n.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  static const unsigned char none = 0;
  if (!HMAC(EVP_sha256(), key.empty() ? static_cast<const void*>(&none) : static_cast<const void*>(key.data()),
            static_cast<int>(key.size()),
            message.empty() ? &none : reinterpret_cast<const unsigned char*>(message.data()), message.size(), out,
            &len))
    throw blacs_dyn::Error(BLACS_DYN_ERR_MPI, "HMAC-SHA256 failed (OpenSSL)");
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * len);
  for (unsigned i = 0; i < len; ++i) {
    hex += digits[out[i] >> 4];
    hex += digits[out[i] & 15];
  }
  return hex;
}

namespace {
// The proofs' messages: each field as its length, ':', its bytes, ';' (unambiguous
// whatever a field holds), after a label that tells the two proofs apart.
struct ProofMessage {
  std::string text;
  explicit ProofMessage(const char* label) { add(label); }
  ProofMessage& add(std::string_view f) {
    text += std::to_string(f.size());
    text += ':';
    text += f;
    text += ';';
    return *this;
  }
  ProofMessage& add(long long v) { return add(std::to_string(v)); }
};
}  // namespace

std::string job_proof(std::string_view secret, std::string_view launch, std::string_view incarnation, int rank,
                      const ProofNonces& n) {
  if (secret.empty()) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "no secret to prove");
  ProofMessage m("blacs-dyn join v2: the job");
  m.add(launch).add(incarnation).add(rank).add(n.launch).add(n.job);
  return hmac_sha256_hex(secret, m.text);
}

std::string launch_proof(std::string_view secret, const JoinHello& h, const ProofNonces& n) {
  if (secret.empty()) throw blacs_dyn::Error(BLACS_DYN_ERR_STATE, "no secret to prove");
  ProofMessage m("blacs-dyn join v2: a joining process");
  m.add(h.launch).add(h.incarnation).add(h.program).add(h.host).add(static_cast<long long>(h.uid)).add(h.pid);
  m.add(h.procs).add(h.rank).add(h.at_start ? 1 : 0).add(n.launch).add(n.job);
  return hmac_sha256_hex(secret, m.text);
}

std::string refuse_hello(const JoinHello& h, const JoinRequest& req, const JobRecord& job, std::string_view secret,
                         const ProofNonces& nonces) {
  const std::string who = "launch " + req.launch + ", process " + std::to_string(h.rank) + " (pid " +
                          std::to_string(h.pid) + " on " + shown(h.host) + ", uid " + std::to_string(h.uid) +
                          " claimed)";
  if (h.declined)
    return who + ": wrong secret: it found the job's proof wrong (it does not hold this job's secret: it could not "
                 "read the job's directory, or it is another job's launch)";
  if (secret.empty() || !same_secret(h.mac, launch_proof(secret, h, nonces)))
    return who + ": wrong secret: its proof does not match this job's secret (it could not read the job's "
                 "directory, or it is another job's launch)";
  if (h.launch != req.launch) return who + ": it says it is launch '" + shown(h.launch) + "'";
  if (h.incarnation != job.incarnation) return who + ": a stale launch, started for another run of the job";
  if (h.uid != job.uid)
    return who + ": it runs as uid " + std::to_string(h.uid) + ", the job as uid " + std::to_string(job.uid);
  if (h.program != job.program) return who + ": a wrong program: it runs '" + shown(h.program, 200) + "'";
  if (h.procs != req.procs)
    return who + ": its launch has " + std::to_string(h.procs) + " processes, its request said " +
           std::to_string(req.procs);
  if (h.rank < 0 || h.rank >= req.procs) return who + ": rank " + std::to_string(h.rank) + " out of range";
  if (h.at_start != req.at_start) return who + ": its start flag differs from its request's";
  return {};
}

namespace {
constexpr Kind kHello{0x484a4442u, 2, "blacs-dyn join hello"};    // "BDJH"
constexpr Kind kAnswer{0x414a4442u, 2, "blacs-dyn join answer"};  // "BDJA"
constexpr Kind kChallenge{0x434a4442u, 1, "blacs-dyn join challenge"};  // "BDJC"
constexpr Kind kAck{0x4b4a4442u, 1, "blacs-dyn join ack"};        // "BDJK"
constexpr Kind kStep{0x534a4442u, 1, "blacs-dyn join step"};      // "BDJS"

constexpr auto hello_fields = [](auto& v, auto& m) {
  v(m.launch);
  v(m.incarnation);
  v(m.mac);
  v(m.program);
  v(m.host);
  v(m.uid);
  v(m.pid);
  v(m.procs);
  v(m.rank);
  v(m.at_start);
  v(m.declined);
};
constexpr auto challenge_fields = [](auto& v, auto& m) {
  v(m.launch);
  v(m.nonce);
  v(m.rank);
};
constexpr auto answer_fields = [](auto& v, auto& m) {
  v.enumeration(m.kind, Answer::Refuse, Answer::Proof, "answer");
  v(m.reason);
  v(m.level);
  v(m.groups);
  v(m.mine);
  v(m.stack);
  v(m.nonce);
  v(m.mac);
};
constexpr auto step_fields = [](auto& v, auto& m) {
  v.enumeration(m.kind, StepKind::Connect, StepKind::Fail, "step");
  v(m.launch);
  v(m.port);
  v(m.host);
  v(m.reason);
  v(m.procs);
  v(m.level);
  v(m.stack);
};
constexpr auto ack_fields = [](auto& v, auto& m) {
  v(m.pid);
  v(m.level);
};
}  // namespace

std::vector<char> encode(const JoinHello& m) { return malleable::wire::encode(kHello, m, hello_fields); }
JoinHello decode_join_hello(std::span<const char> bytes) {
  return malleable::wire::decode<JoinHello>(bytes, kHello, hello_fields);
}
std::vector<char> encode(const JoinAnswer& m) { return malleable::wire::encode(kAnswer, m, answer_fields); }
JoinAnswer decode_join_answer(std::span<const char> bytes) {
  return malleable::wire::decode<JoinAnswer>(bytes, kAnswer, answer_fields, [](const JoinAnswer& m, const Reader& r) {
    if (m.kind == Answer::Prepare && (m.mine < 0 || m.groups > m.mine))
      r.fail("a prepare for group " + std::to_string(m.mine) + " after " + std::to_string(m.groups) + " groups");
    if (m.kind == Answer::Proof && (!valid_nonce(m.nonce) || m.mac.size() != 64))
      r.fail("a proof without a nonce of 32 hex digits and a 64-digit proof");
  });
}
std::vector<char> encode(const JoinChallenge& m) { return malleable::wire::encode(kChallenge, m, challenge_fields); }
JoinChallenge decode_join_challenge(std::span<const char> bytes) {
  return malleable::wire::decode<JoinChallenge>(bytes, kChallenge, challenge_fields,
                                                [](const JoinChallenge& m, const Reader& r) {
                                                  if (!valid_launch_id(m.launch) || !valid_nonce(m.nonce) || m.rank < 0)
                                                    r.fail("a challenge without a launch id, a nonce of 32 hex "
                                                           "digits or a rank");
                                                });
}
std::vector<char> encode(const JoinAck& m) { return malleable::wire::encode(kAck, m, ack_fields); }
JoinAck decode_join_ack(std::span<const char> bytes) { return malleable::wire::decode<JoinAck>(bytes, kAck, ack_fields); }
std::size_t join_ack_bytes() { return encode(JoinAck{}).size(); }
std::vector<char> encode(const JoinStep& m) { return malleable::wire::encode(kStep, m, step_fields); }
JoinStep decode_join_step(std::span<const char> bytes) {
  return malleable::wire::decode<JoinStep>(bytes, kStep, step_fields, [](const JoinStep& m, const Reader& r) {
    if (m.kind == StepKind::Connect && (!valid_launch_id(m.launch) || !printable_word(m.port) || m.procs < 1))
      r.fail("a connect step to launch '" + m.launch.substr(0, 70) + "' of " + std::to_string(m.procs) +
             " processes");
    if (m.kind == StepKind::Done && m.stack.empty()) r.fail("a done step without a stack");
  });
}

const char* to_string(LaunchState s) {
  switch (s) {
    case LaunchState::Seen: return "seen";
    case LaunchState::Refused: return "refused";
    case LaunchState::Connected: return "connected";
    case LaunchState::Authenticated: return "authenticated";
    case LaunchState::Prepared: return "prepared";
    case LaunchState::Ready: return "ready";
    case LaunchState::Merged: return "merged";
    case LaunchState::Cancelled: return "cancelled";
  }
  return "?";
}

}  // namespace blacs_dyn::join
