// SPDX-License-Identifier: BSD-3-Clause
// Slurm's output read, pure: trimming, hostlists (expanded and compressed), squeue's
// lines and scontrol's job record. sinfo's lines, times and Slurm's order: order.cpp.
#include "malleable/cluster/slurm.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace cluster::slurm {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Splits at commas outside brackets.
std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string pad(long v, std::size_t width) {
  std::string s = std::to_string(v);
  return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> out;
  const std::string text = trim(list);
  if (text.empty() || text == "(null)") return out;
  for (const std::string& raw : split_top(text)) {
    const std::string item = trim(raw);
    if (item.empty()) throw Error("hostlist '" + list + "': empty entry");
    const auto open = item.find('[');
    if (open == std::string::npos) {
      if (item.find(']') != std::string::npos) throw Error("hostlist '" + list + "': ']' without '['");
      out.push_back(item);
      continue;
    }
    const auto close = item.find(']', open);
    if (close == std::string::npos) throw Error("hostlist '" + list + "': '[' without ']'");
    const std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
    std::stringstream ranges(item.substr(open + 1, close - open - 1));
    for (std::string r; std::getline(ranges, r, ',');) {
      r = trim(r);
      const auto dash = r.find('-');
      const std::string a = r.substr(0, dash), b = dash == std::string::npos ? a : r.substr(dash + 1);
      if (!all_digits(a) || !all_digits(b))
        throw Error("hostlist '" + list + "': range '" + r + "' is not NUMBER or NUMBER-NUMBER");
      const long lo = std::stol(a), hi = std::stol(b);
      if (hi < lo || hi - lo > 100000) throw Error("hostlist '" + list + "': bad range '" + r + "'");
      for (long v = lo; v <= hi; ++v) out.push_back(prefix + pad(v, a.size()) + suffix);
    }
  }
  return out;
}

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  // Split names into prefix + trailing number. Per prefix, numbers written with a leading
  // zero fix a width (n08 n09 n10 -> n[08-10]); the others are unpadded (node9 node10 ->
  // node[9-10]). Names without a trailing number stay as they are.
  struct Name {
    std::string prefix, digits;
  };
  std::vector<Name> names;
  std::map<std::string, std::size_t> padded_width;  // prefix -> width of its padded numbers
  std::vector<std::string> plain;
  for (const auto& h : hosts) {
    std::size_t d = h.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(h[d - 1]))) --d;
    if (d == h.size()) {
      plain.push_back(h);
      continue;
    }
    names.push_back(Name{h.substr(0, d), h.substr(d)});
    if (names.back().digits.size() > 1 && names.back().digits[0] == '0')
      padded_width[names.back().prefix] = names.back().digits.size();
  }
  std::map<std::pair<std::string, std::size_t>, std::set<long>> groups;
  std::vector<std::pair<std::string, std::size_t>> order;
  for (const auto& n : names) {
    const auto pw = padded_width.find(n.prefix);
    const std::size_t width = pw != padded_width.end() && pw->second == n.digits.size() ? n.digits.size() : 0;
    const auto key = std::make_pair(n.prefix, width);
    if (!groups.count(key)) order.push_back(key);
    groups[key].insert(std::stol(n.digits));
  }
  std::string out;
  const auto add = [&](const std::string& s) {
    if (!out.empty()) out += ',';
    out += s;
  };
  for (const auto& key : order) {
    const auto& nums = groups[key];
    std::string inner;
    for (auto it = nums.begin(); it != nums.end();) {
      const long lo = *it;
      long hi = lo;
      while (++it != nums.end() && *it == hi + 1) hi = *it;
      if (!inner.empty()) inner += ',';
      inner += pad(lo, key.second);
      if (hi > lo) {
        inner += '-';
        inner += pad(hi, key.second);
      }
    }
    add(nums.size() == 1 ? key.first + inner : key.first + "[" + inner + "]");
  }
  for (const auto& p : plain) add(p);
  return out;
}

