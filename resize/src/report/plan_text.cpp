// SPDX-License-Identifier: BSD-3-Clause
// A resize plan as the dry run prints it: JSON (schema malleable.plan/1, one line) and a
// text table (resize_plan.hpp). Pure.
#include <cstdio>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "report/resize_plan.hpp"

namespace resize::detail {

namespace {

using json = nlohmann::ordered_json;

json grid_json(const Grid& g) { return {{"grid", g.shape()}, {"procs", g.size()}, {"ranks", g.rank_map()}}; }

std::string layout_shape(const redist::Layout& l) {
  const auto first = [](const redist::BlockSizes& b) { return b.empty() ? 0 : b[0]; };
  std::string s = std::to_string(l.nprow) + "x" + std::to_string(l.npcol) + " blocks " + std::to_string(first(l.row_blocks)) +
                  "x" + std::to_string(first(l.col_blocks));
  return l.uniform() ? s : s + " (extended)";
}

json layout_json(const redist::Layout& l) {
  return {{"grid", std::to_string(l.nprow) + "x" + std::to_string(l.npcol)},
          {"mb", l.row_blocks.empty() ? 0 : l.row_blocks[0]},
          {"nb", l.col_blocks.empty() ? 0 : l.col_blocks[0]},
          {"uniform", l.uniform()},
          {"ranks", l.rank_list()}};
}

json seconds(double s) { return s < 0 ? json(nullptr) : json(s); }

json nodes_json(const NodePlan& n) {
  json spawn = json::array();
  for (const auto& [h, c] : n.spawn) spawn.push_back({{"host", h}, {"count", c}});
  return {{"spawn", spawn}, {"release", n.release}, {"keep", n.keep}};
}

std::string fixed(double x, const char* fmt = "%.3f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

}  // namespace

std::string plan_json(const ResizePlan& p) {
  const Decision& d = p.decision;
  json j = {{"schema", "malleable.plan/1"}, {"dry_run", true}, {"action", to_string(d.action)},
            {"refused", p.refused.empty() ? json(nullptr) : json(p.refused)}, {"reason", d.reason},
            {"from", grid_json(p.from)}, {"to", p.refused.empty() && d.action != Action::None ? grid_json(p.to) : json(nullptr)},
            {"placement", to_string(d.placement)}, {"how", p.how}, {"why", p.how_why}, {"mechanism", p.mechanism},
            {"nodes", nodes_json(p.nodes)}, {"batches", p.batches}};
  json mats = json::array();
  for (const auto& m : p.matrices)
    mats.push_back({{"name", m.name}, {"from", layout_json(m.from)}, {"to", layout_json(m.to)}, {"bytes", m.bytes},
                    {"bytes_kept", m.kept}, {"bytes_moved", m.moved}, {"batch", m.batch}});
  j["matrices"] = mats;
  j["bytes_kept"] = p.bytes_kept();
  j["bytes_moved"] = p.bytes_moved();
  j["cost"] = {{"start_s", seconds(p.start.seconds)}, {"start_from", p.start.from},
               {"redistribute_s", seconds(p.redistribute.seconds)}, {"redistribute_from", p.redistribute.from},
               {"total_s", seconds(p.total_s())}};
  return j.dump();
}

std::string plan_table(const ResizePlan& p) {
  std::ostringstream o;
  const Decision& d = p.decision;
  o << "dry run: " << to_string(d.action) << " " << p.from.shape();
  if (d.action == Action::None) return o.str() + " (no resize)" + (d.reason.empty() ? "" : ": " + d.reason) + "\n";
  if (!p.refused.empty()) return o.str() + " refused: " + p.refused + "\n";
  o << " -> " << p.to.shape() << " (" << to_string(d.placement) << "), " << p.how << ", start by " << p.mechanism << "\n";
  if (!p.how_why.empty()) o << "  how: " << p.how_why << "\n";
  for (const auto& [h, c] : p.nodes.spawn) o << "  start " << c << " on " << h << "\n";
  for (const auto& h : p.nodes.release) o << "  give back " << h << "\n";
  o << "  matrix        from                 to                   bytes          kept           moved          batch\n";
  for (const auto& m : p.matrices) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-13s %-20s %-20s %-14lld %-14lld %-14lld %d\n", m.name.c_str(),
                  layout_shape(m.from).c_str(), layout_shape(m.to).c_str(), static_cast<long long>(m.bytes),
                  static_cast<long long>(m.kept), static_cast<long long>(m.moved), m.batch);
    o << line;
  }
  const auto s = [](double x) { return x < 0 ? std::string("n/a") : fixed(x) + " s"; };
  o << "  phase         predicted   from\n";
  o << "  start         " << s(p.start.seconds) << "   " << p.start.from << "\n";
  o << "  redistribute  " << s(p.redistribute.seconds) << "   " << p.redistribute.from << "\n";
  o << "  total         " << s(p.total_s()) << "\n";
  return o.str();
}

}  // namespace resize::detail
