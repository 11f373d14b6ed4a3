// SPDX-License-Identifier: BSD-3-Clause
// Retention of the level files on a node (levels.hpp, level_files_to_remove): which files
// of a node's level directory go once a version was written. Pure: names in, names out.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/levels/levels.hpp"

namespace resize::levels {

std::vector<std::string> level_files_to_remove(const std::vector<std::string>& names, const std::string& program,
                                               int keep, int nprocs, int iteration) {
  static const std::string tmp = ".tmp";
  struct File {
    const std::string* name;
    LevelName n;
  };
  std::vector<File> complete;
  std::vector<std::string> out;
  for (const auto& f : names) {
    LevelName n;
    const bool is_tmp = f.size() > tmp.size() && f.compare(f.size() - tmp.size(), tmp.size(), tmp) == 0;
    if (!parse_level_file_name(is_tmp ? f.substr(0, f.size() - tmp.size()) : f, program, n)) continue;
    if (!is_tmp) complete.push_back({&f, n});
    else if (n.nprocs != nprocs || n.iteration != iteration) out.push_back(f);
  }
  if (keep > 0) {
    for (Level kind : {Level::Local, Level::Partner}) {
      // Versions of this level, newest first: the one just written, then by iteration
      // (at one iteration the current size's first).
      std::vector<std::pair<int, int>> versions;
      for (const auto& c : complete)
        if (c.n.kind == kind && !(c.n.iteration == iteration && c.n.nprocs == nprocs))
          versions.push_back({c.n.iteration, c.n.nprocs});
      std::sort(versions.begin(), versions.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        if ((a.second == nprocs) != (b.second == nprocs)) return a.second == nprocs;
        return a.second > b.second;
      });
      versions.erase(std::unique(versions.begin(), versions.end()), versions.end());
      std::set<std::pair<int, int>> kept{{iteration, nprocs}};
      for (const auto& v : versions)
        if (static_cast<int>(kept.size()) < keep) kept.insert(v);
      for (const auto& c : complete)
        if (c.n.kind == kind && !kept.count({c.n.iteration, c.n.nprocs})) out.push_back(*c.name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace resize::levels
