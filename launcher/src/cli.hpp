// SPDX-License-Identifier: BSD-3-Clause
// malleable-run's command line (pure): the options, their bounds and the usage and help
// texts. Every message and exit status is the one the launcher prints (tests grep them).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace launcher {

struct Options {
  int np = 4;
  bool np_set = false;
  int max_restarts = 20;
  std::string hosts;              // "H1,H2,..." or "slurm" or empty
  bool restart_on_failure = false;  // --on-failure restart
  std::string job_dir;
  std::string join_dir;
  std::string join_host;
  std::string launch_id;
  bool at_start = false;
  std::string while_job;
  std::vector<std::string> program;  // the program and its arguments
};

// What parsing ended in: options to run, or text to print and a status to exit with.
struct Parsed {
  std::optional<Options> options;
  int status = 0;        // when no options: 0 (help) or 2 (usage)
  std::string out;       // for stdout (help)
  std::string err;       // for stderr ("malleable-run: ...")
};

extern const char* const kUsage;
std::string help_text();
// args: argv[1..]. Bounds: -n 1..999999, --max-restarts 0..9999, --while-job a Slurm job id.
Parsed parse_options(const std::vector<std::string>& args);

}  // namespace launcher
