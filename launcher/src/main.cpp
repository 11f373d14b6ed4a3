// SPDX-License-Identifier: BSD-3-Clause
// malleable-run: the launcher of malleable jobs (malleable-run --help; docs/guide/joining.md,
// docs/guide/checkpoint.md). Parses its command line, takes its signals on a thread of
// their own (a signal ends the running launch; the job directory's launches and server are
// ended on every way out), and runs the restart loop or one joining launch.
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <mutex>

#include "run.hpp"

namespace launcher {

namespace {
std::mutex g_out;
}

void write_out(int fd, const std::string& bytes) {
  if (bytes.empty()) return;
  std::lock_guard<std::mutex> l(g_out);
  (void)write_all(fd, bytes);
}

void say(const std::string& text) { write_out(1, "malleable-run: " + text + "\n"); }
void warn(const std::string& text) { write_out(2, "malleable-run: " + text + "\n"); }

}  // namespace launcher

namespace {

std::string self_path(const char* argv0) {
  char b[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", b, sizeof b - 1);
  if (n > 0) return std::string(b, static_cast<std::size_t>(n));
  return launcher::real_path(argv0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace launcher;
  const Parsed parsed = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.options) {
    write_out(1, parsed.out);
    write_out(2, parsed.err);
    return parsed.status;
  }
  Run r;
  r.o = *parsed.options;
  take_signals([&r](int) {
    if (const pid_t pid = r.current.load(); pid > 0) ::kill(pid, SIGTERM);
  });
  r.env = Env::from_process();
  r.self = self_path(argv[0]);
  const std::string* m = r.env.get("MALLEABLE_MPIEXEC");
  r.mpiexec = split_words(m && !m->empty() ? *m : "mpiexec --oversubscribe --bind-to none");
  if (r.mpiexec.empty()) r.mpiexec = split_words("mpiexec --oversubscribe --bind-to none");
  int status = 0;
  try {
    status = r.o.join_dir.empty() ? run_loop(r) : join_launch(r);
  } catch (const Failure& f) {
    if (*f.what()) warn(f.what());
    status = f.status;
  } catch (const std::exception& e) {
    warn(e.what());
    status = 1;
  }
  job_dir_end(r);
  if (r.jobdir.agent.joinable()) r.jobdir.agent.join();
  return status;
}
