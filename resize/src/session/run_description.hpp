// SPDX-License-Identifier: BSD-3-Clause
// The run's description for its report, assembled by the session from the parts it reads
// (run_description.cpp): the facade's Session::run_info, summary and write_json hand the
// plain RunInfo to report/, which renders it and reads none of the session's parts.
#pragma once

#include <string>
#include <vector>

#include "checkpoint/session_checkpoint.hpp"
#include "malleable/resize/report.hpp"
#include "malleable/resize/session_options.hpp"
#include "parts/registry.hpp"
#include "parts/session_parts.hpp"

namespace resize::detail {

// The run's description for its report, from the parts it reads: the options and command
// line, the registered matrices, the checkpoints written and what the application told.
RunInfo describe_run(const SessionOptions& opt, const std::string& exe, const std::vector<std::string>& args,
                     const MatrixRegistry& registry, const SessionCheckpoints& ckpts, const ReportInputs& report,
                     const std::string& mover);

}  // namespace resize::detail
