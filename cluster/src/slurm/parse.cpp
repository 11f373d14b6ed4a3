// SPDX-License-Identifier: BSD-3-Clause
// Slurm's output read, pure: trimming, names, hostlists (expanded and compressed, both
// bounded). squeue's records: squeue.cpp; sinfo's lines, times and Slurm's order: order.cpp.
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

#include "slurm/number.hpp"
#include "slurm/text.hpp"

namespace cluster::slurm {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

namespace {

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

// At most `n` bytes of `s` for a message, control bytes escaped (a list from Slurm can be
// long and hold anything).
std::string shown(const std::string& s, std::size_t n = 120) {
  const std::string e = escaped(s.substr(0, n));
  return s.size() > n ? e + "..." : e;
}

std::string pad(std::uint64_t v, std::size_t width) {
  std::string s = std::to_string(v);
  return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

}  // namespace

bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > 255) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '_' || c == '-'; });
}

void check_names(const std::vector<std::string>& names, const std::string& what) {
  for (const auto& n : names)
    if (!valid_name(n))
      throw Error(what + ": '" + shown(n, 64) + "' is not a name (1 to 255 letters, digits, '.', '_' or '-')");
}

std::string escaped(std::string_view s) {
  std::string out;
  for (const unsigned char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::vector<std::string> expand_hostlist(const std::string& list, std::size_t max_hosts) {
  std::vector<std::string> out;
  const std::string text = trim(list);
  if (text.empty() || text == "(null)") return out;
  const auto add = [&](std::string h) {
    if (out.size() >= max_hosts)
      throw Error("hostlist '" + shown(list) + "': more than " + std::to_string(max_hosts) + " hosts (the most a list may name here)");
    out.push_back(std::move(h));
  };
  for (const std::string& raw : split_top(text)) {
    const std::string item = trim(raw);
    if (item.empty()) throw Error("hostlist '" + shown(list) + "': empty entry");
    const auto open = item.find('[');
    if (open == std::string::npos) {
      if (item.find(']') != std::string::npos) throw Error("hostlist '" + shown(list) + "': ']' without '['");
      add(item);
      continue;
    }
    const auto close = item.find(']', open);
    if (close == std::string::npos) throw Error("hostlist '" + shown(list) + "': '[' without ']'");
    const std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
    std::stringstream ranges(item.substr(open + 1, close - open - 1));
    for (std::string r; std::getline(ranges, r, ',');) {
      r = trim(r);
      const auto dash = r.find('-');
      const std::string a = r.substr(0, dash), b = dash == std::string::npos ? a : r.substr(dash + 1);
      // at most 9 digits: node numbers, never beyond what a host's name carries
      const auto lo = whole_number(a, 999999999), hi = whole_number(b, 999999999);
      if (!lo || !hi)
        throw Error("hostlist '" + shown(list) + "': range '" + shown(r, 40) + "' is not NUMBER or NUMBER-NUMBER (9 digits at most)");
      if (*hi < *lo) throw Error("hostlist '" + shown(list) + "': bad range '" + shown(r, 40) + "'");
      if (*hi - *lo >= max_hosts)
        throw Error("hostlist '" + shown(list) + "': more than " + std::to_string(max_hosts) + " hosts (the most a list may name here)");
      for (std::uint64_t v = *lo; v <= *hi; ++v) add(prefix + pad(v, a.size()) + suffix);
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
    // a name without a trailing number, or with one of more than 17 digits (no node's:
    // kept as it is, never a number that overflows)
    if (d == h.size() || h.size() - d > 17) {
      plain.push_back(h);
      continue;
    }
    names.push_back(Name{h.substr(0, d), h.substr(d)});
    if (names.back().digits.size() > 1 && names.back().digits[0] == '0')
      padded_width[names.back().prefix] = names.back().digits.size();
  }
  std::map<std::pair<std::string, std::size_t>, std::set<std::uint64_t>> groups;
  std::vector<std::pair<std::string, std::size_t>> order;
  for (const auto& n : names) {
    const auto pw = padded_width.find(n.prefix);
    const std::size_t width = pw != padded_width.end() && pw->second == n.digits.size() ? n.digits.size() : 0;
    const auto key = std::make_pair(n.prefix, width);
    if (!groups.count(key)) order.push_back(key);
    groups[key].insert(whole_number(n.digits, 99999999999999999ULL).value_or(0));
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
      const std::uint64_t lo = *it;
      std::uint64_t hi = lo;
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

}  // namespace cluster::slurm
