// SPDX-License-Identifier: BSD-3-Clause
#include <algorithm>
#include <cctype>

#include "malleable/resize/types.hpp"

namespace resize {

std::vector<int> Grid::rank_map() const {
  if (!ranks.empty()) return ranks;
  std::vector<int> r(static_cast<std::size_t>(size()));
  for (int i = 0; i < size(); ++i) r[static_cast<std::size_t>(i)] = i;
  return r;
}

std::string to_string(Placement p) {
  switch (p) {
    case Placement::Global: return "global";
    case Placement::Local1: return "local1";
    case Placement::Local2: return "local2";
    case Placement::Optimal: return "optimal";
    case Placement::Given: return "given";
  }
  return "?";
}

Placement parse_placement(const std::string& s) {
  std::string l(s);
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "global") return Placement::Global;
  if (l == "local1") return Placement::Local1;
  if (l == "local2" || l == "local") return Placement::Local2;
  if (l == "optimal") return Placement::Optimal;
  throw Error("placement: expected global, local1, local2 or optimal, got '" + s + "'");
}

std::string to_string(ExpandBy b) {
  switch (b) {
    case ExpandBy::Auto: return "auto";
    case ExpandBy::Spawn: return "spawn";
    case ExpandBy::Join: return "join";
    case ExpandBy::Waiting: return "join";
  }
  return "?";
}

std::string to_string(Action a) {
  switch (a) {
    case Action::None: return "none";
    case Action::Expand: return "expand";
    case Action::Shrink: return "shrink";
    case Action::Regrid: return "regrid";
  }
  return "?";
}

}  // namespace resize
