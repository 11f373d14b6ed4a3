// SPDX-License-Identifier: BSD-3-Clause
// gridmap-plan's helpers (plan_common.hpp): option checks, shared options, tables, JSON.
#include "plan_common.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace gridmap_cli {

CLI::Validator finite_positive() {
  return CLI::Validator([](std::string& v) -> std::string {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    return (end != v.c_str() && *end == '\0' && std::isfinite(x) && x > 0) ? "" : "must be a finite number > 0, got " + v;
  }, "FINITE>0");
}
CLI::Validator finite_nonnegative() {
  return CLI::Validator([](std::string& v) -> std::string {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    return (end != v.c_str() && *end == '\0' && std::isfinite(x) && x >= 0) ? "" : "must be a finite number >= 0, got " + v;
  }, "FINITE>=0");
}
// Aspect ratios: > 0, inf allowed (no constraint), NaN refused.
CLI::Validator positive_or_inf() {
  return CLI::Validator([](std::string& v) -> std::string {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    return (end != v.c_str() && *end == '\0' && x > 0) ? "" : "must be a number > 0 or inf, got " + v;
  }, "NUMBER>0|inf");
}
void add_matrix_options(CLI::App* app, MatrixArgs& a) {
  app->add_option("--m", a.spec.m, "global rows of the matrix")->check(at_least(1));
  app->add_option("--n", a.spec.n, "global columns of the matrix")->check(at_least(1));
  app->add_option("--mb", a.spec.mb, "row block size (block-cyclic)")->check(at_least(1));
  app->add_option("--nb", a.spec.nb, "column block size (block-cyclic)")->check(at_least(1));
  app->add_flag("--block", a.block, "one block per process row/column (the block distribution of §4.5)");
  app->add_option("--bytes", a.bytes, "bytes per matrix element")->check(CLI::Range(1, 64));
}

void add_aspect_options(CLI::App* app, AspectArgs& a, const char* scope_default) {
  a.scope = scope_default;
  app->add_option("--aspect-p", a.p, "aspect constraint c <= p*r (§5.1.1; inf for none)")->check(positive_or_inf());
  app->add_option("--aspect-q", a.q, "aspect constraint r <= q*c (§5.1.1; inf for none)")->check(positive_or_inf());
  app->add_option("--scope", a.scope, "constraints on the increment (thesis) or the final grid")
      ->check(CLI::IsMember({"increment", "final"}));
}

std::string fmt(double v, int prec) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(prec) << v;
  return o.str();
}

std::string mib(std::int64_t bytes) { return fmt(static_cast<double>(bytes) / (1024.0 * 1024.0), 2); }

// A plain text table: header row, then rows, columns padded to their widest cell.
void print_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) w[c] = head[c].size();
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  const auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t c = 0; c < w.size(); ++c)
      std::cout << (c ? "  " : "") << std::setw(static_cast<int>(w[c])) << (c < r.size() ? r[c] : "");
    std::cout << '\n';
  };
  line(head);
  std::size_t total = 0;
  for (auto x : w) total += x + 2;
  std::cout << std::string(total - 2, '-') << '\n';
  for (const auto& r : rows) line(r);
}

void print_grid(const std::string& title, Topology g, const std::vector<std::string>& cells) {
  std::cout << title << '\n';
  std::size_t w = 1;
  for (const auto& c : cells) w = std::max(w, c.size());
  for (int i = 0; i < g.rows; ++i) {
    std::cout << "  ";
    for (int j = 0; j < g.cols; ++j)
      std::cout << (j ? " " : "") << std::setw(static_cast<int>(w)) << cells[static_cast<std::size_t>(i) * g.cols + j];
    std::cout << '\n';
  }
}

std::vector<std::string> ids_text(const Placement& p) {
  std::vector<std::string> s;
  for (int id : p.slots) s.push_back(std::to_string(id));
  return s;
}

json movement_json(const Movement& m) {
  return {{"elements_total", m.elements_total}, {"elements_kept", m.elements_kept},
          {"elements_moved", m.elements_moved}, {"bytes_moved", m.bytes_moved()},
          {"messages", m.messages}, {"max_sent_elements", m.max_sent_by_one},
          {"max_recv_elements", m.max_recv_by_one}, {"sent_elements_by_rank", m.sent_by_rank},
          {"recv_elements_by_rank", m.recv_by_rank}};
}

json grid_json(Topology g) { return {{"rows", g.rows}, {"cols", g.cols}}; }

json placement_json(const Placement& p) { return {{"grid", grid_json(p.grid)}, {"slots", p.slots}}; }

void print_movement_by_rank(const Movement& m) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r < m.sent_by_rank.size(); ++r)
    rows.push_back({std::to_string(r), std::to_string(m.sent_by_rank[r]), mib(m.sent_by_rank[r] * m.element_bytes),
                    std::to_string(m.recv_by_rank[r]), mib(m.recv_by_rank[r] * m.element_bytes)});
  print_table({"process", "sent elems", "sent MiB", "recv elems", "recv MiB"}, rows);
}

}  // namespace gridmap_cli
