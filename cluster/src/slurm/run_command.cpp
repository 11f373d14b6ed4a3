// SPDX-License-Identifier: BSD-3-Clause
// The Slurm policy's command layer: runs Slurm's commands (on world rank 0) through sh.
#include <sys/wait.h>

#include <cstdio>

#include "malleable/cluster/slurm.hpp"

namespace cluster::slurm {

Runner shell_runner() {
  return [](const std::string& cmd) {
    Command c;
    // squeue's times (%V, %S) in the one format parse_slurm_time reads, whatever the
    // user's SLURM_TIME_FORMAT
    FILE* f = ::popen(("(SLURM_TIME_FORMAT=standard; export SLURM_TIME_FORMAT; " + cmd + ") 2>&1").c_str(), "r");
    if (!f) return c;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) c.out.append(buf, n);
    const int st = ::pclose(f);
    c.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return c;
  };
}

}  // namespace cluster::slurm
