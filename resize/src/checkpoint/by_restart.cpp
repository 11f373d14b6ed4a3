// SPDX-License-Identifier: BSD-3-Clause
// What the next launch of a job resized by restart runs on (by_restart.hpp).
#include "checkpoint/by_restart.hpp"

#include <algorithm>

#include "malleable/resize/types.hpp"

namespace resize {

std::vector<std::string> hosts_after_restart(const std::vector<std::string>& rank_hosts, const Decision& d) {
  if (d.hosts.empty() || d.action == Action::None) return {};
  const auto named = [&](const std::string& h) {
    return std::any_of(d.hosts.begin(), d.hosts.end(), [&](const HostShare& s) { return s.host == h; });
  };
  std::vector<std::string> out;
  for (const auto& h : rank_hosts)
    if (std::find(out.begin(), out.end(), h) == out.end() && !(d.action == Action::Shrink && named(h)))
      out.push_back(h);
  if (d.action != Action::Shrink)
    for (const auto& s : d.hosts)
      if (s.count > 0 && std::find(out.begin(), out.end(), s.host) == out.end()) out.push_back(s.host);
  return out;
}

std::string next_launch_text(int nprow, int npcol, const std::string& file, const std::vector<std::string>& hosts) {
  const auto blank = [](const std::string& s) {
    return s.empty() || s.find_first_of(" \t\n,") != std::string::npos;
  };
  if (nprow < 1 || npcol < 1)
    throw Error("resize by restart: the next grid must be at least 1x1, got " + std::to_string(nprow) + "x" +
                std::to_string(npcol));
  if (file.empty() || file.find_first_of(" \t\n") != std::string::npos)
    throw Error("resize by restart: checkpoint file name '" + file + "' is empty or contains white space");
  std::string t = std::to_string(nprow) + " " + std::to_string(npcol) + " " + file + "\n";
  if (!hosts.empty()) {
    t += "hosts ";
    for (std::size_t k = 0; k < hosts.size(); ++k) {
      if (blank(hosts[k])) throw Error("resize by restart: bad node name '" + hosts[k] + "'");
      t += (k ? "," : "") + hosts[k];
    }
    t += "\n";
  }
  return t;
}

}  // namespace resize
