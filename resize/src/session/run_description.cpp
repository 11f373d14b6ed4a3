// SPDX-License-Identifier: BSD-3-Clause
// The run's description for its report (Session::summary, write_json: the same table and
// JSON the drivers print, for any program; report/report.cpp renders them from the
// metrics), assembled here from the session's parts: report/ is given the plain RunInfo.
#include "session/run_description.hpp"

#include <thread>

namespace resize {

namespace detail {
// The run's description for its report, from the parts it reads: the options and command
// line, the registered matrices, the checkpoints written and what the application told.
RunInfo describe_run(const SessionOptions& opt, const std::string& exe, const std::vector<std::string>& args,
                     const MatrixRegistry& registry, const SessionCheckpoints& ckpts, const ReportInputs& report,
                     const std::string& mover) {
  RunInfo info;
  info.app = opt.app;
  info.policy = !opt.policy_text.empty() ? opt.policy_text : opt.policy ? opt.policy->name() : "fixed";
  info.redistributor = mover;
  if (report.result_check) {
    info.check_ok = report.result_check->first;
    // The outcome in words after the program's message, as the drivers print it.
    const std::string& msg = report.result_check->second;
    const std::string outcome = info.check_ok ? "OK" : "FAILED";
    info.check = msg.empty() ? outcome : msg.find(outcome) == std::string::npos ? msg + ": " + outcome : msg;
    info.check_given = true;
  } else {
    info.check = "not given (Session::set_result_check)";
    info.check_ok = true;
    info.check_given = false;
  }
  info.cores = host_cores();
  info.command_line.push_back(exe);
  info.command_line.insert(info.command_line.end(), args.begin(), args.end());
  if (!registry.mats.empty()) {
    const auto& r = registry.mats.front();
    info.n = r.mat().m;
    info.nb = r.mat().extended() ? 0 : r.mat().mb;
    info.distribution = r.mat().extended() ? "blocks" : r.mat().dist == Distribution::Block ? "block" : "block-cyclic";
  }
  if (!report.problem.empty()) {
    info.problem = report.problem;
  } else {
    // The registered matrices: "A 1200x1200 NB 64x64, x 1200x1 NB 64x1".
    for (const auto& r : registry.mats) {
      if (!info.problem.empty()) info.problem += ", ";
      info.problem += r.mat().name + " " + std::to_string(r.mat().m) + "x" + std::to_string(r.mat().n);
      if (r.mat().extended()) info.problem += " (blocks)";
      else if (r.mat().dist == Distribution::Block) info.problem += " (block)";
      else info.problem += " NB " + std::to_string(r.mat().mb) + "x" + std::to_string(r.mat().nb);
    }
  }
  if (ckpts.checkpointing) {  // the cadence and what checkpoint_if_due wrote (world rank 0)
    const auto& c = ckpts.checkpointing->cadence;
    info.checkpoint_every = c.every.empty() ? "end" : c.every;
    info.mtbf_s = ckpts.checkpointing->every.mtbf;
  }
  info.checkpoints = ckpts.checkpoints;
  info.levels = ckpts.level_records;
  return info;
}
}  // namespace detail

}  // namespace resize