std::vector<Job> parse_squeue(const std::string& text) {
  std::vector<Job> jobs;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty()) continue;
    std::vector<std::string> f;  // split keeping empty fields (an empty NODELIST is last)
    for (std::size_t at = 0;;) {
      const auto bar = line.find('|', at);
      f.push_back(trim(line.substr(at, bar == std::string::npos ? std::string::npos : bar - at)));
      if (bar == std::string::npos) break;
      at = bar + 1;
    }
    // Slurm's order (kSqueueFormat): six tagged fields before the comment, eight with the
    // QOS and the owner (qos=, uid=; a view recorded before them has six).
    const bool ordered = f.size() >= 11 && f[6].rfind("prio=", 0) == 0;
    const bool with_qos = ordered && f.size() >= 13 && f[11].rfind("qos=", 0) == 0 && f[12].rfind("uid=", 0) == 0;
    const std::size_t comment = with_qos ? 13 : ordered ? 11 : 6;
    if (f.size() > comment + 1) {  // a '|' inside the comment, the last field
      for (std::size_t k = comment + 1; k < f.size(); ++k) f[comment] += "|" + f[k];
      f.resize(comment + 1);
    }
    if (f.size() < 4 || f[0].empty() || !all_digits(f[2]) || f[2].size() > 9)
      throw Error("squeue: cannot read the line '" + line +
                  "' (expected ID|STATE|NODES|NODELIST[|NAME[|REASON[|COMMENT]]] or the fields of " + kSqueueFormat +
                  ")");
    Job j{f[0], f[1], std::stoi(f[2]), expand_hostlist(f[3]), f.size() >= 5 ? f[4] : std::string(),
          f.size() >= 6 ? f[5] : std::string()};
    if (ordered) {
      const auto field = [&](std::size_t k, const char* tag) {
        const std::string t = tag;
        if (f[k].rfind(t, 0) != 0)
          throw Error("squeue: field " + std::to_string(k + 1) + " of the line '" + line + "' does not start with '" + t +
                      "' (" + kSqueueFormat + ")");
        return f[k].substr(t.size());
      };
      try {
        const std::string prio = field(6, "prio=");
        if (!prio.empty() && (!all_digits(prio) || prio.size() > 15))
          throw Error("squeue: priority '" + prio + "' is not a number");
        j.priority = prio.empty() ? 0 : std::stod(prio);
        j.submit = parse_slurm_time(field(7, "submit="));
        j.partition = field(8, "part=");
        j.planned_start = parse_slurm_time(field(9, "start="));
        j.planned_nodes = expand_hostlist(field(10, "plan="));
        j.qos = with_qos && field(11, "qos=") != "(null)" ? field(11, "qos=") : "";  // (null): no accounting
        j.uid = with_qos ? field(12, "uid=") : "";
        if (!j.uid.empty() && (!all_digits(j.uid) || j.uid.size() > 10)) throw Error("squeue: uid '" + j.uid + "' is not a number");
      } catch (const Error& e) {
        const std::string what = e.what();
        throw Error(what.find(line) != std::string::npos ? what : what + " in the line '" + line + "'");
      }
      if (j.state != "PENDING") {  // %S and %Y of a running job: its start, no plan
        j.planned_start = 0;
        j.planned_nodes.clear();
      }
    }
    if (f.size() == comment + 1 && j.state == "PENDING") {
      const std::string& c = f[comment];
      const auto at = c.find("min_nodes=");
      const std::size_t from = at == std::string::npos ? 0 : at + 10;
      const std::string k = at == std::string::npos ? "" : c.substr(from, c.find_first_not_of("0123456789", from) - from);
      if (all_digits(k) && k.size() < 9 && std::stoi(k) > 0) j.nodes = std::min(j.nodes, std::stoi(k));
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

Job parse_scontrol_job(const std::string& text) {
  Job j;
  std::stringstream in(text);
  bool have_id = false;
  for (std::string tok; in >> tok;) {
    const auto eq = tok.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
    if (key == "JobId") {
      j.id = value;
      have_id = true;
    } else if (key == "JobState") {
      j.state = value;
    } else if (key == "NumNodes") {
      const std::string n = value.substr(0, value.find('-'));
      j.nodes = all_digits(n) ? std::stoi(n) : 0;
    } else if (key == "NodeList") {
      j.node_list = expand_hostlist(value);
    } else if (key == "Partition") {
      j.partition = value;
    } else if (key == "QOS") {
      j.qos = value == "(null)" ? "" : value;  // (null): Slurm without accounting
    }
  }
  if (!have_id) throw Error("scontrol show job: no JobId in '" + trim(text).substr(0, 120) + "'");
  return j;
}
}  // namespace cluster::slurm
