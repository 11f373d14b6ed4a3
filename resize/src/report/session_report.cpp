// SPDX-License-Identifier: BSD-3-Clause
// The run's report from the session (Session::summary, write_json): the same table and
// JSON the drivers print, for any program (report.cpp renders them from the metrics).
#include "session/session_impl.hpp"

#include <fstream>
#include <iostream>
#include <thread>

namespace resize {

void Session::set_result_check(bool ok, const std::string& message) { impl_->result_check = {ok, message}; }

void Session::set_problem(const std::string& text) { impl_->problem = text; }

RunInfo Session::run_info() const {
  const auto& I = *impl_;
  RunInfo info;
  info.app = I.opt.app;
  info.policy = !I.opt.policy_text.empty() ? I.opt.policy_text : I.opt.policy ? I.opt.policy->name() : "fixed";
  info.redistributor = mover_name();
  if (I.result_check) {
    info.check_ok = I.result_check->first;
    // The outcome in words after the program's message, as the drivers print it.
    const std::string& msg = I.result_check->second;
    const std::string outcome = info.check_ok ? "OK" : "FAILED";
    info.check = msg.empty() ? outcome : msg.find(outcome) == std::string::npos ? msg + ": " + outcome : msg;
    info.check_given = true;
  } else {
    info.check = "not given (Session::set_result_check)";
    info.check_ok = true;
    info.check_given = false;
  }
  info.cores = host_cores();
  info.command_line.push_back(I.exe);
  info.command_line.insert(info.command_line.end(), I.args.begin(), I.args.end());
  if (!I.mats.empty()) {
    const auto& r = I.mats.front();
    info.n = r.m;
    info.nb = r.sizes ? 0 : r.mb;
    info.distribution = r.sizes ? "blocks" : r.dist == Distribution::Block ? "block" : "block-cyclic";
  }
  if (!I.problem.empty()) {
    info.problem = I.problem;
  } else {
    // The registered matrices: "A 1200x1200 NB 64x64, x 1200x1 NB 64x1".
    for (const auto& r : I.mats) {
      if (!info.problem.empty()) info.problem += ", ";
      info.problem += r.name + " " + std::to_string(r.m) + "x" + std::to_string(r.n);
      if (r.sizes) info.problem += " (blocks)";
      else if (r.dist == Distribution::Block) info.problem += " (block)";
      else info.problem += " NB " + std::to_string(r.mb) + "x" + std::to_string(r.nb);
    }
  }
  if (I.checkpointing) {  // the cadence and what checkpoint_if_due wrote (world rank 0)
    const auto& c = I.checkpointing->cadence;
    info.checkpoint_every = c.every.empty() ? "end" : c.every;
    info.mtbf_s = I.checkpointing->every.mtbf;
  }
  info.checkpoints = I.checkpoints;
  return info;
}

std::string Session::summary() const {
  if (world_rank() != 0) return {};
  return summary_table(impl_->metrics, run_info());
}

void Session::write_json(const std::string& path) const {
  if (world_rank() != 0) return;
  if (path.empty()) throw Error("write_json: the path is empty");
  std::string text = to_json(impl_->metrics, run_info()) + "\n";
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) throw Error("write_json: cannot write '" + path + "'");
}

}  // namespace resize
