// SPDX-License-Identifier: BSD-3-Clause
// gridmap-plan's helpers (gridmap_plan.cpp is the tool's main and subcommands): the
// option checks that make a bad value a usage error naming the option, the matrix and
// aspect options shared by the subcommands, and the text tables and JSON of the output.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/movement.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/gridmap/topology.hpp"

namespace gridmap_cli {

using namespace gridmap;
using nlohmann::json;

// Value checks for CLI11: a failed check is a usage error (exit 2) naming the option.
// CLI11's own PositiveNumber lets NaN through (NaN <= 0 is false), so these test what is
// accepted rather than what is refused.
CLI::Validator finite_positive();
CLI::Validator finite_nonnegative();
// Aspect ratios: > 0, inf allowed (no constraint), NaN refused.
CLI::Validator positive_or_inf();
template <class T>
CLI::Validator at_least(T lo) {
  return CLI::Validator([lo](std::string& v) -> std::string {
    char* end = nullptr;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    return (end != v.c_str() && *end == '\0' && x >= static_cast<long long>(lo))
               ? "" : "must be an integer >= " + std::to_string(lo) + ", got " + v;
  }, "INT>=" + std::to_string(lo));
}

// The matrix options: the record gridmap plans for (redist::MatrixSpec; --m, --n, --mb,
// --nb set its fields), --block its distribution, --bytes an element's size.
struct MatrixArgs {
  redist::MatrixSpec spec = redist::MatrixSpec::block_cyclic(12000, 12000, 64, 64);
  bool block = false;
  int bytes = 8;
  redist::MatrixSpec shape() const {
    redist::MatrixSpec s = spec;
    s.dist = block ? redist::Distribution::Block : redist::Distribution::BlockCyclic;
    check_matrix(s);
    return s;
  }
};

void add_matrix_options(CLI::App* app, MatrixArgs& a);

struct AspectArgs {
  double p = 1, q = 1;
  std::string scope = "increment";
  AspectRatio ratio() const { return AspectRatio{p, q}; }
  AspectScope parsed_scope() const {
    if (scope == "increment") return AspectScope::Increment;
    if (scope == "final") return AspectScope::FinalGrid;
    fail("--scope: expected increment or final, got \"", scope, "\"");
  }
};

void add_aspect_options(CLI::App* app, AspectArgs& a, const char* scope_default);

std::string fmt(double v, int prec = 1);
std::string mib(std::int64_t bytes);
// A plain text table: header row, then rows, columns padded to their widest cell.
void print_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows);
void print_grid(const std::string& title, Topology g, const std::vector<std::string>& cells);
std::vector<std::string> ids_text(const Placement& p);
json movement_json(const Movement& m);
json grid_json(Topology g);
json placement_json(const Placement& p);
void print_movement_by_rank(const Movement& m);

}  // namespace gridmap_cli
