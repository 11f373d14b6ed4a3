// SPDX-License-Identifier: BSD-3-Clause
// The arbiter's wire protocol, pure (protocol.hpp): frames, requests, replies, validation.
#include "arbiter/protocol.hpp"

#include <nlohmann/json.hpp>

#include <sys/random.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "slurm/number.hpp"
#include "slurm/text.hpp"

namespace cluster::arbiter {

using json = nlohmann::json;
using slurm::Growth;
using slurm::Plan;

std::string frame(std::string_view payload, std::size_t max) {
  if (payload.size() > max)
    throw Error("a frame of " + std::to_string(payload.size()) + " bytes exceeds the limit of " + std::to_string(max));
  std::string out(4, '\0');
  const auto n = static_cast<std::uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((n >> (24 - 8 * i)) & 0xff);
  out.append(payload);
  return out;
}

FrameRead read_frame(std::string_view buf, std::size_t max) {
  FrameRead r;
  if (buf.size() < 4) return r;
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(buf[i]);
  if (n > max) {
    r.status = FrameRead::Status::Refused;
    r.why = "frame of " + std::to_string(n) + " bytes exceeds the limit of " + std::to_string(max);
    return r;
  }
  if (buf.size() < 4 + static_cast<std::size_t>(n)) return r;
  r.status = FrameRead::Status::Complete;
  r.payload = std::string(buf.substr(4, n));
  r.consumed = 4 + n;
  return r;
}

std::string credential_text(std::string_view payload) {
  constexpr std::string_view prefix = "MUNGE:";
  if (payload.substr(0, prefix.size()) != prefix)
    throw Error("the frame does not hold a MUNGE credential (no 'MUNGE:' at its start)");
  const std::size_t end = payload.find_first_not_of(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", prefix.size());
  if (end == std::string_view::npos) throw Error("the credential has no closing ':' (cut short)");
  if (payload[end] != ':')
    throw Error("the credential holds a byte base64 has not (at offset " + std::to_string(end) + ")");
  if (const std::size_t after = payload.size() - end - 1; after > 0)
    throw Error("trailing bytes after the credential (" + std::to_string(after) + (after == 1 ? " byte" : " bytes") +
                " after its closing ':')");
  return std::string(payload);
}

std::string to_string(Request::Kind k) {
  switch (k) {
    case Request::Kind::Arbitrate: return "arbitrate";
    case Request::Kind::Settle: return "settle";
    case Request::Kind::Status: return "status";
  }
  return "?";
}

namespace {

constexpr std::size_t kMaxText = 1024;   // a job id, a host name, a growth's reason
constexpr std::size_t kMaxReason = 16384; // a decision's reason in a reply
constexpr std::size_t kMaxHosts = 16384; // ranks of one job
constexpr std::size_t kMaxGrowth = 512;  // entries of the growth table
constexpr int kMaxNodes = 65536;

// A name Slurm could print: letters, digits and . _ - (a job id, an array job "12_3").
bool is_name(const std::string& s) { return slurm::valid_name(s); }

void only_keys(const json& o, std::initializer_list<const char*> keys) {
  const std::set<std::string> allowed(keys.begin(), keys.end());
  for (const auto& [k, _] : o.items())
    if (!allowed.count(k)) throw Error("unknown key '" + k.substr(0, 64) + "'");
}

const json& need(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end()) throw Error(std::string("missing key '") + key + "'");
  return *it;
}

long long integer(const json& o, const char* key, long long lo, long long hi) {
  const json& v = need(o, key);
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    throw Error(std::string("'") + key + "' must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v.get<long long>();
}

double number(const json& o, const char* key, double lo, double hi) {
  const json& v = need(o, key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi) {
    std::ostringstream m;
    m << "'" << key << "' must be a number in [" << lo << ", " << hi << "]";
    throw Error(m.str());
  }
  return v.get<double>();
}

bool boolean(const json& o, const char* key) {
  const json& v = need(o, key);
  if (!v.is_boolean()) throw Error(std::string("'") + key + "' must be true or false");
  return v.get<bool>();
}

std::string text(const json& o, const char* key) {
  const json& v = need(o, key);
  if (!v.is_string() || v.get_ref<const std::string&>().size() > kMaxText)
    throw Error(std::string("'") + key + "' must be a string of at most " + std::to_string(kMaxText) + " bytes");
  return v.get<std::string>();
}

std::string name(const json& o, const char* key) {
  std::string s = text(o, key);
  if (!is_name(s)) throw Error(std::string("'") + key + "' must be a name of letters, digits, '.', '_' or '-'");
  return s;
}

std::vector<std::string> names(const json& o, const char* key, std::size_t most) {
  const json& v = need(o, key);
  if (!v.is_array() || v.size() > most)
    throw Error(std::string("'") + key + "' must be a list of at most " + std::to_string(most) + " names");
  std::vector<std::string> out;
  for (const json& e : v) {
    if (!e.is_string() || !is_name(e.get<std::string>()))
      throw Error(std::string("'") + key + "' holds something that is not a host or job name");
    out.push_back(e.get<std::string>());
  }
  return out;
}

json growth_json(int n, const Growth& g) {
  return json{{"n", n},           {"pays", g.pays},
              {"saving_s", g.saving_s}, {"why", g.why},
              {"pi", g.predicted_iteration}, {"pr", g.predicted_resize},
              {"mi", g.measured_iteration},  {"left", g.iterations_left}};
}

std::pair<int, Growth> parse_growth(const json& e) {
  if (!e.is_object()) throw Error("'growth' entries must be objects");
  only_keys(e, {"n", "pays", "saving_s", "why", "pi", "pr", "mi", "left"});
  Growth g;
  const int n = static_cast<int>(integer(e, "n", -kMaxNodes, kMaxNodes));
  if (n == 0) throw Error("'growth' entry n must not be 0");
  g.pays = boolean(e, "pays");
  g.saving_s = number(e, "saving_s", -1e12, 1e12);
  g.why = text(e, "why");
  g.predicted_iteration = number(e, "pi", -1, 1e12);
  g.predicted_resize = number(e, "pr", -1, 1e12);
  g.measured_iteration = number(e, "mi", -1, 1e12);
  g.iterations_left = static_cast<int>(integer(e, "left", -1, 2000000000));
  return {n, g};
}

// A request's nonce, echoed by the reply: hex digits, at most 64.
std::string nonce_of(const json& o) {
  const std::string n = text(o, "nonce");
  if (n.size() > 64 || n.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw Error("'nonce' must be at most 64 hex digits");
  return n;
}

// One JSON object and nothing after it but whitespace, no key twice in any of its objects
// (nlohmann keeps a duplicated key's last value: a checker of the text that reads the first
// would see another request than the daemon acts on). nlohmann's own parser, strict (it
// refuses what follows the value), its callback keeping the keys of each open object; a
// NUL byte ends nlohmann's input, so one after the value is refused here.
json parse_object(std::string_view text) {
  std::vector<std::set<std::string>> keys;  // [d]: the keys so far of the object open at depth d
  std::string twice;                        // the first key given twice
  bool whole = false;                       // the top-level value is complete: what fails after it trails it
  const json::parser_callback_t seen = [&](int depth, json::parse_event_t event, json& parsed) {
    const auto d = static_cast<std::size_t>(depth);
    switch (event) {
      case json::parse_event_t::object_start:  // its keys come at depth + 1
        if (keys.size() < d + 2) keys.resize(d + 2);
        keys[d + 1].clear();
        break;
      case json::parse_event_t::key:
        if (d < keys.size() && !keys[d].insert(parsed.get<std::string>()).second && twice.empty())
          twice = parsed.get<std::string>();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
      case json::parse_event_t::value:
        if (depth == 0) whole = true;
        break;
      default:
        break;
    }
    return true;
  };
  json j = json::parse(text.begin(), text.end(), seen, false);
  if (j.is_discarded()) throw Error(whole ? "trailing bytes after the JSON" : "not JSON");
  if (text.find('\0') != std::string_view::npos) throw Error("trailing bytes after the JSON (from a NUL byte on)");
  if (!twice.empty()) throw Error("duplicated key '" + twice.substr(0, 64) + "'");
  if (!j.is_object()) throw Error("not a JSON object");
  return j;
}

bool is_challenge(const std::string& c) {
  return c.size() == kChallengeHex && c.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string challenge_of(const json& o) {
  const std::string c = text(o, "challenge");
  if (!is_challenge(c)) throw Error("'challenge' must be " + std::to_string(kChallengeHex) + " lower-case hex digits");
  return c;
}

void check_version(const json& j) {
  if (integer(j, "v", 0, 1 << 30) != kProtocolVersion)
    throw Error("protocol version " + need(j, "v").dump() + " is not " + std::to_string(kProtocolVersion) +
                (need(j, "v") == 1 ? " (version 1 has no challenge: a client older than this arbiter)" : ""));
}

}  // namespace

std::string encode_challenge(const std::string& challenge) {
  if (!is_challenge(challenge)) throw Error("a challenge must be " + std::to_string(kChallengeHex) + " lower-case hex digits");
  return json{{"v", kProtocolVersion}, {"challenge", challenge}}.dump();
}

std::string parse_challenge(std::string_view text) {
  const json j = parse_object(text);
  check_version(j);
  only_keys(j, {"v", "challenge"});
  return challenge_of(j);
}

std::string random_hex128() {
  unsigned char b[16];
  for (std::size_t got = 0; got < sizeof b;) {
    const ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : b) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

std::string encode_request(const Request& r) {
  json j{{"v", kProtocolVersion}, {"kind", to_string(r.kind)}, {"challenge", r.challenge}};
  if (!r.nonce.empty()) j["nonce"] = r.nonce;
  if (r.kind == Request::Kind::Arbitrate) {
    j["job"] = r.job.id;
    j["rank_hosts"] = r.job.rank_hosts;
    j["per_node"] = r.job.per_node;
    j["min_nodes"] = r.job.min_nodes;
    j["max_nodes"] = r.job.max_nodes;
    j["hold"] = r.hold;
    j["bid_ttl_s"] = r.bid_ttl_s;
    json g = json::array();
    for (const auto& [n, e] : r.growth) g.push_back(growth_json(n, e));
    j["growth"] = g;
    if (!r.expanders.empty()) j["expanders"] = r.expanders;
  } else if (r.kind == Request::Kind::Settle) {
    j["job"] = r.job.id;
    j["promises_too"] = r.promises_too;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Request parse_request(std::string_view text) {
  const json j = parse_object(text);
  Request r;
  check_version(j);
  const std::string kind = arbiter::name(j, "kind");
  if (j.contains("nonce")) r.nonce = nonce_of(j);
  r.challenge = challenge_of(j);
  if (kind == "arbitrate") {
    only_keys(j, {"v", "kind", "nonce", "challenge", "job", "rank_hosts", "per_node", "min_nodes", "max_nodes", "hold",
                  "bid_ttl_s", "growth", "expanders"});
    r.kind = Request::Kind::Arbitrate;
    r.job.id = arbiter::name(j, "job");
    r.job.rank_hosts = names(j, "rank_hosts", kMaxHosts);
    if (r.job.rank_hosts.empty()) throw Error("'rank_hosts' must name rank 0's host at least");
    r.job.per_node = static_cast<int>(integer(j, "per_node", 1, 4096));
    r.job.min_nodes = static_cast<int>(integer(j, "min_nodes", 1, kMaxNodes));
    // The most nodes the job can use: a claim never exceeds it (0, "no limit", is not taken
    // from a request: the arbiter hands out nothing unbounded).
    r.job.max_nodes = static_cast<int>(integer(j, "max_nodes", 1, kMaxNodes));
    r.hold = boolean(j, "hold");
    r.bid_ttl_s = number(j, "bid_ttl_s", 0, 86400);
    const json& g = need(j, "growth");
    if (!g.is_array() || g.size() > kMaxGrowth)
      throw Error("'growth' must be a list of at most " + std::to_string(kMaxGrowth) + " entries");
    for (const json& e : g) {
      auto [n, v] = parse_growth(e);
      if (!r.growth.emplace(n, v).second) throw Error("'growth' names n=" + std::to_string(n) + " twice");
    }
    if (j.contains("expanders")) {
      r.expanders = names(j, "expanders", kMaxExpanders);
      for (const auto& e : r.expanders)
        if (e.empty() || e.size() > 18 || e.find_first_not_of("0123456789") != std::string::npos)
          throw Error("'expanders' must list Slurm job ids (digits)");
    }
  } else if (kind == "settle") {
    only_keys(j, {"v", "kind", "nonce", "challenge", "job", "promises_too"});
    r.kind = Request::Kind::Settle;
    r.job.id = arbiter::name(j, "job");
    r.promises_too = boolean(j, "promises_too");
  } else if (kind == "status") {
    only_keys(j, {"v", "kind", "nonce", "challenge"});
    r.kind = Request::Kind::Status;
  } else {
    throw Error("unknown request kind '" + kind + "'");
  }
  return r;
}

slurm::GrowthModel growth_model(const std::map<int, Growth>& table) {
  return [table](int n) {
    const auto it = table.find(n);
    if (it != table.end()) return it->second;
    Growth g;
    g.why = "no prediction for " + std::to_string(n) + " node(s) in the request";
    return g;
  };
}

namespace {
const char* plan_name(Plan::Kind k) {
  switch (k) {
    case Plan::Kind::None: return "none";
    case Plan::Kind::GiveBack: return "give-back";
    case Plan::Kind::UseHeld: return "use-held";
    case Plan::Kind::Acquire: return "acquire";
  }
  return "?";
}
Plan::Kind plan_kind(const std::string& s) {
  for (Plan::Kind k : {Plan::Kind::None, Plan::Kind::GiveBack, Plan::Kind::UseHeld, Plan::Kind::Acquire})
    if (s == plan_name(k)) return k;
  throw Error("reply: unknown plan '" + s.substr(0, 64) + "'");
}
}  // namespace

std::string encode_reply(const Reply& r, Request::Kind kind) {
  json j{{"ok", r.ok}, {"nonce", r.nonce}};
  if (!r.ok) {
    j["error"] = r.error;
  } else if (kind == Request::Kind::Arbitrate) {
    const auto& a = r.arbitration;
    j["plan"] = plan_name(a.plan.kind);
    j["nodes"] = a.plan.nodes;
    j["acquire"] = a.plan.acquire;
    j["why"] = a.plan.why.substr(0, kMaxReason);
    j["rule"] = a.rule;
    j["for"] = a.for_job;
    j["by_restart"] = a.by_restart;
    j["pi"] = a.plan.predicted_iteration;
    j["pr"] = a.plan.predicted_resize;
    j["mi"] = a.plan.measured_iteration;
    j["held"] = r.held;
    j["idle"] = r.idle;
  } else if (kind == Request::Kind::Status) {
    j["status"] = json::parse(r.status_json, nullptr, false);
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Reply parse_reply(std::string_view text, Request::Kind kind) {
  const json j = parse_object(text);
  Reply r;
  r.ok = boolean(j, "ok");
  if (j.contains("nonce")) r.nonce = nonce_of(j);
  if (!r.ok) {
    r.error = arbiter::text(j, "error");
    return r;
  }
  try {
    if (kind == Request::Kind::Arbitrate) {
      // Checked as a request is: what a reply names becomes a command's argument (node
      // names) or a line of the job's output (the rule, the reason).
      auto& a = r.arbitration;
      a.plan.kind = plan_kind(arbiter::text(j, "plan"));
      a.plan.nodes = names(j, "nodes", kMaxHosts);
      a.plan.acquire = static_cast<int>(integer(j, "acquire", 0, kMaxNodes));
      const json& why = need(j, "why");
      if (!why.is_string() || why.get_ref<const std::string&>().size() > kMaxReason)
        throw Error("'why' must be a string of at most " + std::to_string(kMaxReason) + " bytes");
      a.plan.why = why.get<std::string>();
      a.rule = arbiter::name(j, "rule");
      a.for_job = arbiter::text(j, "for");
      if (!a.for_job.empty() && !is_name(a.for_job)) throw Error("'for' must be empty or a job id");
      a.by_restart = boolean(j, "by_restart");
      a.plan.predicted_iteration = number(j, "pi", -1, 1e12);
      a.plan.predicted_resize = number(j, "pr", -1, 1e12);
      a.plan.measured_iteration = number(j, "mi", -1, 1e12);
      r.held = names(j, "held", kMaxHosts);
      r.idle = names(j, "idle", kMaxHosts);
    } else if (kind == Request::Kind::Status) {
      r.status_json = j.at("status").dump(2);
    }
  } catch (const json::exception& e) {
    throw Error(std::string("the arbiter's reply is malformed: ") + e.what());
  } catch (const Error& e) {
    throw Error(std::string("the arbiter's reply is malformed: ") + e.what());
  }
  return r;
}

std::string refusal(const Request& r, std::uint32_t uid, const std::map<std::string, std::uint32_t>& owners,
                    std::uint32_t slurm_user) {
  if (r.kind == Request::Kind::Status) return "";
  if (uid == 0 || uid == slurm_user) return "";
  // One answer whether the job is another user's or not there at all: a refusal names
  // the asking uid only, never the owner, never whether another user's job exists.
  const auto it = owners.find(r.job.id);
  if (it == owners.end() || it->second != uid)
    return "uid " + std::to_string(uid) + " does not own job " + r.job.id + " in Slurm's view";
  return "";
}

std::map<std::string, std::uint32_t> owners_of(const std::vector<slurm::Job>& jobs) {
  std::map<std::string, std::uint32_t> out;
  for (const slurm::Job& j : jobs) {
    if (j.uid.empty()) continue;
    const auto uid = slurm::whole_number(j.uid, 0xffffffffULL);
    if (!uid) throw Error("squeue: job " + slurm::escaped(j.id) + ": uid '" + slurm::escaped(j.uid.substr(0, 20)) + "' is not a 32-bit number");
    out[j.id] = static_cast<std::uint32_t>(*uid);
  }
  return out;
}

HostPort parse_host_port(std::string_view text, bool port_zero_allowed) {
  const std::string t(text);
  HostPort h;
  std::string port;
  if (!t.empty() && t[0] == '[') {
    const auto close = t.find(']');
    if (close == std::string::npos) throw Error("the address '" + t + "' opens '[' without closing it");
    h.host = t.substr(1, close - 1);
    if (h.host.empty() || h.host.find(':') == std::string::npos)
      throw Error("the address '" + t + "': brackets hold an IPv6 address");
    if (close + 1 >= t.size() || t[close + 1] != ':') throw Error("the address '" + t + "' has no ':PORT'");
    port = t.substr(close + 2);
  } else {
    const auto colon = t.rfind(':');
    if (colon == std::string::npos) throw Error("the address '" + t + "' has no ':PORT'");
    h.host = t.substr(0, colon);
    if (h.host.find(':') != std::string::npos)
      throw Error("the address '" + t + "': an IPv6 address goes in brackets, [ADDR]:PORT");
    if (h.host.empty()) throw Error("the address '" + t + "' has no host ('*' for every address)");
    if (h.host == "*") h.host.clear();
    port = t.substr(colon + 1);
  }
  if (h.host.find_first_of(" \t/") != std::string::npos) throw Error("the address '" + t + "' has a bad host");
  const unsigned lo = port_zero_allowed ? 0 : 1;
  const auto n = port.size() <= 5 ? slurm::whole_number(port, 65535) : std::nullopt;
  if (!n || *n < lo) throw Error("the address '" + t + "': the port must be a number in [" + std::to_string(lo) + ", 65535]");
  h.port = static_cast<std::uint16_t>(*n);
  return h;
}

ArbiterAddress parse_arbiter_address(std::string_view text) {
  ArbiterAddress a;
  constexpr std::string_view tcp = "tcp://";
  if (text.substr(0, tcp.size()) == tcp) {
    a.tcp = true;
    a.where = parse_host_port(text.substr(tcp.size()), false);
    if (a.where.host.empty()) throw Error("RESIZE_ARBITER '" + std::string(text) + "': '*' is not a host to connect to");
    return a;
  }
  if (text.empty()) throw Error("the arbiter's address is empty");
  a.path = std::string(text);
  return a;
}

std::string to_string(const HostPort& h) {
  const std::string host = h.host.empty() ? "*" : h.host.find(':') != std::string::npos ? "[" + h.host + "]" : h.host;
  return host + ":" + std::to_string(h.port);
}

}  // namespace cluster::arbiter
