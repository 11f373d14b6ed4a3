// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/resize/schedule.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace resize {

namespace {
std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

int to_int(const std::string& s, const std::string& what, const std::string& entry) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty())
    throw Error("schedule entry '" + entry + "': " + what + " must be an integer, got '" + s + "'");
  return v;
}

Error entry_error(const std::string& entry, const std::string& what) {
  return Error("schedule entry '" + entry + "': " + what);
}

// `HOST[=COUNT]+...` after '@' into d.hosts: each a host name, named once, its count >= 1.
void parse_hosts(const std::string& list, const std::string& entry, Decision& d) {
  std::stringstream hs(list);
  for (std::string h; std::getline(hs, h, '+');) {
    h = trim(h);
    HostShare share;
    const auto eq = h.find('=');
    share.host = trim(h.substr(0, eq));
    if (eq != std::string::npos) {
      share.count = to_int(trim(h.substr(eq + 1)), "the count of host " + share.host, entry);
      if (share.count < 1)
        throw entry_error(entry, "host " + share.host + " needs a count >= 1, got " + std::to_string(share.count));
    }
    if (share.host.empty() || share.host.find_first_of(" \t") != std::string::npos)
      throw entry_error(entry, "'" + h + "' is not a host name");
    for (const auto& o : d.hosts)
      if (o.host == share.host) throw entry_error(entry, "host " + share.host + " is named twice");
    d.hosts.push_back(share);
  }
  if (d.hosts.empty()) throw entry_error(entry, "'@' names no host");
}

// TARGET: ROWSxCOLS or a process count.
void parse_target(const std::string& t, const std::string& entry, Decision& d) {
  const auto x = t.find_first_of("xX");
  if (x != std::string::npos) {
    d.nprow = to_int(t.substr(0, x), "ROWS", entry);
    d.npcol = to_int(t.substr(x + 1), "COLS", entry);
    if (d.nprow < 1 || d.npcol < 1) throw entry_error(entry, "grid " + t + " must be at least 1x1");
    d.procs = d.nprow * d.npcol;
  } else {
    d.procs = to_int(t, "TARGET", entry);
    if (d.procs < 1) throw entry_error(entry, "TARGET must be >= 1");
  }
}

// The fields after TARGET: PLACEMENT or schema=FILE.
void parse_options(const std::vector<std::string>& f, const std::string& entry, Decision& d) {
  for (std::size_t i = 3; i < f.size(); ++i) {
    if (f[i].empty()) continue;  // "3x3:@node2": no placement, just hosts
    if (f[i].rfind("schema=", 0) == 0) {
      d.schema = f[i].substr(7);
    } else {
      try {
        d.placement = parse_placement(f[i]);
      } catch (Error& err) {
        err.prepend("schedule entry '" + entry + "': ");  // as entry_error says it, the code kept
        throw;
      }
    }
  }
}

ScheduleEntry parse_entry(const std::string& entry) {
  std::vector<std::string> f;
  std::stringstream ss(entry);
  for (std::string tok; std::getline(ss, tok, ':');) f.push_back(trim(tok));
  if (f.size() < 3) throw entry_error(entry, "expected ITER:expand|shrink:TARGET[:PLACEMENT]");
  ScheduleEntry e;
  e.iteration = to_int(f[0], "ITER", entry);
  if (e.iteration < 1) throw entry_error(entry, "ITER must be >= 1");
  std::string act = f[1];
  std::transform(act.begin(), act.end(), act.begin(), [](unsigned char c) { return std::tolower(c); });
  if (act == "expand")
    e.decision.action = Action::Expand;
  else if (act == "shrink")
    e.decision.action = Action::Shrink;
  else
    throw entry_error(entry, "action must be expand or shrink, got '" + f[1] + "'");
  // '@' HOSTS ends the target or the placement field.
  for (std::size_t i = 2; i < f.size(); ++i) {
    const auto at = f[i].find('@');
    if (at == std::string::npos) continue;
    if (!e.decision.hosts.empty()) throw entry_error(entry, "'@' HOSTS given twice");
    parse_hosts(f[i].substr(at + 1), entry, e.decision);
    f[i] = trim(f[i].substr(0, at));
  }
  parse_target(f[2], entry, e.decision);
  parse_options(f, entry, e.decision);
  e.decision.reason = "scripted";
  return e;
}
}  // namespace

Schedule parse_schedule(const std::string& text) {
  Schedule s;
  std::string clean;
  bool comment = false;
  for (char c : text) {
    if (c == '#') comment = true;
    if (c == '\n') comment = false;
    if (!comment) clean += (c == ';' || c == '\n') ? ',' : c;
  }
  std::stringstream ss(clean);
  for (std::string tok; std::getline(ss, tok, ',');) {
    tok = trim(tok);
    if (!tok.empty()) s.push_back(parse_entry(tok));
  }
  std::stable_sort(s.begin(), s.end(),
                   [](const ScheduleEntry& a, const ScheduleEntry& b) { return a.iteration < b.iteration; });
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i].iteration == s[i - 1].iteration)
      throw Error("schedule: two entries at iteration " + std::to_string(s[i].iteration));
  return s;
}

Schedule load_schedule(const std::string& text_or_path) {
  if (text_or_path.empty()) return {};
  std::ifstream in(text_or_path);
  if (in && text_or_path.find(':') == std::string::npos) {
    std::stringstream buf;
    buf << in.rdbuf();
    return parse_schedule(buf.str());
  }
  if (!in && text_or_path.find(':') == std::string::npos)
    throw Error("schedule: '" + text_or_path + "' is neither a readable file nor a schedule");
  return parse_schedule(text_or_path);
}

std::string to_string(const ScheduleEntry& e) {
  // Built with a stream: GCC 12 warns (-Wrestrict, a false positive) on chained
  // std::string concatenation here.
  std::ostringstream t;
  t << e.iteration << ':' << to_string(e.decision.action) << ':';
  if (e.decision.nprow)
    t << e.decision.nprow << 'x' << e.decision.npcol;
  else
    t << e.decision.procs;
  t << ':' << to_string(e.decision.placement);
  if (!e.decision.schema.empty()) t << ":schema=" << e.decision.schema;
  for (std::size_t i = 0; i < e.decision.hosts.size(); ++i) {
    t << (i ? '+' : '@') << e.decision.hosts[i].host;
    if (e.decision.hosts[i].count) t << '=' << e.decision.hosts[i].count;
  }
  return t.str();
}

}  // namespace resize
